import {
  ConnectorError,
  type AuthorizeRequest,
  type Instrument,
  type ThreeDSecureData,
  type TokenizeRequest,
} from '../connector.ts';
import { toAdyenValue } from './adyen.amounts.ts';

/**
 * Request bodies of Adyen's Checkout API v71 built from our normalized inputs. Raw card fields go
 * in `paymentMethod` (type `scheme`, plain `number`, `expiryMonth`, `expiryYear`, `cvc`): this
 * needs a PCI DSS level 1 setup at Adyen ("raw card data" API permission), see
 * docs/connectors-adyen-braintree.md. They exist only in the request body sent over TLS.
 */

/** A stored card's token at Adyen is the shopper reference and the stored payment method id. */
export const joinToken = (shopperReference: string, storedPaymentMethodId: string) =>
  `${shopperReference}|${storedPaymentMethodId}`;

export function splitToken(token: string): { shopperReference: string; storedPaymentMethodId: string } {
  const at = token.indexOf('|');
  if (at <= 0 || at === token.length - 1)
    throw new ConnectorError(
      'invalid_request',
      'The stored card token is not an Adyen token (shopperReference|storedPaymentMethodId)',
    );
  return { shopperReference: token.slice(0, at), storedPaymentMethodId: token.slice(at + 1) };
}

export function amountOf(amount: number, currency: string): { value: number; currency: string } {
  const value = toAdyenValue(amount, currency);
  if (value === null)
    throw new ConnectorError(
      'invalid_request',
      `Adyen counts ${currency} without decimals: ${amount} minor units cannot be sent`,
    );
  return { value, currency };
}

/** `MM/YY` → Adyen's `expiryMonth` and four-digit `expiryYear`. */
function expiry(expirationDate: string): { expiryMonth: string; expiryYear: string } {
  const [month = '', year = ''] = expirationDate.split('/');
  return { expiryMonth: month.padStart(2, '0'), expiryYear: year.length === 2 ? `20${year}` : year };
}

function cardMethod(card: {
  number: string;
  expirationDate: string;
  securityCode: string | null;
}): Record<string, unknown> {
  return {
    type: 'scheme',
    number: card.number,
    ...expiry(card.expirationDate),
    ...(card.securityCode ? { cvc: card.securityCode } : {}),
  };
}

/**
 * An Apple Pay or Google Pay token for Adyen to decrypt with its own keys (the wallet's payment
 * processing certificate is Adyen's, or the merchant's uploaded to Adyen): Apple's `paymentData` as
 * base64 of its JSON text (`applePayToken`), Google's token as its JSON text (`googlePayToken`), per
 * docs.adyen.com "Apple Pay for API only" / "Google Pay for API only" (Checkout API v71).
 */
function walletMethod(instrument: Extract<Instrument, { kind: 'wallet-token' }>): Record<string, unknown> {
  if (instrument.provider === 'apple')
    return { type: 'applepay', applePayToken: Buffer.from(instrument.token, 'utf8').toString('base64') };
  return { type: 'googlepay', googlePayToken: instrument.token };
}

function paymentMethodOf(instrument: Instrument): {
  paymentMethod: Record<string, unknown>;
  shopperReference: string | null;
} {
  switch (instrument.kind) {
    case 'card':
      return { paymentMethod: cardMethod(instrument), shopperReference: null };
    case 'payment-service-token': {
      const { shopperReference, storedPaymentMethodId } = splitToken(instrument.token);
      return { paymentMethod: { type: 'scheme', storedPaymentMethodId }, shopperReference };
    }
    case 'wallet-token':
      return { paymentMethod: walletMethod(instrument), shopperReference: null };
    case 'network-token':
    case 'redirect':
      throw new ConnectorError(
        'invalid_request',
        `The Adyen card connector does not take ${instrument.kind} instruments`,
      );
  }
}

/** 3DS done elsewhere (our API's `three_d_secure_data`): passed as `mpiData`. */
function mpiData(data: ThreeDSecureData): Record<string, unknown> {
  return {
    threeDSVersion: data.version,
    cavv: data.cavv ?? undefined,
    eci: data.eci ?? undefined,
    directoryResponse: data.directoryResponse ?? undefined,
    authenticationResponse: data.authenticationResponse ?? undefined,
  };
}

/** Where Adyen sends the buyer back after a 3DS redirect: our return endpoint for this attempt. */
export const returnUrlOf = (request: AuthorizeRequest) =>
  `${request.approvalBaseUrl}/connector-returns/${encodeURIComponent(request.merchantAccountId ?? '')}/${request.idempotencyKey}`;

/**
 * The shopper interaction and recurring model of a payment (stored card, merchant-initiated,
 * subscription). A merchant-initiated payment with card details Adyen did not store is `ContAuth`
 * with `Subscription` (a recurring or installment series) or `UnscheduledCardOnFile`, as Adyen
 * requires with `networkTxReference`.
 */
function recurringOf(request: AuthorizeRequest, stored: boolean): Record<string, unknown> {
  if (!stored && request.merchantInitiated)
    return {
      shopperInteraction: 'ContAuth',
      recurringProcessingModel: ['recurring', 'installment'].includes(request.paymentSource)
        ? 'Subscription'
        : 'UnscheduledCardOnFile',
    };
  if (!stored) return { shopperInteraction: 'Ecommerce' };
  if (request.paymentSource === 'recurring')
    return { shopperInteraction: 'ContAuth', recurringProcessingModel: 'Subscription' };
  if (request.merchantInitiated)
    return { shopperInteraction: 'ContAuth', recurringProcessingModel: 'UnscheduledCardOnFile' };
  return { shopperInteraction: 'Ecommerce', recurringProcessingModel: 'CardOnFile' };
}

/**
 * `additionalData` of a payment: manual capture, and for a merchant-initiated payment with card
 * details Adyen did not store the scheme's id of the customer-initiated payment it follows
 * (`networkTxReference`, from whichever provider answered it). A card stored at Adyen needs none.
 */
function additionalDataOf(request: AuthorizeRequest, stored: boolean): Record<string, string> | null {
  const data: Record<string, string> = {};
  if (request.intent !== 'capture') data.manualCapture = 'true';
  if (request.merchantInitiated && !stored && request.previousSchemeTransactionId && request.instrument.kind === 'card')
    data.networkTxReference = request.previousSchemeTransactionId;
  return Object.keys(data).length > 0 ? data : null;
}

/** `POST /payments` of an authorization. Manual capture unless the intent is capture (then Adyen captures at once). */
export function paymentBody(request: AuthorizeRequest, merchantAccount: string): Record<string, unknown> {
  const { paymentMethod, shopperReference } = paymentMethodOf(request.instrument);
  const additionalData = additionalDataOf(request, shopperReference !== null);
  return {
    merchantAccount,
    reference: request.reference,
    amount: amountOf(request.amount, request.currency),
    paymentMethod,
    returnUrl: returnUrlOf(request),
    channel: 'Web',
    ...(request.country ? { countryCode: request.country } : {}),
    ...(shopperReference ? { shopperReference } : {}),
    ...recurringOf(request, shopperReference !== null),
    ...(request.intent === 'capture' ? { captureDelayHours: 0 } : {}),
    ...(additionalData ? { additionalData } : {}),
    ...(request.threeDSecure ? { mpiData: mpiData(request.threeDSecure) } : {}),
    // Step-up: 3DS now, overriding Dynamic 3D Secure (the buyer is redirected, back to `returnUrl`).
    ...(request.requestThreeDs && !request.threeDSecure && !request.merchantInitiated
      ? { authenticationData: { attemptAuthentication: 'always' } }
      : {}),
  };
}

/**
 * `POST /payments` storing a card: a zero-amount verification with `storePaymentMethod`, the
 * attempt id as the shopper reference (one shopper per stored card; Adyen only needs it stable).
 */
export function tokenizeBody(
  request: TokenizeRequest,
  merchantAccount: string,
  currency: string,
): Record<string, unknown> {
  return {
    merchantAccount,
    reference: request.idempotencyKey,
    amount: { value: 0, currency },
    paymentMethod: cardMethod(request.card),
    returnUrl: request.redirectUrl,
    channel: 'Web',
    shopperReference: request.idempotencyKey,
    storePaymentMethod: true,
    shopperInteraction: 'Ecommerce',
    recurringProcessingModel: 'CardOnFile',
  };
}
