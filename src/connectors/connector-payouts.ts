import type { CallBase, ResponseFacts } from './connector-base.ts';

/** The payout part of the connector contract (connector.ts re-exports these types). */

/**
 * Where a payout sends the funds: a card released by the vault for this call, the provider's token
 * of a stored card, or a buyer's account at the provider (a stored PayPal account: `method`
 * `paypal`, `accountId` its payer id). The engine sends a connector only destinations of its
 * definition's `method` (cards to card connectors, PayPal accounts to `paypal-paypal`).
 */
export type PayoutInstrument =
  | { kind: 'card'; number: string; expirationDate: string; scheme: string | null }
  | { kind: 'payment-service-token'; token: string }
  | { kind: 'provider-account'; method: string; accountId: string };

/** A postal address, as the payout's merchant gives it (`Address` of the API). */
export interface PayoutAddress {
  line1: string | null;
  line2: string | null;
  houseNumberOrName: string | null;
  organization: string | null;
  city: string | null;
  postalCode: string | null;
  state: string | null;
  stateCode: string | null;
  country: string | null;
}

/** The merchant a payout is made for (`PayoutCreate.merchant`); some providers require it. */
export interface PayoutMerchant {
  name: string;
  identificationNumber: string;
  phoneNumber: string;
  url: string;
  statementDescriptor: string;
  merchantCategoryCode: string;
  address: PayoutAddress | null;
}

export interface PayoutRequest extends CallBase {
  /** Our short reference of the payout. */
  reference: string;
  amount: number;
  currency: string;
  /** `PayoutCategory` enum value. */
  category: 'online_gambling' | null;
  instrument: PayoutInstrument;
  merchant: PayoutMerchant | null;
  /**
   * The recipient's name, from the payout's buyer (`billing_details.first_name` / `last_name`), for
   * providers that ask for the cardholder's name (Checkout.com's `destination.account_holder`).
   * Absent or null: no buyer or no name.
   */
  recipient?: { firstName: string | null; lastName: string | null } | null;
}

export interface PayoutOutcome extends ResponseFacts {
  /**
   * The `PayoutStatus` enum: `succeeded`: the funds were sent; `pending`: accepted, not final yet
   * at the provider; `declined`: the issuer or provider said no; `failed`: the provider could not
   * process it. A timeout is a `ConnectorError`, never one of these.
   */
  status: 'succeeded' | 'pending' | 'declined' | 'failed';
  /** The provider's id of the payout (`payment_service_payout_id`). */
  providerPayoutId: string | null;
}

/** What an earlier payout call, found by its idempotency key, turned into at the provider. */
export interface PayoutSyncRequest extends CallBase {
  /** Null when the original call never got an answer (a timeout). */
  providerPayoutId: string | null;
  reference: string;
  amount: number;
  currency: string;
  /** The destination card's BIN (first 6 or 8 digits) and last 4, never the number. */
  card: { bin: string | null; last4: string | null };
  /**
   * A payout to an account at the provider: the account (as `PayoutInstrument`), for a provider
   * whose only lookup of a call without an answer is the same request again under its
   * idempotency key (PayPal's `sender_batch_id`). Absent or null for a card.
   */
  account?: { method: string; accountId: string } | null;
}

export interface PayoutSyncOutcome extends ResponseFacts {
  /** A `PayoutOutcome` status, or `not_found`: the provider has no record of the call (it never arrived). */
  status: 'succeeded' | 'pending' | 'declined' | 'failed' | 'not_found';
  providerPayoutId: string | null;
}
