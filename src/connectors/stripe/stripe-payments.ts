import { type AuthorizeOutcome, type AuthorizeRequest, ConnectorError } from '../connector.ts';
import { toStripeAmount } from './stripe.amounts.ts';
import { connectorErrorOf, Stripe } from './stripe.client.ts';
import { connectIntentParams, stripeConnectOf } from './stripe.connect.ts';
import { authorizeStatusOf, avsOf, cvvOf, errorCodeOf } from './stripe.mapping.ts';

/** The authorization's pieces: the PaymentMethod (and Customer of a stored token), the PaymentIntent, its outcome. */

/** `cus_...:pm_...`: the payment service token of a card stored at Stripe (a Customer and its PaymentMethod). */
export const tokenOf = (customer: string, paymentMethod: string) => `${customer}:${paymentMethod}`;

export function parseToken(token: string): { customer: string; paymentMethod: string } {
  const [customer, paymentMethod] = token.split(':');
  if (!customer?.startsWith('cus_') || !paymentMethod?.startsWith('pm_'))
    throw new Error('not a Stripe payment service token');
  return { customer, paymentMethod };
}

/** `MM/YY` → Stripe's month and four-digit year. */
export function expiryOf(expirationDate: string): { exp_month: number; exp_year: number } {
  const [month, year] = expirationDate.split('/');
  return { exp_month: Number(month), exp_year: 2000 + Number(year) };
}

/**
 * A PaymentMethod for a card the vault released for this call. Created on its own (not as
 * `payment_method_data` of the PaymentIntent) so the card number never sits in a PaymentIntent
 * request Stripe may echo in an idempotent replay. Raw card numbers need Stripe's "raw card data
 * API" access on the account (docs/connectors.md).
 */
export async function createCardPaymentMethod(
  stripe: Stripe,
  card: { number: string; expirationDate: string; securityCode: string | null },
  idempotencyKey: string,
  stripeAccount: string | null = null,
): Promise<string> {
  const created = await stripe.paymentMethods.create(
    {
      type: 'card',
      card: {
        number: card.number,
        ...expiryOf(card.expirationDate),
        ...(card.securityCode ? { cvc: card.securityCode } : {}),
      },
    },
    { idempotencyKey: `${idempotencyKey}-pm`, ...(stripeAccount ? { stripeAccount } : {}) },
  );
  return created.id;
}

/** What to pay with: a PaymentMethod id and, for a stored token, its Customer. */
async function paymentMethodOf(
  stripe: Stripe,
  request: AuthorizeRequest,
  stripeAccount: string | null,
): Promise<{ paymentMethod: string; customer: string | null }> {
  const { instrument } = request;
  if (instrument.kind === 'card')
    return {
      paymentMethod: await createCardPaymentMethod(stripe, instrument, request.idempotencyKey, stripeAccount),
      customer: null,
    };
  if (instrument.kind === 'payment-service-token') {
    // A stored card is the platform's Customer: a connected account's own charge cannot use it.
    if (stripeAccount)
      throw new ConnectorError(
        'invalid_request',
        'connection_options.stripe-card.stripe_connect: stripe_account cannot pay with a card stored on the platform',
      );
    const token = parseToken(instrument.token);
    return { paymentMethod: token.paymentMethod, customer: token.customer };
  }
  throw new Error(`stripe-card cannot authorize a ${instrument.kind} instrument`);
}

/**
 * `payment_method_options.card` of a PaymentIntent: multicapture, and for a merchant-initiated
 * payment with a card released by our vault the network transaction id of the customer-initiated
 * payment it follows (`mit_exemption.network_transaction_id`, a parameter Stripe enables per
 * account: `network_transaction_ids_enabled`; the SDK's types do not list it). A card stored at
 * Stripe (a payment service token) needs none: Stripe links its own.
 */
function cardOptions(request: AuthorizeRequest, multiCapture: boolean): Record<string, unknown> | null {
  const card: Record<string, unknown> = {};
  if (multiCapture && request.intent === 'authorize') card.request_multicapture = 'if_available';
  const sendsNetworkId =
    request.merchantInitiated &&
    request.previousSchemeTransactionId &&
    request.instrument.kind === 'card' &&
    request.credentials.network_transaction_ids_enabled === 'true';
  if (sendsNetworkId) card.mit_exemption = { network_transaction_id: request.previousSchemeTransactionId };
  // Step-up: 3DS whenever the card supports it, not only when Stripe's SCA engine would ask (needs `return_url`).
  if (request.requestThreeDs && request.redirectUrl && !request.merchantInitiated) card.request_three_d_secure = 'any';
  return Object.keys(card).length > 0 ? card : null;
}

/** The PaymentIntent of one authorization: manual capture unless the intent is to capture at once. */
export async function createPaymentIntent(
  stripe: Stripe,
  request: AuthorizeRequest,
  multiCapture: boolean,
): Promise<Stripe.PaymentIntent> {
  const amount = toStripeAmount(request.amount, request.currency);
  const connect = stripeConnectOf(request.options);
  const connectParams = connectIntentParams(connect, request.amount, request.currency);
  const stripeAccount = connect?.stripeAccount ?? null;
  const method = await paymentMethodOf(stripe, request, stripeAccount);
  const card = cardOptions(request, multiCapture);
  const params: Stripe.PaymentIntentCreateParams = {
    amount,
    currency: request.currency.toLowerCase(),
    capture_method: request.intent === 'capture' ? 'automatic' : 'manual',
    confirm: true,
    payment_method: method.paymentMethod,
    allowed_payment_method_types: ['card'],
    ...(method.customer ? { customer: method.customer } : {}),
    ...(request.merchantInitiated ? { off_session: true } : {}),
    // Without a return address a 3DS step cannot happen: Stripe declines instead of asking for it.
    ...(request.redirectUrl && !request.merchantInitiated
      ? { return_url: request.redirectUrl }
      : { error_on_requires_action: true }),
    ...(card
      ? { payment_method_options: { card: card as Stripe.PaymentIntentCreateParams.PaymentMethodOptions.Card } }
      : {}),
    ...connectParams,
    metadata: { attempt_id: request.idempotencyKey, reference: request.reference },
    expand: ['latest_charge'],
  };
  return stripe.paymentIntents.create(params, {
    idempotencyKey: request.idempotencyKey,
    ...(stripeAccount ? { stripeAccount } : {}),
  });
}

const blankFacts = {
  authResponseCode: null,
  avsResponseCode: null,
  cvvResponseCode: null,
  schemeTransactionId: null,
  merchantAdviceCode: null,
  approvalUrl: null,
};

/** The network's transaction id of a PaymentIntent's charge (`latest_charge` expanded), if the card payment was approved. */
export function networkTransactionIdOf(intent: Stripe.PaymentIntent): string | null {
  const charge = typeof intent.latest_charge === 'object' ? intent.latest_charge : null;
  return charge?.payment_method_details?.card?.network_transaction_id ?? null;
}

/** A PaymentIntent's answer as our outcome (its status, the charge's checks and ids). */
export function outcomeOfIntent(intent: Stripe.PaymentIntent): AuthorizeOutcome {
  const status = authorizeStatusOf(intent) ?? 'capture_pending';
  const charge = typeof intent.latest_charge === 'object' ? intent.latest_charge : null;
  const card = charge?.payment_method_details?.card ?? null;
  const error = intent.last_payment_error;
  const redirect = intent.next_action?.redirect_to_url?.url ?? null;
  if (status === 'buyer_approval_pending' && !redirect)
    return declinedOutcome(
      intent.id,
      'authentication_required',
      null,
      'The card needs authentication Stripe could not redirect the buyer for',
    );
  const refused = status === 'declined' || status === 'failed';
  return {
    status,
    errorCode: refused ? errorCodeOf(error?.decline_code, error?.code) : null,
    rawResponseCode: refused
      ? (error?.decline_code ?? error?.code ?? intent.status)
      : (charge?.outcome?.network_status ?? null),
    rawResponseDescription: refused ? (error?.message ?? null) : (charge?.outcome?.seller_message ?? null),
    providerTransactionId: intent.id,
    authResponseCode: card?.authorization_code ?? null,
    avsResponseCode: card ? avsOf(card.checks?.address_line1_check, card.checks?.address_postal_code_check) : null,
    cvvResponseCode: card ? cvvOf(card.checks?.cvc_check) : null,
    schemeTransactionId: networkTransactionIdOf(intent),
    merchantAdviceCode: charge?.outcome?.network_advice_code ?? null,
    approvalUrl: status === 'buyer_approval_pending' ? redirect : null,
    additionalIdentifiers: {
      charge_id: charge?.id ?? null,
      payment_method_id:
        typeof intent.payment_method === 'string' ? intent.payment_method : (intent.payment_method?.id ?? null),
    },
  };
}

function declinedOutcome(
  intentId: string | null,
  code: string,
  declineCode: string | null,
  message: string | null,
): AuthorizeOutcome {
  return {
    ...blankFacts,
    status: 'declined',
    errorCode: errorCodeOf(declineCode, code),
    rawResponseCode: declineCode ?? code,
    rawResponseDescription: message,
    providerTransactionId: intentId,
    additionalIdentifiers: {},
  };
}

/** A card decline (HTTP 402 `card_error`) is an outcome; anything else is a `ConnectorError`. */
export function outcomeOfError(error: unknown): AuthorizeOutcome {
  if (error instanceof Stripe.errors.StripeCardError) {
    const intent = (error.raw as { payment_intent?: { id?: string } } | undefined)?.payment_intent;
    const outcome = declinedOutcome(
      intent?.id ?? null,
      error.code ?? 'card_declined',
      error.decline_code ?? null,
      error.message ?? null,
    );
    const advice = error.network_advice_code ?? null;
    return {
      ...outcome,
      merchantAdviceCode: advice,
      cvvResponseCode: error.code === 'incorrect_cvc' ? 'no_match' : null,
    };
  }
  throw connectorErrorOf(error);
}
