import type { Instrument } from '../../../connectors/connector.ts';
import type { WalletTokenUse } from '../../digital-wallets/wallet-token-uses.service.ts';

/**
 * The payment instrument of a new transaction, resolved from the request in the creating
 * database transaction: the card number is released by the vault into memory for the one
 * connector call and is never written anywhere but the vault.
 */
export interface ResolvedInstrument {
  instrument: Instrument;
  /** `card`, `network-token`, or a redirect method. */
  method: string;
  instrumentType: 'pan' | 'card_token' | 'network_token' | 'redirect' | 'applepay' | 'googlepay';
  /** Where the buyer returns after an approval page. */
  redirectUrl: string | null;
  paymentMethodId: string | null;
  /** The transaction's `payment_method` object (no full number). */
  snapshot: Record<string, unknown>;
  fingerprint: string | null;
  bin: string | null;
  last4: string | null;
  checkoutSessionId: string | null;
  /** A raw card that `store: true` may vault. */
  storable: {
    number: string;
    expiration_date: string;
    scheme: string;
    card_type?: string | null;
    external_identifier?: string | null;
  } | null;
  /** The card number itself, for 3DS scenario matching (memory only). */
  cardNumber: string | null;
  /** The buyer a stored card belongs to. */
  ownerBuyerId: string | null;
  /**
   * A stored card whose held security code was not taken yet (`resolveInstrument` with
   * `deferHeldCode`): the caller takes it with `takeHeldCode` once the transaction is recorded.
   */
  heldCodeOf: string | null;
  /** An Apple Pay or Google Pay token: checked and recorded as used before the connector call (wallet-instrument.ts). */
  walletToken?: WalletTokenCheck;
  /** A stored card without a scheme transaction id: an approved customer-initiated payment gives it one. */
  lacksSchemeTransactionId?: boolean;
  /** A stored card's scheme transaction id, which a merchant-initiated payment sends when the request names none. */
  schemeTransactionId?: string | null;
}

/** What the creating transaction checks and records of a wallet token before any connector call. */
export interface WalletTokenCheck {
  use: WalletTokenUse;
  /** An Apple token decrypted here: the amount and currency the buyer approved. */
  approved: { amount: number | null; currencyCode: string | null } | null;
}
