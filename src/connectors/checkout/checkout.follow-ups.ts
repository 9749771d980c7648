import type { CallBase, ResponseFacts } from '../connector.ts';
import { ATTEMPT_KEY, bodyOf } from './checkout.answers.ts';
import type { CheckoutClient } from './checkout.client.ts';
import type { CheckoutError } from './checkout.mapping.ts';

/**
 * Captures, voids and refunds (api-reference.checkout.com: "Capture a payment", "Void a payment",
 * "Refund a payment"): `POST /payments/{id}/captures|voids|refunds`, each with the attempt id as
 * `Cko-Idempotency-Key` and in `metadata`. Checkout.com accepts them (202 with the `action_id`)
 * and processes them afterwards, reporting by webhook (`payment_captured`, `payment_voided`,
 * `payment_refunded` or their `_declined` events) and in the payment's actions (`sync`). A 403 is
 * Checkout.com refusing this operation on this payment (e.g. nothing left to capture), a 422 the
 * amount (more than what remains): a decline of the operation, with its raw code.
 */

export interface FollowUpAnswer {
  status: 'pending' | 'declined';
  facts: ResponseFacts;
  actionId: string | null;
}

const blank: ResponseFacts = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };

export async function followUp(
  client: CheckoutClient,
  request: CallBase,
  paymentId: string,
  kind: 'captures' | 'voids' | 'refunds',
  body: Record<string, unknown>,
): Promise<FollowUpAnswer> {
  const response = await client.call(
    request.credentials,
    'POST',
    `/payments/${encodeURIComponent(paymentId)}/${kind}`,
    { ...body, metadata: { [ATTEMPT_KEY]: request.idempotencyKey } },
    request.idempotencyKey,
  );
  if (response.status === 403 || response.status === 404 || response.status === 422) {
    const error = (response.json ?? {}) as CheckoutError;
    const code = { captures: 'capture_declined', voids: 'void_declined', refunds: 'refund_declined' }[kind];
    return {
      status: 'declined',
      facts: {
        errorCode: code,
        rawResponseCode: error.error_codes?.[0] ?? String(response.status),
        rawResponseDescription: error.error_type ?? `Refused by Checkout.com (HTTP ${response.status})`,
      },
      actionId: null,
    };
  }
  const answer = bodyOf<{ action_id?: string }>(response);
  return { status: 'pending', facts: blank, actionId: answer.action_id ?? null };
}
