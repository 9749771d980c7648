import {
  ConnectorError,
  type AuthorizeOutcome,
  type AuthorizeRequest,
  type ResponseFacts,
  type SyncOutcome,
  type SyncRequest,
} from '../connector.ts';
import { toGoCardlessAmount } from './gocardless.amounts.ts';
import { bodyOf, type GoCardlessClient } from './gocardless.client.ts';
import {
  billingRequestStateOf,
  CAPTURE_SYNC,
  declineOf,
  httpError,
  mandateStateOf,
  paymentStateOf,
} from './gocardless.mapping.ts';
import {
  createOnce,
  EXIT_MARKER,
  META_ATTEMPT,
  META_BILLING_REQUEST,
  returnUrlOf,
  type GcBillingRequest,
  type GcBillingRequestFlow,
  type GcMandate,
  type GcPayment,
} from './gocardless.resources.ts';

/**
 * A GoCardless payment: a billing request for a mandate the payer approves on GoCardless's page
 * (a billing request flow, `buyer_approval_pending`), its mandate (our authorization: the payer's
 * permission to debit), then a payment against it (our capture; with intent capture, created as
 * soon as the mandate exists). The billing request id is the transaction's id at GoCardless from
 * start to end; payments carry it in their metadata.
 */

const blank: ResponseFacts = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };

/** `GoCardlessOptions.purpose_code` (the public API's PurposeCode enum, GoCardless's own values). */
const PURPOSE_CODES = new Set([
  'mortgage',
  'utility',
  'loan',
  'dependant_support',
  'gambling',
  'retail',
  'salary',
  'personal',
  'government',
  'pension',
  'tax',
  'other',
]);

function purposeCodeOf(options: Record<string, unknown> | null): string | null {
  const code = options?.purpose_code;
  if (code === undefined || code === null) return null;
  if (typeof code !== 'string' || !PURPOSE_CODES.has(code))
    throw new ConnectorError(
      'invalid_request',
      'connection_options.gocardless-gocardless.purpose_code is not a purpose code',
    );
  return code;
}

/** `POST /billing_requests`: a mandate request in the transaction's currency, marked with the attempt. */
export function billingRequestBody(
  request: Pick<AuthorizeRequest, 'idempotencyKey' | 'reference' | 'amount' | 'currency' | 'options'>,
) {
  const amount = toGoCardlessAmount(request.amount, request.currency);
  const purpose = purposeCodeOf(request.options);
  return {
    mandate_request: { currency: request.currency },
    // developer.gocardless.com/api-reference/#billing-requests-create-a-billing-request (`purpose_code`).
    ...(purpose ? { purpose_code: purpose } : {}),
    metadata: {
      [META_ATTEMPT]: request.idempotencyKey,
      svc_reference: request.reference.slice(0, 500),
      // What the first collection will be (informative; GoCardless shows the payer the mandate only).
      svc_amount: `${amount} ${request.currency}`,
    },
  };
}

/** The billing request, then its flow: the payer's page at GoCardless, back to our return route. */
export async function createBillingRequest(
  client: GoCardlessClient,
  request: AuthorizeRequest,
): Promise<AuthorizeOutcome> {
  if (request.instrument.kind !== 'redirect' || request.instrument.method !== 'gocardless')
    throw new ConnectorError('invalid_request', 'The GoCardless connector takes the gocardless method only');
  const made = await createOnce<GcBillingRequest>(
    client,
    request.credentials,
    'billing_requests',
    billingRequestBody(request),
    request.idempotencyKey,
  );
  const id = made.resource?.id;
  if (!id) throw httpError(made.status, made.json);
  const returnUrl = returnUrlOf(request);
  // developer.gocardless.com/api-reference/#billing-requests-billing-request-flows
  const flow = bodyOf<{ billing_request_flows?: GcBillingRequestFlow }>(
    await client.call(
      request.credentials,
      'POST',
      '/billing_request_flows',
      {
        billing_request_flows: {
          redirect_uri: returnUrl,
          exit_uri: `${returnUrl}?${EXIT_MARKER}=1`,
          links: { billing_request: id },
        },
      },
      `${request.idempotencyKey}-flow`,
    ),
  ).billing_request_flows;
  const url = flow?.authorisation_url;
  if (!url || !(url.startsWith('https://') || url.startsWith('http://')))
    throw new ConnectorError('timeout', 'GoCardless answered the billing request flow without its authorisation_url');
  return {
    ...blank,
    status: 'buyer_approval_pending',
    providerTransactionId: id,
    authResponseCode: null,
    avsResponseCode: null,
    cvvResponseCode: null,
    schemeTransactionId: null,
    merchantAdviceCode: null,
    approvalUrl: url,
    additionalIdentifiers: { billing_request_id: id },
  };
}

/**
 * `POST /payments` against the mandate: one collection, with the billing request and the attempt
 * in its metadata. `key`: the Idempotency-Key (a repeat answers the first payment).
 * developer.gocardless.com/api-reference/#payments-create-a-payment
 */
export async function createPayment(
  client: GoCardlessClient,
  credentials: Record<string, string>,
  input: {
    billingRequestId: string;
    mandateId: string;
    amount: number;
    currency: string;
    key: string;
    attempt: string;
  },
) {
  return createOnce<GcPayment>(
    client,
    credentials,
    'payments',
    {
      amount: toGoCardlessAmount(input.amount, input.currency),
      currency: input.currency,
      metadata: { [META_BILLING_REQUEST]: input.billingRequestId, [META_ATTEMPT]: input.attempt },
      links: { mandate: input.mandateId },
    },
    input.key,
  );
}

/** A usable mandate: authorized, or, for intent capture, collected from now (payment pending for days). */
async function afterMandate(
  client: GoCardlessClient,
  request: SyncRequest,
  billingRequestId: string,
  mandateId: string,
): Promise<SyncOutcome> {
  const mandate = await client.resource<GcMandate>(request.credentials, 'mandates', mandateId);
  if (!mandate || mandateStateOf(mandate.status) === 'unusable')
    return {
      errorCode: 'do_not_honor',
      rawResponseCode: mandate?.status ?? 'not_found',
      rawResponseDescription: 'GoCardless cannot collect with the mandate',
      status: 'declined',
      providerTransactionId: billingRequestId,
    };
  if (request.intent === 'authorize')
    return { ...blank, status: 'authorized', providerTransactionId: billingRequestId };
  const made = await createPayment(client, request.credentials, {
    billingRequestId,
    mandateId,
    amount: request.amount,
    currency: request.currency,
    key: `${request.idempotencyKey}-payment`,
    attempt: request.idempotencyKey,
  });
  const decline = declineOf(made.status, made.json);
  if (decline) return { ...decline, status: 'declined', providerTransactionId: billingRequestId };
  if (!made.resource) throw httpError(made.status, made.json);
  const state = paymentStateOf(made.resource.status);
  // A failed collection leaves the mandate: the payment is authorized again and may be captured anew.
  if (state === 'failed')
    return {
      errorCode: 'capture_declined',
      rawResponseCode: made.resource.status ?? null,
      rawResponseDescription: 'GoCardless could not collect the payment',
      status: 'authorized',
      providerTransactionId: billingRequestId,
    };
  return { ...blank, status: CAPTURE_SYNC[state], providerTransactionId: billingRequestId };
}

/** The billing request's state by its id: waiting for its payer, left by the payer, cancelled, or its mandate. */
async function syncOfBillingRequest(client: GoCardlessClient, request: SyncRequest, id: string): Promise<SyncOutcome> {
  const billing = await client.resource<GcBillingRequest>(request.credentials, 'billing_requests', id);
  if (!billing) return { ...blank, status: 'not_found', providerTransactionId: null };
  const declined = (code: string, why: string): SyncOutcome => ({
    errorCode: 'buyer_declined',
    rawResponseCode: code,
    rawResponseDescription: why,
    status: 'declined',
    providerTransactionId: id,
  });
  switch (billingRequestStateOf(billing.status)) {
    case 'waiting':
      // Only our own exit_uri carries the marker; GoCardless's state decides everything else.
      return request.returnParams?.[EXIT_MARKER]
        ? declined('payer_exited', 'The payer left the GoCardless page without setting up the mandate')
        : { ...blank, status: 'buyer_approval_pending', providerTransactionId: id };
    case 'cancelled':
      return declined('cancelled', 'The billing request was cancelled');
    case 'fulfilled': {
      const mandate = billing.links?.mandate_request_mandate;
      if (!mandate)
        throw new ConnectorError('timeout', 'GoCardless answered a fulfilled billing request without its mandate');
      return afterMandate(client, request, id, mandate);
    }
  }
}

/**
 * The billing request made with this attempt id, found by sending the create again with the same
 * Idempotency-Key (GoCardless answers 409 with its id). Its payer never got the page (the answer
 * carrying the flow was lost), so a request still waiting is cancelled at GoCardless and the
 * payment failed. When the first request never arrived, this makes that request, and cancels it.
 */
async function billingRequestOfLostAnswer(client: GoCardlessClient, request: SyncRequest): Promise<SyncOutcome> {
  const made = await createOnce<GcBillingRequest>(
    client,
    request.credentials,
    'billing_requests',
    billingRequestBody({ ...request, options: null }),
    request.idempotencyKey,
  );
  const id = made.resource?.id;
  if (!id) throw httpError(made.status, made.json);
  if (billingRequestStateOf(made.resource?.status) !== 'waiting') return syncOfBillingRequest(client, request, id);
  const cancel = await client.call(
    request.credentials,
    'POST',
    `/billing_requests/${encodeURIComponent(id)}/actions/cancel`,
    {},
  );
  if (cancel.status !== 200 && cancel.status !== 422) throw httpError(cancel.status, cancel.json);
  return {
    errorCode: 'service_network_error',
    rawResponseCode: 'cancelled',
    rawResponseDescription: "GoCardless's answer with the payer's page was lost: the billing request is cancelled",
    status: 'failed',
    providerTransactionId: id,
  };
}

/** Sync of an authorization: by the billing request id, or, when the create got no answer, by its Idempotency-Key. */
export function syncAuthorization(client: GoCardlessClient, request: SyncRequest): Promise<SyncOutcome> {
  return request.providerTransactionId
    ? syncOfBillingRequest(client, request, request.providerTransactionId)
    : billingRequestOfLostAnswer(client, request);
}
