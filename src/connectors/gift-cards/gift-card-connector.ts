/**
 * The gift card service contract: balance, redeem, refund, reverse, activate and issue in our own
 * normalized types.
 * Like payment connectors (STYLE section 7), a gift card connector never touches the database, the
 * queue or the vault: the gift cards service hands it the number and pin the vault released for
 * that one call. A refused card is an outcome (`ok: false` with a `GiftCardErrorCode`), never an
 * exception; exceptions are for bugs only.
 */

/** Every `GiftCardErrorCode` of the spec. */
export const GIFT_CARD_ERROR_CODES = [
  'invalid_gift_card',
  'expired_card',
  'inactive_card',
  'invalid_service_credentials',
  'invalid_amount',
  'incorrect_currency',
  'insufficient_funds',
  'invalid_service_configuration',
  'operation_canceled',
  'service_error',
  'service_network_error',
  'unknown_error',
  'max_gift_cards_reached',
] as const;
export type GiftCardErrorCode = (typeof GIFT_CARD_ERROR_CODES)[number];

/** A gift card as the service knows it: its number and pin, released by the vault for one call. */
export interface GiftCardCredentials {
  /** 16 to 19 digits. */
  number: string;
  pin: string;
}

/** A refusal by the service, normalized; the raw values are what the service said. */
export interface GiftCardFailure {
  ok: false;
  errorCode: GiftCardErrorCode;
  rawErrorCode: string | null;
  rawErrorMessage: string | null;
}

export interface GiftCardBalanceInput extends GiftCardCredentials {
  /**
   * What we have already taken from this card (succeeded redemptions minus their refunds, plus
   * redemptions in flight), in the card's minor units. A stateless simulator subtracts it from the
   * card's face value; a real service ignores it (it keeps the balance itself).
   */
  alreadyRedeemed: number;
  /**
   * The activation we recorded for this card (`POST /gift-cards/activations`), if any. A stateless
   * simulator takes it as the card's face value; a real service ignores it (it knows the card).
   */
  activated?: GiftCardActivated | null;
}

/** Amount and currency a card was activated with. */
export interface GiftCardActivated {
  /** Minor units of `currency`. */
  amount: number;
  currency: string;
}

export type GiftCardBalanceOutcome =
  | {
      ok: true;
      /** Available balance in minor units of `currency`. */
      balance: number;
      currency: string;
      /** ISO 8601, or null when the card does not expire. */
      expirationDate: string | null;
    }
  | GiftCardFailure;

export interface GiftCardRedeemInput extends GiftCardBalanceInput {
  /** Minor units, more than zero. */
  amount: number;
  currency: string;
  /** The same key returns the same redemption (our redemption id). */
  idempotencyKey: string;
}

export type GiftCardRedeemOutcome = { ok: true; redemptionId: string; remainingBalance: number } | GiftCardFailure;

export interface GiftCardRefundInput {
  /** The service's id of the redemption (`gift_card_service_redemption_id`). */
  redemptionId: string;
  /** Minor units, more than zero; the caller keeps the total within the redeemed amount. */
  amount: number;
  idempotencyKey: string;
}

export type GiftCardRefundOutcome = { ok: true; refundId: string } | GiftCardFailure;

export interface GiftCardReverseInput {
  redemptionId: string;
  idempotencyKey: string;
}

export type GiftCardReverseOutcome = { ok: true } | GiftCardFailure;

export interface GiftCardActivateInput {
  number: string;
  /** Null for a card without a pin. */
  pin: string | null;
  /** The value to load, or null for the card's own face value. */
  value: GiftCardActivated | null;
  /** The activation we recorded for this card before, if any (see `GiftCardBalanceInput.activated`). */
  activated: GiftCardActivated | null;
  /** The same key returns the same activation (our activation id). */
  idempotencyKey: string;
}

export type GiftCardActivateOutcome =
  | {
      ok: true;
      /** The service's id of the activation. */
      activationId: string;
      /** The card's balance after activation, in minor units of `currency`. */
      balance: number;
      currency: string;
      expirationDate: string | null;
    }
  /** `alreadyActive`: the card was active before the call (the code alone cannot say so). */
  | (GiftCardFailure & { alreadyActive?: boolean });

export interface GiftCardIssueInput {
  /** The service's theme code (the card's design). */
  theme: string;
  /** Minor units of `currency`. */
  amount: number;
  currency: string;
  /** The same key returns the same issued card (our issuance id). */
  idempotencyKey: string;
  /** Our public URL: the simulator's virtual cards live under it; a real service ignores it. */
  sandboxBaseUrl: string;
}

export type GiftCardIssueOutcome =
  | {
      ok: true;
      /** The service's id of the issued virtual card. */
      issuanceId: string;
      /** Where the buyer opens the virtual card. */
      url: string;
    }
  | GiftCardFailure;

/** The calls that move money on a card, each found again by its idempotency key. */
export interface GiftCardMoneyOutcomes {
  redeem: GiftCardRedeemOutcome;
  refund: GiftCardRefundOutcome;
  reverse: GiftCardReverseOutcome;
}

export interface GiftCardStatusInput<O extends keyof GiftCardMoneyOutcomes = keyof GiftCardMoneyOutcomes> {
  operation: O;
  /** The idempotency key the call was (or would have been) sent with. */
  idempotencyKey: string;
}

/**
 * What became of a call whose answer we never recorded (the process died around it): `done` with
 * the service's answer to it, `not_found` when the service never received it (nothing moved: it
 * may be failed, or sent again with the same key), `pending` when the service has it but no
 * answer yet (asked again later).
 */
export type GiftCardStatusOutcome<T> = { status: 'done'; outcome: T } | { status: 'not_found' } | { status: 'pending' };

/** One gift card service definition (`mock-gift-card`, ...). */
export interface GiftCardConnector {
  /** The `gift_card_service_definition_id`. */
  readonly id: string;
  /** The card's available balance, or why it cannot be used. */
  balance(input: GiftCardBalanceInput): Promise<GiftCardBalanceOutcome>;
  /** Takes `amount` from the card. */
  redeem(input: GiftCardRedeemInput): Promise<GiftCardRedeemOutcome>;
  /** Gives back part or all of a redemption. */
  refund(input: GiftCardRefundInput): Promise<GiftCardRefundOutcome>;
  /** Cancels a whole redemption (the payment it funded failed). */
  reverse(input: GiftCardReverseInput): Promise<GiftCardReverseOutcome>;
  /** Activates a card that was not active yet, loading `value` or the card's face value. */
  activate(input: GiftCardActivateInput): Promise<GiftCardActivateOutcome>;
  /** Issues a new virtual card of `amount` with the design `theme`. */
  issue(input: GiftCardIssueInput): Promise<GiftCardIssueOutcome>;
  /** The status query of a redemption, refund or reversal, by its idempotency key; it moves no money. */
  status<O extends keyof GiftCardMoneyOutcomes>(
    input: GiftCardStatusInput<O>,
  ): Promise<GiftCardStatusOutcome<GiftCardMoneyOutcomes[O]>>;
}
