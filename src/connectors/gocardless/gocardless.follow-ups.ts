import type {
  CaptureOutcome,
  CaptureRequest,
  RefundOutcome,
  RefundRequest,
  ResponseFacts,
  SyncOutcome,
  SyncRequest,
  VoidOutcome,
  VoidRequest,
} from '../connector.ts';
import { toGoCardlessAmount } from './gocardless.amounts.ts';
import type { GoCardlessClient } from './gocardless.client.ts';
import {
  CAPTURE_SYNC,
  declineOf,
  httpError,
  mandateStateOf,
  paymentStateOf,
  refundStateOf,
} from './gocardless.mapping.ts';
import { createPayment } from './gocardless.payments.ts';
import {
  createOnce,
  listAll,
  mandateIdOf,
  META_ATTEMPT,
  META_BILLING_REQUEST,
  type GcMandate,
  type GcPayment,
  type GcRefund,
} from './gocardless.resources.ts';

/**
 * Captures (payments against the mandate), voids (the mandate cancelled before anything was
 * collected) and refunds of a GoCardless payment. Each create carries the attempt id as its
 * Idempotency-Key and in its metadata, so a call whose answer was lost is found again by listing
 * the mandate's payments or refunds, without sending it again.
 */

const blank: ResponseFacts = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };
const noMandate = (code: string): ResponseFacts => ({
  errorCode: code,
  rawResponseCode: 'no_mandate',
  rawResponseDescription: 'The billing request has no mandate at GoCardless',
});

/** `POST /payments`: the capture is pending until the scheme reports (days later, by webhook). */
export async function capture(client: GoCardlessClient, request: CaptureRequest): Promise<CaptureOutcome> {
  const mandate = await mandateIdOf(client, request.credentials, request.providerTransactionId);
  if (!mandate) return { ...noMandate('capture_declined'), status: 'declined', providerCaptureId: null };
  const made = await createPayment(client, request.credentials, {
    billingRequestId: request.providerTransactionId,
    mandateId: mandate,
    amount: request.amount,
    currency: request.currency,
    key: request.idempotencyKey,
    attempt: request.idempotencyKey,
  });
  const decline = declineOf(made.status, made.json);
  if (decline)
    return {
      errorCode: decline.errorCode.endsWith('_declined') ? decline.errorCode : 'capture_declined',
      rawResponseCode: decline.rawResponseCode,
      rawResponseDescription: decline.rawResponseDescription,
      status: 'declined',
      providerCaptureId: null,
    };
  const payment = made.resource;
  if (!payment?.id) throw httpError(made.status, made.json);
  const state = paymentStateOf(payment.status);
  if (state === 'failed')
    return {
      errorCode: 'capture_declined',
      rawResponseCode: payment.status ?? null,
      rawResponseDescription: null,
      status: 'failed',
      providerCaptureId: payment.id,
    };
  return { ...blank, status: state, providerCaptureId: payment.id };
}

/** Nothing is held by a mandate: voiding the payment cancels its mandate (`POST /mandates/{id}/actions/cancel`). */
export async function voidMandate(client: GoCardlessClient, request: VoidRequest): Promise<VoidOutcome> {
  const mandate = await mandateIdOf(client, request.credentials, request.providerTransactionId);
  if (!mandate) return { ...noMandate('void_declined'), status: 'declined' };
  const response = await client.call(
    request.credentials,
    'POST',
    `/mandates/${encodeURIComponent(mandate)}/actions/cancel`,
    {},
    request.idempotencyKey,
  );
  const decline = declineOf(response.status, response.json);
  if (decline) return { ...decline, errorCode: 'void_declined', status: 'declined' };
  if (response.status !== 200) throw httpError(response.status, response.json);
  return { ...blank, status: 'succeeded' };
}

/** The payments we made for this billing request (its mandate's, marked with it). */
async function paymentsOf(client: GoCardlessClient, credentials: Record<string, string>, billingRequestId: string) {
  const mandate = await mandateIdOf(client, credentials, billingRequestId);
  if (!mandate) return { mandate: null, payments: [] as GcPayment[] };
  const payments = await listAll<GcPayment>(client, credentials, 'payments', { mandate });
  return { mandate, payments: payments.filter((p) => p.metadata?.[META_BILLING_REQUEST] === billingRequestId) };
}

const refunded = (refunds: GcRefund[]) =>
  refunds.filter((r) => refundStateOf(r.status) !== 'failed').reduce((sum, r) => sum + (r.amount ?? 0), 0);

/**
 * `POST /refunds` of a collected payment of the billing request with room for the amount;
 * `total_amount_confirmation` is what the payment's refunds add up to with this one, as GoCardless
 * requires. Refunds are asynchronous too: `processing` until GoCardless reports `paid`.
 * developer.gocardless.com/api-reference/#core-endpoints-refunds
 */
export async function refund(client: GoCardlessClient, request: RefundRequest): Promise<RefundOutcome> {
  const amount = toGoCardlessAmount(request.amount, request.currency);
  const { payments } = await paymentsOf(client, request.credentials, request.providerTransactionId);
  const refusal = (why: string): RefundOutcome => ({
    errorCode: 'refund_declined',
    rawResponseCode: 'refund_payment_invalid_state',
    rawResponseDescription: why,
    status: 'declined',
    providerRefundId: null,
  });
  for (const payment of payments) {
    if (paymentStateOf(payment.status) !== 'succeeded' || !payment.id) continue;
    const refunds = await listAll<GcRefund>(client, request.credentials, 'refunds', { payment: payment.id });
    const before = refunded(refunds);
    if ((payment.amount ?? 0) - before < amount) continue;
    const made = await createOnce<GcRefund>(
      client,
      request.credentials,
      'refunds',
      {
        amount,
        total_amount_confirmation: before + amount,
        metadata: { [META_ATTEMPT]: request.idempotencyKey },
        links: { payment: payment.id },
      },
      request.idempotencyKey,
    );
    const decline = declineOf(made.status, made.json);
    if (decline) return { ...decline, errorCode: 'refund_declined', status: 'declined', providerRefundId: null };
    if (!made.resource?.id) throw httpError(made.status, made.json);
    const state = refundStateOf(made.resource.status);
    return {
      ...(state === 'failed'
        ? { errorCode: 'refund_declined', rawResponseCode: made.resource.status ?? null, rawResponseDescription: null }
        : blank),
      status: state,
      providerRefundId: made.resource.id,
    };
  }
  return refusal('No collected (confirmed) payment of this billing request has that much left to refund');
}

const PAYMENT_SYNC = CAPTURE_SYNC;
const REFUND_SYNC = { processing: 'refund_pending', succeeded: 'refunded', failed: 'failed' } as const satisfies Record<
  'processing' | 'succeeded' | 'failed',
  SyncOutcome['status']
>;

/** A capture, void or refund by its own id, or, when its answer was lost, by the attempt id in its metadata. */
export async function syncFollowUp(client: GoCardlessClient, request: SyncRequest): Promise<SyncOutcome> {
  const billingRequestId = request.paymentProviderTransactionId ?? null;
  const ownId = request.providerTransactionId;
  const notFound: SyncOutcome = { ...blank, status: 'not_found', providerTransactionId: null };
  const answer = (status: SyncOutcome['status'], id: string | null | undefined, raw: string | null): SyncOutcome => ({
    ...(status === 'failed'
      ? { errorCode: `${request.operation}_declined`, rawResponseCode: raw, rawResponseDescription: null }
      : blank),
    status,
    providerTransactionId: id ?? ownId,
  });
  if (request.operation === 'capture') {
    let payment = ownId ? await client.resource<GcPayment>(request.credentials, 'payments', ownId) : null;
    if (!payment && billingRequestId)
      payment =
        (await paymentsOf(client, request.credentials, billingRequestId)).payments.find(
          (p) => p.metadata?.[META_ATTEMPT] === request.idempotencyKey,
        ) ?? null;
    return payment
      ? answer(PAYMENT_SYNC[paymentStateOf(payment.status)], payment.id, payment.status ?? null)
      : notFound;
  }
  if (request.operation === 'refund') {
    let found = ownId ? await client.resource<GcRefund>(request.credentials, 'refunds', ownId) : null;
    if (!found && billingRequestId) {
      const mandate = await mandateIdOf(client, request.credentials, billingRequestId);
      const refunds = mandate ? await listAll<GcRefund>(client, request.credentials, 'refunds', { mandate }) : [];
      found = refunds.find((r) => r.metadata?.[META_ATTEMPT] === request.idempotencyKey) ?? null;
    }
    return found ? answer(REFUND_SYNC[refundStateOf(found.status)], found.id, found.status ?? null) : notFound;
  }
  if (request.operation === 'void' && billingRequestId) {
    const mandateId = await mandateIdOf(client, request.credentials, billingRequestId);
    const mandate = mandateId ? await client.resource<GcMandate>(request.credentials, 'mandates', mandateId) : null;
    if (!mandate) return notFound;
    return mandate.status === 'cancelled'
      ? answer('voided', billingRequestId, mandate.status)
      : answer(
          mandateStateOf(mandate.status) === 'usable' ? 'authorized' : 'failed',
          billingRequestId,
          mandate.status ?? null,
        );
  }
  return notFound;
}
