import {
  callConnector as boundedConnectorCall,
  CONNECTOR_TIMEOUT_MS,
  unknownOutcome,
  UNANSWERED,
  type CallFailure,
  type CallSuccess,
} from '../../connectors/call.ts';
import type { AuthorizeBuyer, CartLine, PaymentConnector, ResponseFacts } from '../../connectors/connector.ts';
import { inboundWebhookUrl } from '../../connectors/connector-webhooks.ts';
import type { RequestContext } from '../../context.ts';
import type { Deps } from '../../context.ts';
import type { AttemptStatus, TransactionRow } from '../../db/schema-transactions.ts';
import type { Executor } from '../../db/transaction.ts';
import { AppError } from '../../errors/app-error.ts';
import { credentialsOf, findUsablePaymentServiceCached } from '../payment-services/payment-services.service.ts';

export { CONNECTOR_TIMEOUT_MS, UNANSWERED };

/** The technical result of a call: the connector's answer, or why there is none. */
export type CallResult<T> = CallSuccess<T> | CallFailure;

/**
 * Calls a connector outside any database transaction (STYLE D4), bounded at 30 s. A `timeout` (or
 * an unexpected error, which may have happened after the provider acted) is an unknown outcome,
 * never a decline (`unknownOutcome`).
 */
export function callConnector<T>(
  fn: () => Promise<T>,
  log: { warn(obj: object, msg?: string): void },
): Promise<CallResult<T>> {
  return boundedConnectorCall(fn, unknownOutcome(log));
}

export interface BoundConnector {
  connector: PaymentConnector;
  credentials: Record<string, string>;
  options: Record<string, unknown> | null;
}

/** The connector, credentials and connection options of the payment service that processed a transaction. */
export async function connectorOfTransaction(db: Executor, deps: Deps, row: TransactionRow): Promise<BoundConnector> {
  if (!row.payment_service_id) throw new AppError('bad_request', 'The transaction has no payment service to act on');
  const service = await findUsablePaymentServiceCached(db, deps, row.merchant_account_id, row.payment_service_id);
  if (!service)
    throw new AppError(
      'bad_request',
      `The payment service ${row.payment_service_id} of this transaction has been deleted`,
    );
  const connector = deps.connectors.find(service.payment_service_definition_id);
  if (!connector)
    throw (
      deps.connectors.sandboxRefusal(service.payment_service_definition_id) ??
      new AppError('bad_request', `No connector is available for ${service.payment_service_definition_id}`)
    );
  const options =
    (row.connection_options?.[service.payment_service_definition_id] as Record<string, unknown> | undefined) ?? null;
  return { connector, credentials: await credentialsOf(db, deps, service), options };
}

/** The transaction's buyer as a connector receives it (its billing details), or null. */
export function authorizeBuyerOf(snapshot: TransactionRow['buyer']): AuthorizeBuyer | null {
  if (!snapshot) return null;
  const buyer = snapshot as {
    display_name?: string | null;
    billing_details?: {
      first_name?: string | null;
      last_name?: string | null;
      email_address?: string | null;
      tax_id?: { value?: string; kind?: string } | null;
    } | null;
  };
  const billing = buyer.billing_details ?? {};
  const name = [billing.first_name, billing.last_name].filter((part) => part?.trim()).join(' ');
  const taxId = billing.tax_id;
  return {
    name: name || buyer.display_name || null,
    emailAddress: billing.email_address ?? null,
    taxId: taxId?.value && taxId.kind ? { value: taxId.value, kind: taxId.kind } : null,
  };
}

/** Our inbound webhook address of the transaction's payment service (for providers that take one per request). */
export function notificationUrlOf(deps: Deps, row: TransactionRow): string | null {
  return row.payment_service_id
    ? inboundWebhookUrl(deps.config.publicUrl, row.merchant_account_id, row.payment_service_id)
    : null;
}

/** Facts of the original payment that follow-up calls carry (never the full number). */
export function paymentHint(row: TransactionRow) {
  const pm = (row.payment_method ?? {}) as { bin?: string | null; label?: string | null };
  return {
    method: row.method ?? 'card',
    bin: pm.bin ?? null,
    last4: pm.label ?? null,
    authorizedAmount: row.authorized_amount || row.amount,
    cartItems: cartLinesOf(row.cart_items),
  };
}

/** The transaction's `cart_items` as a connector receives them (camelCase; null when none). */
export function cartLinesOf(items: TransactionRow['cart_items']): CartLine[] | null {
  if (!Array.isArray(items) || items.length === 0) return null;
  return (items as Array<Record<string, unknown>>).map((item) => ({
    name: String(item.name ?? ''),
    quantity: Number(item.quantity ?? 1),
    unitAmount: Number(item.unit_amount ?? 0),
    discountAmount: typeof item.discount_amount === 'number' ? item.discount_amount : null,
    taxAmount: typeof item.tax_amount === 'number' ? item.tax_amount : null,
    sku: typeof item.sku === 'string' ? item.sku : null,
    externalIdentifier: typeof item.external_identifier === 'string' ? item.external_identifier : null,
    productUrl: typeof item.product_url === 'string' ? item.product_url : null,
    imageUrl: typeof item.image_url === 'string' ? item.image_url : null,
  }));
}

/**
 * The attempt row after its call: final, `pending` (asked again at `nextCheck`), or `unknown` when
 * no answer came (a timeout: never a decline; reconciliation asks the provider later).
 */
export function attemptPatch(
  result: CallResult<ResponseFacts>,
  applied: { attemptStatus: AttemptStatus } | null,
  nextCheck: Date,
  providerReference: string | null,
  errorWithoutAnswer: string | null = null,
) {
  const answer = result.ok ? result.value : null;
  return {
    status: applied?.attemptStatus ?? ('unknown' as const),
    provider_reference: providerReference,
    error_code: answer ? answer.errorCode : (errorWithoutAnswer ?? (result.ok ? null : result.kind)),
    raw_response_code: answer?.rawResponseCode ?? null,
    raw_response_description: answer?.rawResponseDescription ?? null,
    next_check_at: applied && applied.attemptStatus !== 'pending' ? null : nextCheck,
  };
}

export type { RequestContext };
