import type { AuthorizeOutcome, PaymentConnector } from '../../../connectors/connector.ts';
import type { RequestContext } from '../../../context.ts';
import type { TransactionRow } from '../../../db/schema-transactions.ts';
import type { Tx } from '../../../db/transaction.ts';
import { overCaptureLimit } from '../../merchant-accounts/merchant-accounts.service.ts';
import { storeAuthorizedCard } from '../../payment-methods/payment-methods.service.ts';
import type { CallResult } from '../connector-call.ts';
import type { ResolvedInstrument } from './instrument.ts';
import { applyAuthorization, type Applied } from '../outcomes.ts';

/**
 * An authorization's answer applied to its transaction, the same way wherever the authorization
 * ran (`POST /transactions`, or a completed 3DS challenge).
 */

/** The outcome a call stands for: a technical failure is a failed authorization; null for a timeout (unknown). */
export function authorizeOutcomeOf(result: CallResult<AuthorizeOutcome>): AuthorizeOutcome | null {
  if (result.ok) return result.value;
  if (result.kind === 'timeout') return null;
  return {
    status: 'failed', errorCode: result.kind === 'unavailable' ? 'service_network_error' : 'service_error', rawResponseCode: null, rawResponseDescription: null,
    providerTransactionId: null, authResponseCode: null, avsResponseCode: null, cvvResponseCode: null, schemeTransactionId: null, merchantAdviceCode: null, approvalUrl: null, additionalIdentifiers: {},
  };
}

/**
 * `applyAuthorization` for this connector: an authorization on a connector with over-capture may
 * be captured up to the merchant account's allowance above it (`overCaptureLimit`, an SQL
 * expression the update evaluates). Throws TransitionError when the transaction was closed meanwhile.
 */
export function applyAuthorizeOutcome(ctx: RequestContext, row: TransactionRow, outcome: AuthorizeOutcome, connector: PaymentConnector, now: Date): Applied {
  const applied = applyAuthorization(row, outcome, now, 0);
  if (outcome.status === 'authorized' && connector.definition.capabilities.overCapture) {
    Object.assign(applied.patch, { capture_limit: overCaptureLimit(ctx.merchantAccountId, row.amount - row.gift_card_amount) });
  }
  return applied;
}

/**
 * `store: true`: the card is vaulted once the authorization accepted it, not before, and the
 * transaction points at the stored payment method (`snapshot`: its `payment_method` so far).
 */
export async function storeIfAccepted(tx: Tx, ctx: RequestContext, applied: Applied | null, card: NonNullable<ResolvedInstrument['storable']>, snapshot: Record<string, unknown>, buyerId: string | null): Promise<void> {
  if (!applied || !['authorization_succeeded', 'capture_succeeded', 'capture_pending'].includes(applied.patch.status as string)) return;
  const stored = await storeAuthorizedCard(tx, ctx, card, buyerId);
  applied.patch.payment_method_id = stored.id;
  applied.patch.payment_method = JSON.stringify({ ...snapshot, id: stored.id });
}
