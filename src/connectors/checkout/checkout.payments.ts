import {
  ConnectorError,
  type AuthorizeOutcome,
  type AuthorizeRequest,
  type ResponseFacts,
  type SyncOutcome,
  type SyncRequest,
} from '../connector.ts';
import { toCheckoutAmount } from './checkout.amounts.ts';
import {
  ATTEMPT_KEY,
  REFERENCE_KEY,
  bodyOf,
  madeBy,
  type CheckoutAction,
  type CheckoutPayment,
} from './checkout.answers.ts';
import type { CheckoutClient } from './checkout.client.ts';
import { APPROVED_CODES, avsOf, cardErrorOf, cvvOf, declineCodeOf, paymentStatusOf } from './checkout.mapping.ts';

/**
 * Card payments on Checkout.com's Unified Payments API (api-reference.checkout.com, "Request a
 * payment or payout"): `POST /payments` with the card as `source`, `capture: false` to authorize
 * only, `3ds.enabled` to have Checkout.com authenticate the card (202 Pending with its page in
 * `_links.redirect`; the buyer comes back to our `/connector-returns/...` address, given as
 * `success_url` and `failure_url`, and `sync` reads the payment), and the attempt id as both the
 * `Cko-Idempotency-Key` and `metadata.svc_attempt_id`, and as the payment's `reference` (our transaction's reference is its
 * `description` and `metadata.svc_reference`), by which a lost answer is found again in
 * `GET /payments?reference=`.
 */

const blank: ResponseFacts = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };

/** `MM/YY` → Checkout.com's month and four-digit year. */
export function expiryOf(expirationDate: string): { expiry_month: number; expiry_year: number } {
  const [month = '', year = '', ...rest] = expirationDate.split('/');
  const digits = (text: string) => text.length === 2 && [...text].every((c) => c >= '0' && c <= '9');
  if (rest.length > 0 || !digits(month) || !digits(year))
    throw new ConnectorError('invalid_request', 'The card expiration date is not MM/YY');
  return { expiry_month: Number(month), expiry_year: 2000 + Number(year) };
}

/** Our return address for the buyer after Checkout.com's page: the engine reads the payment there (`sync`). */
export const returnUrlOf = (request: AuthorizeRequest) =>
  `${request.approvalBaseUrl}/connector-returns/${encodeURIComponent(request.merchantAccountId ?? '')}/${request.idempotencyKey}`;

/** The `3ds` object: the merchant's own authentication data, else Checkout.com's when the service asks for it. */
function threeDsOf(request: AuthorizeRequest): Record<string, unknown> | null {
  const data = request.threeDSecure;
  if (data)
    return {
      enabled: true,
      version: data.version,
      ...(data.eci ? { eci: data.eci } : {}),
      ...(data.cavv ? { cryptogram: data.cavv } : {}),
      ...(data.directoryResponse ? { status: data.directoryResponse } : {}),
    };
  // Step-up asks for 3DS even where the service's own setting does not.
  const wanted = request.credentials.three_ds_enabled === 'true' || request.requestThreeDs === true;
  if (!wanted || request.merchantInitiated) return null;
  return { enabled: true };
}

export function paymentBody(request: AuthorizeRequest): Record<string, unknown> {
  const { instrument } = request;
  if (instrument.kind !== 'card')
    throw new ConnectorError('invalid_request', `checkout-card takes cards only, not a ${instrument.kind} instrument`);
  const threeDs = threeDsOf(request);
  const paymentType = !request.merchantInitiated
    ? 'Regular'
    : request.isSubsequentPayment
      ? 'Recurring'
      : 'Unscheduled';
  return {
    source: {
      type: 'card',
      number: instrument.number,
      ...expiryOf(instrument.expirationDate),
      ...(instrument.securityCode ? { cvv: instrument.securityCode } : {}),
    },
    amount: toCheckoutAmount(request.amount, request.currency),
    currency: request.currency,
    // The attempt id: unique per attempt, so a lost answer is found by it alone (`GET /payments?reference=`).
    reference: request.idempotencyKey,
    description: request.reference,
    capture: request.intent === 'capture',
    ...(request.credentials.processing_channel_id?.trim()
      ? { processing_channel_id: request.credentials.processing_channel_id.trim() }
      : {}),
    payment_type: paymentType,
    merchant_initiated: request.merchantInitiated,
    ...(request.merchantInitiated && request.previousSchemeTransactionId
      ? { previous_payment_id: request.previousSchemeTransactionId }
      : {}),
    ...(threeDs ? { '3ds': threeDs } : {}),
    // Checkout.com sends the buyer back here after its 3DS page, with `cko-session-id` appended.
    ...(threeDs ? { success_url: returnUrlOf(request), failure_url: returnUrlOf(request) } : {}),
    metadata: { [ATTEMPT_KEY]: request.idempotencyKey, [REFERENCE_KEY]: request.reference },
  };
}

function declined(code: string | undefined, summary: string | undefined): ResponseFacts {
  return {
    errorCode: declineCodeOf(code),
    rawResponseCode: code ?? 'Declined',
    rawResponseDescription: summary ?? 'Declined',
  };
}

/** A 201 or 202 answer of `POST /payments` (or a payment read back) as an authorization outcome. */
export function authorizationOf(
  payment: CheckoutPayment,
  intent: 'authorize' | 'capture',
): Omit<AuthorizeOutcome, 'status'> & { status: SyncOutcome['status'] } {
  let status = paymentStatusOf(payment.status);
  const redirect = payment._links?.redirect?.href ?? null;
  if (status === 'pending' && redirect) status = 'buyer_approval_pending';
  // An approval with a code that is no approval is read as the code says.
  if (payment.approved === false && (status === 'authorized' || status === 'captured')) status = 'declined';
  if (status === 'authorized' && intent === 'capture') status = 'capture_pending';
  const approved = status === 'authorized' || status === 'captured' || status === 'capture_pending';
  if (approved && payment.response_code && !APPROVED_CODES.has(payment.response_code)) status = 'declined';
  const facts = status === 'declined' ? declined(payment.response_code, payment.response_summary) : blank;
  return {
    ...facts,
    status,
    providerTransactionId: payment.id ?? null,
    authResponseCode: approved ? (payment.auth_code ?? null) : null,
    avsResponseCode: avsOf(payment.source?.avs_check),
    cvvResponseCode: cvvOf(payment.source?.cvv_check),
    schemeTransactionId: approved ? (payment.scheme_id ?? null) : null,
    merchantAdviceCode: payment.processing?.partner_merchant_advice_code ?? null,
    approvalUrl: status === 'buyer_approval_pending' ? redirect : null,
    additionalIdentifiers: { action_id: payment.action_id ?? null },
  };
}

/** `POST /payments`. A 422 naming the card (an invalid number, an expired card) is a decline; a payment not decided yet is unknown. */
export async function authorizeCard(client: CheckoutClient, request: AuthorizeRequest): Promise<AuthorizeOutcome> {
  const response = await client.call(
    request.credentials,
    'POST',
    '/payments',
    paymentBody(request),
    request.idempotencyKey,
  );
  const cardError = cardErrorOf(response.status, response.json);
  if (cardError)
    return {
      errorCode: cardError.errorCode,
      rawResponseCode: cardError.rawCode,
      rawResponseDescription: 'Refused by Checkout.com (422)',
      status: 'declined',
      providerTransactionId: null,
      authResponseCode: null,
      avsResponseCode: null,
      cvvResponseCode: cardError.errorCode === 'incorrect_cvv' ? 'no_match' : null,
      schemeTransactionId: null,
      merchantAdviceCode: null,
      approvalUrl: null,
      additionalIdentifiers: {},
    };
  const outcome = authorizationOf(bodyOf<CheckoutPayment>(response), request.intent);
  if (outcome.status === 'pending')
    throw new ConnectorError(
      'timeout',
      'Checkout.com has not decided the payment yet (202 Pending without a 3DS page)',
    );
  if (outcome.status === 'voided' || outcome.status === 'not_found' || outcome.status.startsWith('refund'))
    throw new ConnectorError('timeout', `Checkout.com answered a new payment with status ${outcome.status}`);
  return { ...outcome, status: outcome.status as AuthorizeOutcome['status'] };
}

/** The payment this attempt made, found by its reference (the attempt id) and its metadata (`GET /payments?reference=`), or null. */
export async function findByAttempt(
  client: CheckoutClient,
  credentials: Record<string, string>,
  attemptId: string,
): Promise<CheckoutPayment | null> {
  const response = await client.call(
    credentials,
    'GET',
    `/payments?reference=${encodeURIComponent(attemptId)}&limit=100`,
    undefined,
  );
  if (response.status === 404) return null;
  const list = bodyOf<{ data?: CheckoutPayment[] }>(response);
  return (list.data ?? []).find((payment) => madeBy(payment, attemptId)) ?? null;
}

/** `GET /payments/{id}`; null when Checkout.com has no such payment. */
export async function paymentById(
  client: CheckoutClient,
  credentials: Record<string, string>,
  id: string,
): Promise<CheckoutPayment | null> {
  const response = await client.call(credentials, 'GET', `/payments/${encodeURIComponent(id)}`, undefined);
  if (response.status === 404) return null;
  return bodyOf<CheckoutPayment>(response);
}

/** `GET /payments/{id}/actions`: the payment's authorization, captures, voids and refunds. */
export async function actionsOf(
  client: CheckoutClient,
  credentials: Record<string, string>,
  paymentId: string,
): Promise<CheckoutAction[]> {
  const response = await client.call(
    credentials,
    'GET',
    `/payments/${encodeURIComponent(paymentId)}/actions`,
    undefined,
  );
  if (response.status === 404) return [];
  const answer = bodyOf<CheckoutAction[] | { data?: CheckoutAction[] }>(response);
  return Array.isArray(answer) ? answer : (answer.data ?? []);
}

/** A declined payment's code: on its Authorization action (the payment itself does not carry it). */
async function withDeclineCode(
  client: CheckoutClient,
  credentials: Record<string, string>,
  payment: CheckoutPayment,
): Promise<CheckoutPayment> {
  if (payment.status !== 'Declined' || payment.response_code || !payment.id) return payment;
  const actions = await actionsOf(client, credentials, payment.id);
  const authorization = actions.find((a) => a.type === 'Authorization' || a.type === 'Payout');
  return { ...payment, response_code: authorization?.response_code, response_summary: authorization?.response_summary };
}

/** The status of an authorization: by its id, or (its answer lost) by the attempt's metadata; with the buyer's 3DS return, the same read. */
export async function syncAuthorization(client: CheckoutClient, request: SyncRequest): Promise<SyncOutcome> {
  const id = request.providerTransactionId ?? request.returnParams?.['cko-session-id'] ?? null;
  const found = id
    ? await paymentById(client, request.credentials, id)
    : await findByAttempt(client, request.credentials, request.idempotencyKey);
  if (!found) return { ...blank, status: 'not_found', providerTransactionId: null };
  const outcome = authorizationOf(await withDeclineCode(client, request.credentials, found), request.intent);
  return {
    errorCode: outcome.errorCode,
    rawResponseCode: outcome.rawResponseCode,
    rawResponseDescription: outcome.rawResponseDescription,
    status: outcome.status,
    providerTransactionId: outcome.providerTransactionId ?? request.providerTransactionId,
    schemeTransactionId: outcome.schemeTransactionId,
  };
}

const DONE = { capture: 'captured', void: 'voided', refund: 'refunded' } as const;

/**
 * A capture, void or refund: Checkout.com accepts it (202) and decides later; its action appears in
 * `GET /payments/{id}/actions` once processed, found by the attempt's metadata (or its `act_` id).
 * Not there: still `pending` when Checkout.com accepted it (we have its action id), else it never
 * arrived (`not_found`).
 */
export async function syncModification(
  client: CheckoutClient,
  request: SyncRequest & { operation: 'capture' | 'void' | 'refund' },
): Promise<SyncOutcome> {
  const payment = request.paymentProviderTransactionId ?? request.providerTransactionId;
  if (!payment) return { ...blank, status: 'not_found', providerTransactionId: null };
  const actions = await actionsOf(client, request.credentials, payment);
  const own = request.providerTransactionId !== payment ? request.providerTransactionId : null;
  const action = actions.find((a) => madeBy(a, request.idempotencyKey) || (own !== null && a.id === own));
  if (!action)
    return { ...blank, status: own ? 'pending' : 'not_found', providerTransactionId: request.providerTransactionId };
  if (action.approved === false)
    return {
      errorCode: `${request.operation}_declined`,
      rawResponseCode: action.response_code ?? 'Declined',
      rawResponseDescription: action.response_summary ?? 'Declined',
      status: 'declined',
      providerTransactionId: action.id ?? request.providerTransactionId,
    };
  return {
    ...blank,
    status: DONE[request.operation],
    providerTransactionId: action.id ?? request.providerTransactionId,
  };
}
