import type { AuthorizeOutcome, ResponseFacts, SyncOutcome } from '../connector.ts';
import { avsOf, cvvOf, processorErrorCode, rejectionErrorCode, syncStatusOf } from './braintree.mapping.ts';

/** The transaction fields every query asks for (braintree.queries.ts, TRANSACTION_FIELDS). */
export interface BraintreeTransaction {
  id: string;
  legacyId?: string;
  orderId?: string | null;
  status: string;
  merchantAccountId?: string | null;
  amount?: { value: string; currencyCode: string } | null;
  /** A card payment's `CreditCardTransactionDetails`: the network's transaction id. */
  paymentMethodSnapshot?: { __typename?: string; networkTransactionId?: string | null } | null;
  statusHistory?: Array<{
    status: string;
    gatewayRejectionReason?: string | null;
    processorResponse?: {
      legacyCode?: string | null;
      message?: string | null;
      cvvResponse?: string | null;
      avsPostalCodeResponse?: string | null;
      avsStreetAddressResponse?: string | null;
      authorizationId?: string | null;
    } | null;
  }> | null;
}

export interface BraintreeRefund {
  id: string;
  orderId?: string | null;
  status: string;
  amount?: { value: string; currencyCode: string } | null;
}

const blank: ResponseFacts = { errorCode: null, rawResponseCode: null, rawResponseDescription: null };

/** The authorization's event (most recent first in statusHistory): the one with a processor response. */
function authorizationEvent(transaction: BraintreeTransaction) {
  return (
    (transaction.statusHistory ?? []).find((event) => event.processorResponse || event.gatewayRejectionReason) ?? null
  );
}

/** Why a transaction was declined or failed, from its authorization event. */
export function refusalFacts(transaction: BraintreeTransaction): ResponseFacts {
  const event = authorizationEvent(transaction);
  const response = event?.processorResponse ?? null;
  if (transaction.status === 'GATEWAY_REJECTED') {
    const reason = event?.gatewayRejectionReason ?? 'UNKNOWN';
    return {
      errorCode: rejectionErrorCode(reason),
      rawResponseCode: reason,
      rawResponseDescription: `Gateway rejected: ${reason}`,
    };
  }
  if (transaction.status === 'FAILED' || transaction.status === 'AUTHORIZATION_EXPIRED') {
    return {
      errorCode: 'service_error',
      rawResponseCode: response?.legacyCode ?? transaction.status,
      rawResponseDescription: response?.message ?? transaction.status,
    };
  }
  return {
    errorCode: processorErrorCode(response?.legacyCode),
    rawResponseCode: response?.legacyCode ?? transaction.status,
    rawResponseDescription: response?.message ?? transaction.status,
  };
}

/** A transaction answered by authorizeCreditCard / chargeCreditCard in our terms. */
export function authorizationOf(
  transaction: BraintreeTransaction,
): Omit<AuthorizeOutcome, 'status'> & { status: SyncOutcome['status'] } {
  const status = syncStatusOf(transaction.status);
  const response = authorizationEvent(transaction)?.processorResponse ?? null;
  const refused = status === 'declined' || status === 'failed';
  return {
    ...(refused ? refusalFacts(transaction) : blank),
    status,
    providerTransactionId: transaction.id,
    authResponseCode: refused ? null : (response?.legacyCode ?? null),
    avsResponseCode: avsOf(response?.avsPostalCodeResponse, response?.avsStreetAddressResponse),
    cvvResponseCode: cvvOf(response?.cvvResponse),
    schemeTransactionId: refused ? null : (transaction.paymentMethodSnapshot?.networkTransactionId ?? null),
    merchantAdviceCode: null,
    approvalUrl: null,
    additionalIdentifiers: {
      transaction_id: transaction.id,
      legacy_id: transaction.legacyId ?? null,
      authorization_id: response?.authorizationId ?? null,
    },
  };
}

/** A refund's status: submitted for settlement is a refund made (Braintree settles it in its batch). */
export function refundStatusOf(status: string): 'refunded' | 'declined' | 'failed' | 'pending' {
  const mapped = syncStatusOf(status);
  if (mapped === 'captured') return 'refunded';
  if (mapped === 'declined' || mapped === 'failed' || mapped === 'pending') return mapped;
  return 'failed';
}
