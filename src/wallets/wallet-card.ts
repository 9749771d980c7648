/** What a decrypted wallet token yields: the card (device token or card number) and its authentication. */
export interface WalletCard {
  /** `dpan`: a device (network) token with a cryptogram; `fpan`: the card number itself (Google PAN_ONLY). */
  kind: 'dpan' | 'fpan';
  number: string;
  /** `MM/YY`. */
  expirationDate: string;
  cryptogram: string | null;
  eci: string | null;
  /** The amount the buyer approved in the wallet sheet (Apple only; minor units), when given. */
  amount: number | null;
  /** The token's unique id, the replay guard's key: Apple `header.transactionId` (lowercase hex), Google `messageId`, Paze `payloadId` (else the JWS's jti). */
  tokenId?: string | null;
  /** Apple: the ISO 4217 numeric currency code of `amount` (`"840"`). */
  currencyCode?: string | null;
  /** Until when this server accepts the token (Apple: signing time + the maximum age; Google: `messageExpiration`). */
  usableUntil?: Date | null;
  /** The card scheme the wallet names (Paze's paymentCardNetwork), when it does. */
  scheme?: string | null;
}
