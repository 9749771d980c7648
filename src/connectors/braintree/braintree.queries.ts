/**
 * The GraphQL documents the Braintree connector sends (Braintree GraphQL API, version 2019-01-01).
 * Each transaction is read with the same fields, so every answer maps the same way.
 */

const RESPONSE = 'legacyCode message cvvResponse avsPostalCodeResponse avsStreetAddressResponse';

export const TRANSACTION_FIELDS = `
  id legacyId orderId status merchantAccountId
  amount { value currencyCode }
  paymentMethodSnapshot { __typename ... on CreditCardTransactionDetails { networkTransactionId } }
  statusHistory {
    status
    ... on AuthorizedEvent { processorResponse { ${RESPONSE} authorizationId } }
    ... on ProcessorDeclinedEvent { processorResponse { ${RESPONSE} } }
    ... on GatewayRejectedEvent { gatewayRejectionReason processorResponse { ${RESPONSE} } }
    ... on FailedEvent { processorResponse { legacyCode message } }
  }`;

export const TOKENIZE_CARD = `mutation TokenizeCreditCard($input: TokenizeCreditCardInput!) {
  tokenizeCreditCard(input: $input) { paymentMethod { id } }
}`;

export const AUTHORIZE_CARD = `mutation AuthorizeCreditCard($input: AuthorizeCreditCardInput!) {
  authorizeCreditCard(input: $input) { transaction { ${TRANSACTION_FIELDS} } }
}`;

export const CHARGE_CARD = `mutation ChargeCreditCard($input: ChargeCreditCardInput!) {
  chargeCreditCard(input: $input) { transaction { ${TRANSACTION_FIELDS} } }
}`;

export const CAPTURE = `mutation CaptureTransaction($input: CaptureTransactionInput!) {
  captureTransaction(input: $input) { transaction { ${TRANSACTION_FIELDS} } }
}`;

export const REVERSE = `mutation ReverseTransaction($input: ReverseTransactionInput!) {
  reverseTransaction(input: $input) { reversal { __typename ... on Transaction { id status } ... on Refund { id status } } }
}`;

export const REFUND = `mutation RefundTransaction($input: RefundTransactionInput!) {
  refundTransaction(input: $input) { refund { id orderId status amount { value currencyCode } } }
}`;

export const VAULT = `mutation VaultPaymentMethod($input: VaultPaymentMethodInput!) {
  vaultPaymentMethod(input: $input) {
    paymentMethod { id }
    verification { status processorResponse { legacyCode message } }
  }
}`;

export const FIND = `query FindPayment($id: ID!) {
  node(id: $id) {
    __typename
    ... on Transaction { ${TRANSACTION_FIELDS} }
    ... on Refund { id orderId status amount { value currencyCode } }
  }
}`;

export const SEARCH_BY_ORDER = `query SearchTransactions($input: TransactionSearchInput!) {
  search { transactions(input: $input, first: 5) { edges { node { ${TRANSACTION_FIELDS} } } } }
}`;

export const SEARCH_REFUNDS_BY_ORDER = `query SearchRefunds($input: RefundSearchInput!) {
  search { refunds(input: $input, first: 5) { edges { node { id orderId status amount { value currencyCode } } } } }
}`;

export const PING = 'query Ping { ping }';
