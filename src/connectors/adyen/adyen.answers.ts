import type { AuthorizeOutcome, ResponseFacts } from '../connector.ts';
import type { ProviderResponse } from '../provider-http.ts';
import {
  avsOf,
  cvvOf,
  httpError,
  paymentStatusOf,
  refusalErrorCode,
  type AdyenPaymentStatus,
} from './adyen.mapping.ts';

/** A 2xx answer's body, or the `ConnectorError` of any other status. */
export function bodyOf<T>(response: ProviderResponse): T {
  if (response.status < 200 || response.status > 299) throw httpError(response.status, response.json);
  return (response.json ?? {}) as T;
}

/** Adyen's `/payments` and `/payments/details` answer (the fields we read). */
export interface AdyenPaymentResponse {
  pspReference?: string;
  resultCode?: string;
  refusalReason?: string;
  refusalReasonCode?: string;
  merchantReference?: string;
  action?: { type?: string; url?: string; method?: string };
  additionalData?: Record<string, string | undefined>;
}

/** An authorization outcome whose status may also be `pending` (Adyen's Received/Pending). */
export type AdyenAuthorization = Omit<AuthorizeOutcome, 'status'> & { status: AdyenPaymentStatus };

const blank: ResponseFacts = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };

/** The buyer's page of a redirect action; only GET redirects can be an approval URL. */
function approvalUrlOf(response: AdyenPaymentResponse): string | null {
  const action = response.action;
  if (!action?.url || (action.method && action.method.toUpperCase() !== 'GET')) return null;
  return action.url;
}

function factsOf(response: AdyenPaymentResponse, status: AdyenPaymentStatus): ResponseFacts {
  if (status !== 'declined' && status !== 'failed') return blank;
  const resultCode = response.resultCode ?? 'Error';
  return {
    errorCode: refusalErrorCode(response.refusalReasonCode, resultCode),
    rawResponseCode: response.refusalReasonCode ?? resultCode,
    rawResponseDescription: response.refusalReason ?? resultCode,
  };
}

/** A `/payments` (or `/payments/details`) answer in our terms. */
export function authorizationOf(response: AdyenPaymentResponse, intent: 'authorize' | 'capture'): AdyenAuthorization {
  let status = paymentStatusOf(response.resultCode, intent);
  const approvalUrl = status === 'buyer_approval_pending' ? approvalUrlOf(response) : null;
  // A redirect we cannot send the buyer to (a POST form) cannot complete.
  if (status === 'buyer_approval_pending' && !approvalUrl) status = 'failed';
  const extra = response.additionalData ?? {};
  const approved = status === 'authorized' || status === 'captured';
  return {
    ...factsOf(response, status),
    status,
    providerTransactionId: response.pspReference ?? null,
    authResponseCode: approved ? (extra.authCode ?? null) : null,
    avsResponseCode: avsOf(extra.avsResult),
    cvvResponseCode: cvvOf(extra.cvcResult),
    schemeTransactionId: extra.networkTxReference ?? null,
    merchantAdviceCode: extra.merchantAdviceCode ? extra.merchantAdviceCode.slice(0, 2) : null,
    approvalUrl,
    additionalIdentifiers: {
      psp_reference: response.pspReference ?? null,
      ...(extra.authCode ? { auth_code: extra.authCode } : {}),
    },
  };
}

/** The stored payment method id of a tokenization answer (v68+ `tokenization.*`, or the older recurring field). */
export function storedPaymentMethodIdOf(response: AdyenPaymentResponse): string | null {
  const extra = response.additionalData ?? {};
  return extra['tokenization.storedPaymentMethodId'] ?? extra['recurring.recurringDetailReference'] ?? null;
}
