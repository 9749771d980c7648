import type { AuthorizeOutcome, AuthorizeRequest, ResponseFacts, SyncOutcome, SyncRequest } from '../connector.ts';
import { inTable, unknownStatus } from '../status-table.ts';
import { bodyOf } from './adyen.answers.ts';
import type { AdyenClient } from './adyen.client.ts';
import { amountOf, returnUrlOf } from './adyen.requests.ts';

/**
 * Adyen's Hosted Checkout (Checkout API v71, `POST /sessions` with `mode: "hosted"`;
 * docs.adyen.com/online-payments/build-your-integration/sessions-flow, "Hosted Checkout"): Adyen
 * answers a session with the `url` of its own payment page, where the buyer gives what our API
 * does not carry (a SEPA account holder and IBAN) and pays. Adyen sends the buyer back to
 * `returnUrl` with `sessionId` and `sessionResult`; `GET /sessions/{id}?sessionResult=` tells the
 * session's outcome and its payments; Adyen's AUTHORISATION webhook reports the payment in any case.
 */

const blank: ResponseFacts = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };

/** `SessionResultResponse.status` values (Checkout API v71, `GET /sessions/{sessionId}`). */
export type AdyenSessionStatus = 'active' | 'completed' | 'paymentPending' | 'canceled' | 'expired' | 'refused';

/**
 * A session's status in our terms. `completed`: the shopper paid and the payment was authorised
 * (read with `completedAs`: captured at once for a method without separate captures);
 * `paymentPending`: paid, not final yet (the AUTHORISATION webhook tells); `active`: not paid yet.
 */
const SESSION_STATUS = {
  active: 'buyer_approval_pending',
  completed: 'completed',
  paymentPending: 'pending',
  canceled: 'declined',
  expired: 'declined',
  refused: 'declined',
} as const satisfies Record<AdyenSessionStatus, SyncOutcome['status'] | 'completed'>;

/** What the buyer's refusal, cancel or an expired session is, as a decline of the payment. */
const DECLINES: Readonly<Record<string, string>> = {
  canceled: 'The shopper canceled the payment on the Hosted Checkout page',
  expired: 'The Hosted Checkout session expired before the shopper paid',
  refused: 'The Hosted Checkout session was refused after too many refused payment attempts',
};

interface AdyenSession {
  id?: string;
  url?: string;
  status?: string;
  reference?: string;
  payments?: Array<{ pspReference?: string; resultCode?: string; amount?: { value?: number; currency?: string } }>;
}

/** `POST /sessions` of a Hosted Checkout page offering one payment method (`allowedPaymentMethods`). */
export function hostedSessionBody(
  request: AuthorizeRequest,
  paymentMethodType: string,
  extra: Record<string, unknown>,
): Record<string, unknown> {
  return {
    merchantAccount: request.credentials.merchant_account,
    reference: request.reference,
    amount: amountOf(request.amount, request.currency),
    returnUrl: returnUrlOf(request),
    mode: 'hosted',
    allowedPaymentMethods: [paymentMethodType],
    channel: 'Web',
    shopperInteraction: 'Ecommerce',
    ...(request.country ? { countryCode: request.country } : {}),
    ...(request.buyer?.emailAddress ? { shopperEmail: request.buyer.emailAddress } : {}),
    ...extra,
  };
}

/** A created session: the buyer's page (`url`) as the approval URL, the session id as the provider's id until a payment exists. */
export async function openHostedSession(
  client: AdyenClient,
  request: AuthorizeRequest,
  body: Record<string, unknown>,
): Promise<AuthorizeOutcome> {
  const response = await client.post(request.credentials, '/sessions', body, request.idempotencyKey);
  const session = bodyOf<AdyenSession>(response);
  const url =
    session.url && (session.url.startsWith('https://') || session.url.startsWith('http://')) ? session.url : null;
  return {
    ...blank,
    status: url && session.id ? 'buyer_approval_pending' : 'failed',
    ...(url && session.id
      ? {}
      : { errorCode: 'service_error', rawResponseDescription: 'Adyen answered a session without its page' }),
    providerTransactionId: session.id ?? null,
    authResponseCode: null,
    avsResponseCode: null,
    cvvResponseCode: null,
    schemeTransactionId: null,
    merchantAdviceCode: null,
    approvalUrl: url,
    additionalIdentifiers: { checkout_session_id: session.id ?? null },
  };
}

/**
 * A Hosted Checkout payment's status. With the buyer's return (`sessionId`, `sessionResult`),
 * Adyen's session result: `completed` is the payment (`completedAs`), its pspReference becoming the
 * provider's id. Without it, Adyen has no status query: a known session is still waiting for its
 * buyer (Adyen's AUTHORISATION webhook reports the payment); an unknown one (the answer to its
 * creation was lost) is asked again with its idempotency key: replayed, the session exists but its
 * page never reached the buyer, so no payment can follow (`failed`); refused (422: Adyen never saw
 * it, and that key can never create one now), `not_found`.
 */
export async function syncOfHostedSession(
  client: AdyenClient,
  request: SyncRequest,
  completedAs: 'captured' | 'authorized',
): Promise<SyncOutcome> {
  // Only the session this attempt created, or the session of the payment already recorded: a return
  // naming another session (another payment's result brought to this one) says nothing about this
  // payment, and without a recorded session or payment the buyer never had our page.
  const known = request.providerTransactionId;
  const sessionResult = request.returnParams?.sessionResult;
  const sessionId = request.returnParams?.sessionId ?? known;
  if (known && sessionId && sessionResult) {
    const path = `/sessions/${encodeURIComponent(sessionId)}?sessionResult=${encodeURIComponent(sessionResult)}`;
    const outcome = sessionOutcome(
      bodyOf<AdyenSession>(await client.get(request.credentials, path)),
      sessionId,
      completedAs,
    );
    if (sessionId === known || outcome.providerTransactionId === known) return outcome;
    return { ...blank, status: 'buyer_approval_pending', ...kept(request) };
  }
  if (request.providerTransactionId) return { ...blank, status: 'buyer_approval_pending', ...kept(request) };
  const probe = {
    merchantAccount: request.credentials.merchant_account,
    reference: request.reference,
    amount: { value: 0, currency: request.currency },
  };
  const response = await client.post(request.credentials, '/sessions', probe, request.idempotencyKey);
  if (response.status === 422) return { ...blank, status: 'not_found', providerTransactionId: null };
  const session = bodyOf<AdyenSession>(response);
  return {
    errorCode: 'service_network_error',
    rawResponseCode: 'session_unanswered',
    rawResponseDescription: 'The Hosted Checkout page was created but never reached the buyer',
    status: 'failed',
    providerTransactionId: session.id ?? null,
  };
}

const kept = (request: SyncRequest) => ({ providerTransactionId: request.providerTransactionId });

function sessionOutcome(session: AdyenSession, sessionId: string, completedAs: 'captured' | 'authorized'): SyncOutcome {
  if (!inTable(SESSION_STATUS, session.status)) throw unknownStatus('Adyen', 'session status', session.status ?? null);
  const status = SESSION_STATUS[session.status];
  if (status === 'declined')
    return {
      errorCode: 'do_not_honor',
      rawResponseCode: session.status,
      rawResponseDescription: DECLINES[session.status] ?? session.status,
      status,
      providerTransactionId: sessionId,
    };
  const payment = (session.payments ?? []).find((p) => p.resultCode === 'Authorised' && p.pspReference);
  // Completed without its payment in the answer: the AUTHORISATION webhook names it.
  if (status === 'completed')
    return payment
      ? { ...blank, status: completedAs, providerTransactionId: payment.pspReference! }
      : { ...blank, status: 'pending', providerTransactionId: sessionId };
  return { ...blank, status, providerTransactionId: sessionId };
}
