/**
 * The facts every connector call carries and every provider response keeps: the base of the
 * requests and outcomes of connector.ts and connector-payouts.ts (connector.ts re-exports them).
 */

/** Facts every call carries. */
export interface CallBase {
  /** Provider-side idempotency key: the attempt id. A retried attempt reuses it. */
  idempotencyKey: string;
  /** Credential fields of the payment service (secrets included, decrypted for this call). */
  credentials: Record<string, string>;
  /** This connector's entry of the transaction's `connection_options`. */
  options: Record<string, unknown> | null;
}

/** Fields of a provider response that the transaction keeps. */
export interface ResponseFacts {
  /** Standardized error code (ours), null on success. */
  errorCode: string | null;
  rawResponseCode: string | null;
  rawResponseDescription: string | null;
}
