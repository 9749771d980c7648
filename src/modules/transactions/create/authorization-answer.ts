import type { AuthorizeOutcome, PaymentConnector } from '../../../connectors/connector.ts';
import type { RequestContext } from '../../../context.ts';
import type { TransactionRow } from '../../../db/schema-transactions.ts';
import type { Executor, Tx } from '../../../db/transaction.ts';
import { overCaptureLimit } from '../../merchant-accounts/merchant-accounts.service.ts';
import { schemeTransactionIdQuery, storeAuthorizedCard } from '../../payment-methods/payment-methods.service.ts';
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
    status: 'failed',
    errorCode: result.kind === 'unavailable' ? 'service_network_error' : 'service_error',
    rawResponseCode: null,
    rawResponseDescription: null,
    providerTransactionId: null,
    authResponseCode: null,
    avsResponseCode: null,
    cvvResponseCode: null,
    schemeTransactionId: null,
    merchantAdviceCode: null,
    approvalUrl: null,
    additionalIdentifiers: {},
  };
}

/**
 * `applyAuthorization` for this connector: an authorization on a connector with over-capture may
 * be captured up to the merchant account's allowance above it (`overCaptureLimit`, an SQL
 * expression the update evaluates). Throws TransitionError when the transaction was closed meanwhile.
 */
export function applyAuthorizeOutcome(
  ctx: RequestContext,
  row: TransactionRow,
  outcome: AuthorizeOutcome,
  connector: PaymentConnector,
  now: Date,
): Applied {
  const applied = applyAuthorization(row, outcome, now, 0);
  if (outcome.status === 'authorized' && connector.definition.capabilities.overCapture) {
    Object.assign(applied.patch, {
      capture_limit: overCaptureLimit(ctx.merchantAccountId, row.amount - row.gift_card_amount),
    });
  }
  return applied;
}

const ACCEPTED: readonly string[] = ['authorization_succeeded', 'capture_succeeded', 'capture_pending'];

/**
 * `store: true`: the card is vaulted once the authorization accepted it, not before, and the
 * transaction points at the stored payment method (`snapshot`: its `payment_method` so far). A
 * customer-initiated payment gives the card the scheme's transaction id the connector answered.
 */
export async function storeIfAccepted(
  tx: Tx,
  ctx: RequestContext,
  applied: Applied | null,
  card: NonNullable<ResolvedInstrument['storable']>,
  snapshot: Record<string, unknown>,
  current: Pick<TransactionRow, 'buyer_id' | 'merchant_initiated'>,
): Promise<void> {
  if (!applied || !ACCEPTED.includes(applied.patch.status as string)) return;
  const schemeTransactionId = current.merchant_initiated
    ? null
    : ((applied.patch.scheme_transaction_id as string | null | undefined) ?? null);
  const stored = await storeAuthorizedCard(
    tx,
    ctx,
    { ...card, scheme_transaction_id: schemeTransactionId },
    current.buyer_id,
  );
  applied.patch.payment_method_id = stored.id;
  applied.patch.payment_method = JSON.stringify({ ...snapshot, id: stored.id });
}

/**
 * The statement that gives a stored card (`lacksSchemeTransactionId`: it had none when the payment
 * read it) the scheme's transaction id of its first approved customer-initiated payment, for the
 * caller to run with the answer's other writes; null when `row` (the transaction as the answer
 * leaves it) is not such a payment or the connector answered no id.
 */
export function schemeTransactionIdWrite(
  db: Executor,
  row: TransactionRow,
  lacksSchemeTransactionId: boolean,
  now: Date,
) {
  if (
    !lacksSchemeTransactionId ||
    !row.payment_method_id ||
    row.merchant_initiated ||
    !row.scheme_transaction_id ||
    !ACCEPTED.includes(row.status)
  )
    return null;
  const scheme = (row.payment_method as { scheme?: string | null } | null)?.scheme ?? null;
  return schemeTransactionIdQuery(
    db,
    row.merchant_account_id,
    row.payment_method_id,
    row.scheme_transaction_id,
    scheme,
    now,
  );
}
