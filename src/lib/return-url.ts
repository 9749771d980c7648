/**
 * Where a buyer is sent back to after a payment's page (an approval page, a 3DS challenge, a payment
 * link's page): the given URL with the transaction's id and status added to its query.
 */
export function withTransactionResult(url: string, transactionId: string, status: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}transaction_id=${encodeURIComponent(transactionId)}&transaction_status=${encodeURIComponent(status)}`;
}
