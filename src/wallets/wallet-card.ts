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
  /** The card scheme the wallet names (Paze's paymentCardNetwork), when it does. */
  scheme?: string | null;
  /** The token's unique id (Paze: payloadId, else the JWS's jti), when it has one. */
  tokenId?: string;
}
