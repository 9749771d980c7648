import type { ProviderResponse } from '../provider-http.ts';
import { httpError } from './checkout.mapping.ts';

/**
 * The shapes of Checkout.com's answers we read (api-reference.checkout.com: "Request a payment or
 * payout", "Get payment details", "Get payment actions", "Get payment lists"), and the metadata key
 * that ties a payment or an action to our attempt when its answer was lost.
 */

/** Sent in `metadata` of every payment, payout, capture, void and refund: the attempt id (our idempotency key). */
export const ATTEMPT_KEY = 'svc_attempt_id';
/** Our own reference of the transaction or payout (the payment's `reference` is the attempt id). */
export const REFERENCE_KEY = 'svc_reference';

export interface CheckoutPayment {
  id?: string;
  action_id?: string;
  status?: string;
  approved?: boolean;
  amount?: number;
  currency?: string;
  reference?: string;
  response_code?: string;
  response_summary?: string;
  auth_code?: string;
  scheme_id?: string;
  metadata?: Record<string, unknown>;
  source?: { avs_check?: string; cvv_check?: string };
  processing?: { partner_merchant_advice_code?: string };
  _links?: { redirect?: { href?: string } };
}

export interface CheckoutAction {
  id?: string;
  type?: string;
  approved?: boolean;
  amount?: number;
  reference?: string;
  response_code?: string;
  response_summary?: string;
  metadata?: Record<string, unknown>;
}

/** A 2xx answer's body, or the `ConnectorError` of any other status. */
export function bodyOf<T>(response: ProviderResponse): T {
  if (response.status < 200 || response.status > 299) throw httpError(response.status, response.json);
  return (response.json ?? {}) as T;
}

/** Whether a payment or action was made by this attempt (its metadata names the attempt id). */
export const madeBy = (item: { metadata?: Record<string, unknown> }, attemptId: string) =>
  item.metadata?.[ATTEMPT_KEY] === attemptId;
