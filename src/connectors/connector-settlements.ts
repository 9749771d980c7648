/**
 * The settlements part of the connector contract (connector.ts re-exports these types): what a
 * provider reports it settled, refunded and charged back, with its own amounts, fees and report
 * ids. A real connector reads these from the provider (never invents them); the sandbox connectors
 * keep their deterministic simulation (settlements.service.ts) and have no `settlements` member.
 *
 * Sign conventions (our records): every `amount` here is positive, minor units of our API; the
 * line's `kind` gives its direction (a capture credits the merchant, a refund and a chargeback
 * debit it, a chargeback reversal credits it back). Fees (`commission`, and where the provider
 * breaks them down `interchange`, `markup`, `schemeFee`) are positive amounts the provider kept.
 */

/** One page of an ingestion run for one payment service. */
export interface SettlementFetchRequest {
  /** The payment service's decrypted credentials, with its reporting credentials (`reporting_fields`; a reporting field wins a key both have). */
  credentials: Record<string, string>;
  /** Lines posted at or after this instant (a first run: `svc settlements ingest --since`, or the payment service's creation). */
  since: Date;
  /** The position the previous page returned (opaque to the engine); null: start at `since`. */
  cursor: string | null;
  /**
   * A report the provider announced (Adyen's REPORT_AVAILABLE notification: the report's download
   * URL or file name): fetch that report only. Null: the connector's own listing since `since`.
   */
  report: string | null;
}

/** One ledger line of a provider's settlement report. */
export interface SettlementLine {
  kind: 'capture' | 'refund' | 'chargeback' | 'chargeback-reversal';
  /** The provider's id of this line, unique per payment service (Stripe: the balance transaction id; Adyen: report + line; Braintree: the transaction or dispute id with its kind). */
  reportLineId: string;
  /** The provider's report the line came from (`payment_service_report_id`): Stripe's payout id, Adyen's report file name, Braintree's disbursement id. */
  reportId: string;
  /** The files of that report (`payment_service_report_file_ids`). */
  reportFileIds: string[];
  /** The payment's id at the provider, as our authorization recorded it (`payment_service_transaction_id`). */
  providerTransactionId: string;
  /** A refund line: the provider's id of the refund (our refund's `payment_service_refund_id`), when the report names it. */
  providerRefundId: string | null;
  /** Our reference, when the provider echoes it (Adyen's merchant reference): a fallback match. */
  merchantReference: string | null;
  /** ISO 4217 currency of `amount` and the fees. */
  currency: string;
  /** Gross amount of the line, positive, minor units. */
  amount: number;
  /** Every fee the provider kept for this line, positive, minor units (0 when none; negative only when the provider reports a fee returned, e.g. Stripe on some refunds). */
  commission: number;
  interchange: number | null;
  markup: number | null;
  schemeFee: number | null;
  /** When the line was settled in a different currency than the payment's: the provider's rate. */
  exchangeRate: number | null;
  /** When the provider posted the line. */
  postedAt: Date;
}

/** What one fetch returns. */
export interface SettlementPage {
  lines: SettlementLine[];
  /** Where the next fetch starts; persisted by the engine between runs (and restarts). */
  cursor: string | null;
  /** True: nothing more to read now (the engine stops this run and keeps `cursor` for the next). */
  done: boolean;
}

/**
 * The optional connector member `settlements`: one page of the provider's settlement report lines.
 * May throw `ConnectorError` (the ingestion job retries); never touches the database.
 */
export type FetchSettlements = (request: SettlementFetchRequest) => Promise<SettlementPage>;
