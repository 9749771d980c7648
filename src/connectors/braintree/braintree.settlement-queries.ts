/**
 * The GraphQL searches the Braintree settlements reader sends (schema of braintree/graphql-api,
 * API version 2019-01-01): settled transactions and refunds by their `statusTransition.settledAt`
 * time, disputes by the `effectiveDate` of a status event. Each is a Relay connection paged with
 * `first` / `after` and `pageInfo { hasNextPage endCursor }`.
 */

const MONEY = 'value currencyCode';
/** `Transaction.disbursementDetails` / `Refund.disbursementDetails` (present once disbursed, on an eligible merchant account). */
const DISBURSEMENT = `disbursementDetails { date amount { ${MONEY} } exchangeRate fundsHeld }`;
/** The SETTLED event: when, for how much (presentment currency), in which settlement batch. */
const SETTLED_EVENT = `statusHistory { status timestamp amount { ${MONEY} } ... on SettledEvent { settlementBatchId } }`;

export const SETTLED_TRANSACTIONS = `query SettledTransactions($input: TransactionSearchInput!, $first: Int!, $after: String) {
  search { transactions(input: $input, first: $first, after: $after) {
    pageInfo { hasNextPage endCursor }
    edges { node { id orderId status merchantAccountId amount { ${MONEY} } ${SETTLED_EVENT} ${DISBURSEMENT} } }
  } }
}`;

export const SETTLED_REFUNDS = `query SettledRefunds($input: RefundSearchInput!, $first: Int!, $after: String) {
  search { refunds(input: $input, first: $first, after: $after) {
    pageInfo { hasNextPage endCursor }
    edges { node { id orderId status merchantAccountId amount { ${MONEY} } refundedTransaction { id } ${SETTLED_EVENT} ${DISBURSEMENT} } }
  } }
}`;

export const DISPUTES_BY_EFFECTIVE_DATE = `query DisputesByEffectiveDate($input: DisputeSearchInput!, $first: Int!, $after: String) {
  search { disputes(input: $input, first: $first, after: $after) {
    pageInfo { hasNextPage endCursor }
    edges { node {
      id type status
      amountDisputed { ${MONEY} } amountWon { ${MONEY} }
      statusHistory { status timestamp effectiveDate disbursementDate }
      transaction { id merchantAccountId }
    } }
  } }
}`;
