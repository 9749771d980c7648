import {
  ConnectorError,
  type PayoutOutcome,
  type PayoutRequest,
  type PayoutSyncOutcome,
  type PayoutSyncRequest,
  type ResponseFacts,
} from '../connector.ts';
import { toPaypalMoney } from './paypal.amounts.ts';
import { bodyOf, type PaypalClient } from './paypal.client.ts';
import type { PaypalLink } from './paypal.orders.ts';
import { batchStatusOf, itemStatusOf, payoutErrorCodeOf } from './paypal.payouts-mapping.ts';

/**
 * Payouts to PayPal accounts (Payouts API v1, developer.paypal.com/docs/api/payments.payouts-batch/v1):
 * one batch of one item per payout, `POST /v1/payments/payouts` to the recipient's PayPal payer id
 * (`recipient_type: PAYPAL_ID`), the attempt id as `sender_batch_id` (PayPal pays a batch id once
 * in 30 days), as `sender_item_id` and as PayPal-Request-Id. PayPal accepts a batch with
 * `PENDING` and pays its item afterwards: the payout stays `pending` until PayPal's
 * PAYMENT.PAYOUTS-ITEM.* webhook or `syncPayout` (`GET /v1/payments/payouts/{batch id}`) reads
 * the item's final status. Payouts to cards are not offered through PayPal.
 */

const blank: ResponseFacts = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };
const PATH = '/v1/payments/payouts';

interface PaypalPayoutItem {
  payout_item_id?: string;
  transaction_status?: string;
  payout_batch_id?: string;
  errors?: { name?: string; message?: string };
}
export interface PaypalPayoutBatch {
  batch_header?: { payout_batch_id?: string; batch_status?: string };
  items?: PaypalPayoutItem[];
  links?: PaypalLink[];
}

function accountOf(request: { instrument?: PayoutRequest['instrument'] }): string {
  const instrument = request.instrument;
  if (instrument?.kind !== 'provider-account' || instrument.method !== 'paypal')
    throw new ConnectorError(
      'invalid_request',
      'PayPal payouts send to PayPal accounts only (a stored payment method of method paypal)',
    );
  return instrument.accountId;
}

/** The create body: one item to the payer id, our ids as PayPal's sender ids. */
export function payoutBody(
  request: Pick<PayoutRequest, 'idempotencyKey' | 'amount' | 'currency' | 'reference' | 'merchant'>,
  receiver: string,
) {
  const money = toPaypalMoney(request.amount, request.currency);
  const note = (request.merchant?.statementDescriptor || request.merchant?.name || request.reference).slice(0, 1000);
  return {
    sender_batch_header: { sender_batch_id: request.idempotencyKey, recipient_type: 'PAYPAL_ID' },
    items: [
      {
        recipient_type: 'PAYPAL_ID',
        receiver,
        amount: { value: money.value, currency: money.currency_code },
        sender_item_id: request.idempotencyKey,
        note,
      },
    ],
  };
}

/** A batch as PayPal answers or reads it: its item's status when it has one, else the batch's. */
function outcomeOf(batch: PaypalPayoutBatch): PayoutOutcome {
  const id = batch.batch_header?.payout_batch_id ?? null;
  const item = batch.items?.[0];
  const status = item ? itemStatusOf(item.transaction_status) : batchStatusOf(batch.batch_header?.batch_status);
  if (status !== 'declined' && status !== 'failed') return { ...blank, status, providerPayoutId: id };
  const errorName = item?.errors?.name ?? null;
  return {
    errorCode: payoutErrorCodeOf(status, errorName),
    rawResponseCode: errorName ?? item?.transaction_status ?? batch.batch_header?.batch_status ?? null,
    rawResponseDescription: item?.errors?.message ?? null,
    status,
    providerPayoutId: id,
  };
}

/** The batch a duplicate sender_batch_id points to (PayPal's refusal links the original), or null. */
function originalOf(json: unknown): string | null {
  const links = ((json ?? {}) as { links?: PaypalLink[] }).links ?? [];
  for (const link of links) {
    const parts = (link.href ?? '').split('?')[0]!.split('/').filter(Boolean);
    const at = parts.lastIndexOf('payouts');
    if (at >= 0 && parts[at - 1] === 'payments' && parts[at + 1]) return decodeURIComponent(parts[at + 1]!);
  }
  return null;
}

async function batchById(client: PaypalClient, credentials: Record<string, string>, id: string) {
  const response = await client.call(credentials, 'GET', `${PATH}/${encodeURIComponent(id)}`, undefined);
  if (response.status === 404) return null;
  return bodyOf<PaypalPayoutBatch>(response);
}

/** `POST /v1/payments/payouts`; a duplicate sender_batch_id (the same payout sent before) reads the original. */
async function send(
  client: PaypalClient,
  credentials: Record<string, string>,
  body: ReturnType<typeof payoutBody>,
  idempotencyKey: string,
): Promise<PayoutOutcome> {
  const response = await client.call(credentials, 'POST', PATH, body, idempotencyKey);
  if (response.status === 400) {
    const original = originalOf(response.json);
    const batch = original ? await batchById(client, credentials, original) : null;
    if (batch) return outcomeOf(batch);
  }
  return outcomeOf(bodyOf<PaypalPayoutBatch>(response));
}

export function payoutToAccount(client: PaypalClient, request: PayoutRequest): Promise<PayoutOutcome> {
  return send(client, request.credentials, payoutBody(request, accountOf(request)), request.idempotencyKey);
}

/**
 * The payout's state: by its batch id; after a lost answer, the same request again under the same
 * sender_batch_id and PayPal-Request-Id (PayPal answers the batch it made for it, or makes the
 * payout now if the first request never arrived: once either way). Without the account (the
 * stored method was deleted) nothing can be asked: it stays pending until PayPal's webhook.
 */
export async function syncPayoutOf(client: PaypalClient, request: PayoutSyncRequest): Promise<PayoutSyncOutcome> {
  if (request.providerPayoutId) {
    const batch = await batchById(client, request.credentials, request.providerPayoutId);
    return batch ? outcomeOf(batch) : { ...blank, status: 'not_found', providerPayoutId: null };
  }
  if (!request.account)
    return {
      ...blank,
      rawResponseDescription: 'The payout has no PayPal batch id and its PayPal account is no longer stored',
      status: 'pending',
      providerPayoutId: null,
    };
  const instrument = { kind: 'provider-account' as const, ...request.account };
  const body = payoutBody({ ...request, merchant: null }, accountOf({ instrument }));
  return send(client, request.credentials, body, request.idempotencyKey);
}
