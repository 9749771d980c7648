import type { Deps } from '../../context.ts';
import type { PaymentConnector } from '../../connectors/connector.ts';
import type { MerchantProfileSchemeJson, PaymentServiceRow } from '../../db/schema.ts';
import {
  mergeFields,
  openFields,
  toFieldMap,
  verifyFields,
  type FieldKind,
  type FieldValues,
} from './payment-service-fields.ts';
import type { PaymentServicePatch } from './payment-services.repo.ts';
import type { MerchantProfileScheme, UpdatePaymentServiceBody } from './payment-services.schemas.ts';

/** The credentials changed between verification and the write: the update is planned again. */
export class StaleCredentials extends Error {
  constructor() {
    super('payment service fields changed concurrently');
    this.name = 'StaleCredentials';
  }
}

/** A merchant profile per scheme; a null entry removes that scheme, a new entry records when it was set. */
export function mergeProfile(
  current: Record<string, MerchantProfileSchemeJson> | null,
  change: Record<string, MerchantProfileScheme | null>,
): Record<string, MerchantProfileSchemeJson> {
  const merged = { ...current };
  const now = new Date().toISOString();
  for (const [scheme, profile] of Object.entries(change)) {
    if (profile === null) delete merged[scheme];
    else merged[scheme] = { ...profile, created_at: now };
  }
  return merged;
}

const KEPT_WHEN_NULL = [
  'display_name',
  'position',
  'active',
  'accepted_currencies',
  'accepted_countries',
  'three_d_secure_enabled',
  'payment_method_tokenization_enabled',
  'network_tokens_enabled',
  'open_loop',
  'settlement_reporting_enabled',
] as const;

/** The columns a PUT changes besides the fields: absent or null keeps a value; `merchant_profile: null` clears it. */
export function simplePatch(body: UpdatePaymentServiceBody, current: PaymentServiceRow): PaymentServicePatch {
  const patch: Record<string, unknown> = {};
  for (const key of KEPT_WHEN_NULL) {
    if (body[key] !== undefined && body[key] !== null) patch[key] = body[key];
  }
  if (body.merchant_profile === null) patch.merchant_profile = null;
  else if (body.merchant_profile !== undefined)
    patch.merchant_profile = JSON.stringify(mergeProfile(current.merchant_profile, body.merchant_profile));
  return patch as PaymentServicePatch;
}

export interface CredentialPlan {
  /** Every value after the merge, secrets in clear: sealed again in the write. */
  values: Record<FieldKind, FieldValues>;
  /** What the verification was based on; the write checks the locked row still has it. */
  basis: (row: PaymentServiceRow) => string;
}

const basis = (row: PaymentServiceRow) => JSON.stringify([row.fields, row.reporting_fields, row.sealed_fields]);

/** Merges the changed fields over the stored ones (secrets opened) and verifies them; null when no field changes. */
export async function planCredentials(
  deps: Deps,
  connector: PaymentConnector,
  current: PaymentServiceRow,
  body: UpdatePaymentServiceBody,
): Promise<CredentialPlan | null> {
  if (!body.fields && !body.reporting_fields) return null;
  const values = {
    field: mergeFields(await openFields(deps.db, deps, current, 'field'), toFieldMap(body.fields, 'field')),
    reporting_field: mergeFields(
      await openFields(deps.db, deps, current, 'reporting_field'),
      toFieldMap(body.reporting_fields, 'reporting_field'),
    ),
  };
  await verifyFields(connector, values.field, values.reporting_field);
  return { values, basis };
}
