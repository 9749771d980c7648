import type { RequestContext } from '../../context.ts';
import { notFound } from '../../errors/app-error.ts';
import { renderBadgeIcon } from '../../lib/badge-icon.ts';
import {
  isPaymentMethodDefinitionId,
  PAYMENT_METHOD_CATALOGUE,
  PAYMENT_METHOD_DEFINITION_IDS,
} from './payment-method-definitions.catalogue.ts';
import {
  toPaymentMethodDefinitionResource,
  type PaymentMethodDefinition,
} from './payment-method-definitions.schemas.ts';

/** Every method the server recognizes, by id; the same for every merchant account (a catalogue). */
export async function listPaymentMethodDefinitions(ctx: RequestContext): Promise<{ items: PaymentMethodDefinition[] }> {
  return {
    items: PAYMENT_METHOD_DEFINITION_IDS.map((id) => toPaymentMethodDefinitionResource(id, ctx.deps.config.publicUrl)),
  };
}

/** The SVG of a method's icon; 404 for an id the catalogue does not hold. */
export function paymentMethodIcon(id: string): string {
  if (!isPaymentMethodDefinitionId(id)) throw notFound('payment method definition icon', id);
  const entry = PAYMENT_METHOD_CATALOGUE[id];
  return renderBadgeIcon({ displayName: entry.displayName, ...entry.icon });
}
