import { createHash } from 'node:crypto';
import type {
  GiftCardActivated,
  GiftCardActivateInput,
  GiftCardActivateOutcome,
  GiftCardBalanceInput,
  GiftCardBalanceOutcome,
  GiftCardConnector,
  GiftCardErrorCode,
  GiftCardFailure,
  GiftCardIssueInput,
  GiftCardIssueOutcome,
  GiftCardRedeemInput,
  GiftCardRedeemOutcome,
  GiftCardRefundInput,
  GiftCardRefundOutcome,
  GiftCardReverseInput,
  GiftCardReverseOutcome,
  GiftCardMoneyOutcomes,
  GiftCardStatusInput,
  GiftCardStatusOutcome,
} from './gift-card-connector.ts';
import { memoryLedger, type SimulatorLedger } from '../simulator-ledger.ts';

export const MOCK_GIFT_CARD_DEFINITION_ID = 'mock-gift-card';

/** The pin of every test gift card below; any other pin is `invalid_gift_card`. */
export const TEST_GIFT_CARD_PIN = '1234';

export interface TestGiftCard {
  number: string;
  /** Face value in minor units of `currency` (before our own redemptions). */
  balance: number;
  currency: string;
  expirationDate: string | null;
  /** Refused on every call with this code. */
  refusal?: GiftCardErrorCode;
  /** Balance works, redemptions are refused with this code. */
  redeemRefusal?: GiftCardErrorCode;
  /** Not active until `POST /gift-cards/activations` activates it (`refusal` applies until then). */
  activatable?: boolean;
  /** Activation is refused with this code. */
  activateRefusal?: GiftCardErrorCode;
  /** What docs/sandbox.md says it is for. */
  description: string;
}

/** The sandbox gift cards (docs/sandbox.md, "Gift cards", lists them; keep the two equal). */
export const TEST_GIFT_CARDS: readonly TestGiftCard[] = [
  {
    number: '6036281000000000001',
    balance: 10000,
    currency: 'USD',
    expirationDate: '2099-12-31T23:59:59.000Z',
    description: '100.00 USD: the default test gift card',
  },
  {
    number: '6036281000000000002',
    balance: 500,
    currency: 'USD',
    expirationDate: '2099-12-31T23:59:59.000Z',
    description: '5.00 USD: a partial payment, or `insufficient_funds` above 500',
  },
  {
    number: '6036281000000000003',
    balance: 0,
    currency: 'USD',
    expirationDate: '2020-12-31T23:59:59.000Z',
    refusal: 'expired_card',
    description: 'expired: `expired_card` on every call (cannot be stored)',
  },
  {
    number: '6036281000000000004',
    balance: 2500,
    currency: 'USD',
    expirationDate: null,
    refusal: 'inactive_card',
    activatable: true,
    description:
      'not activated: `inactive_card` until activated (25.00 USD unless the activation gives an amount), then as activated',
  },
  {
    number: '6036281000000000005',
    balance: 5000,
    currency: 'EUR',
    expirationDate: '2099-12-31T23:59:59.000Z',
    description: '50.00 EUR: `incorrect_currency` for any other currency',
  },
  {
    number: '6036281000000000006',
    balance: 10000,
    currency: 'USD',
    expirationDate: null,
    redeemRefusal: 'service_error',
    description: 'balance 100.00 USD, but every redemption fails with `service_error`',
  },
  {
    number: '6036281000000000007',
    balance: 2500,
    currency: 'USD',
    expirationDate: null,
    refusal: 'inactive_card',
    activatable: true,
    activateRefusal: 'service_error',
    description: 'not activated, and activating it fails with `service_error` (502)',
  },
];

/**
 * Numbers with this prefix (16 to 19 digits) are unactivated cards that take any pin, or none:
 * `inactive_card` until activated, then as activated. Any other number is already active.
 */
export const UNACTIVATED_GIFT_CARD_PREFIX = '6036282';

/** Virtual cards of this theme are refused with `service_error` (the error path of issuances). */
export const FAILING_ISSUANCE_THEME = 'sandbox-failure';

/** Other numbers: a face value of 1.00 to 100.00 USD (whole units), fixed by the number. */
const OTHER_CARD_CURRENCY = 'USD';
const REDEMPTION_PREFIX = 'mock-gcr-';
const ALREADY_ACTIVE: GiftCardFailure & { alreadyActive: true } = {
  ok: false,
  errorCode: 'invalid_gift_card',
  rawErrorCode: 'MOCK_CARD_ALREADY_ACTIVE',
  rawErrorMessage: 'Card is already active',
  alreadyActive: true,
};

const RAW_MESSAGES: Record<GiftCardErrorCode, string> = {
  invalid_gift_card: 'Card number or PIN is not valid',
  expired_card: 'Card has expired',
  inactive_card: 'Card is not active',
  invalid_service_credentials: 'Invalid credentials',
  invalid_amount: 'Amount must be more than zero',
  incorrect_currency: 'Currency does not match the card',
  insufficient_funds: 'Insufficient balance',
  invalid_service_configuration: 'Invalid configuration',
  operation_canceled: 'Operation canceled',
  service_error: 'Simulated service error',
  service_network_error: 'Simulated network error',
  unknown_error: 'Unknown error',
  max_gift_cards_reached: 'Too many gift cards',
};

/** The simulator's refusal, with a raw code in the style of a provider (`MOCK_<CODE>`). */
export function failure(errorCode: GiftCardErrorCode): GiftCardFailure {
  return {
    ok: false,
    errorCode,
    rawErrorCode: `MOCK_${errorCode.toUpperCase()}`,
    rawErrorMessage: RAW_MESSAGES[errorCode],
  };
}

const digest = (value: string) => createHash('sha256').update(value).digest('hex');

/** A card of the table, or the deterministic card any other number is. */
export function lookupTestGiftCard(number: string): TestGiftCard {
  const known = TEST_GIFT_CARDS.find((card) => card.number === number);
  if (known) return known;
  const units = (parseInt(digest(number).slice(0, 8), 16) % 100) + 1;
  const card = {
    number,
    balance: units * 100,
    currency: OTHER_CARD_CURRENCY,
    expirationDate: null,
    description: 'any other number',
  };
  return number.startsWith(UNACTIVATED_GIFT_CARD_PREFIX)
    ? { ...card, refusal: 'inactive_card', activatable: true, description: 'unactivated' }
    : card;
}

/** Test cards need their pin (`requirePin`: even when activating); any other number takes any pin. */
function knownCard(input: { number: string; pin: string | null }, requirePin: boolean): TestGiftCard | GiftCardFailure {
  const known = TEST_GIFT_CARDS.some((card) => card.number === input.number);
  if (!/^\d{16,19}$/.test(input.number) || (requirePin && !input.pin) || (known && input.pin !== TEST_GIFT_CARD_PIN))
    return failure('invalid_gift_card');
  return lookupTestGiftCard(input.number);
}

/** A card usable for balance and redemption: an activatable card once activated takes its activation's value. */
function usableCard(input: {
  number: string;
  pin: string;
  activated?: GiftCardActivated | null | undefined;
}): TestGiftCard | GiftCardFailure {
  const card = knownCard(input, true);
  if ('ok' in card) return card;
  if (card.activatable && input.activated)
    return { ...card, refusal: undefined, balance: input.activated.amount, currency: input.activated.currency };
  return card.refusal ? failure(card.refusal) : card;
}

const available = (card: TestGiftCard, alreadyRedeemed: number) =>
  Math.max(0, card.balance - Math.max(0, alreadyRedeemed));

/**
 * The built-in sandbox gift card service: pure and deterministic. It keeps no state: the balance
 * is the card's face value minus `alreadyRedeemed`, which the gift cards service sums from its own
 * redemption records (decision 0043). Redemption and refund ids derive from
 * the idempotency key, so a retried call returns the same id.
 */
export class MockGiftCardService implements GiftCardConnector {
  readonly id = MOCK_GIFT_CARD_DEFINITION_ID;

  /**
   * `ledger`: where the simulator notes each redemption, refund and reversal it receives, with its
   * answer, before answering (the server's is the database, so it outlives a crash); `status`
   * answers from it, and a call it never received is `not_found`.
   */
  constructor(private readonly ledger: SimulatorLedger = memoryLedger()) {}

  private async answer<O extends keyof GiftCardMoneyOutcomes>(
    operation: O,
    idempotencyKey: string,
    outcome: GiftCardMoneyOutcomes[O],
  ): Promise<GiftCardMoneyOutcomes[O]> {
    await this.ledger.received({ service: this.id, operation, idempotencyKey }, outcome);
    return outcome;
  }

  /** The first answer the simulator gave to the call with this key, or `not_found`; never `pending` (it answers at once). */
  async status<O extends keyof GiftCardMoneyOutcomes>(
    input: GiftCardStatusInput<O>,
  ): Promise<GiftCardStatusOutcome<GiftCardMoneyOutcomes[O]>> {
    const found = await this.ledger.lookup({
      service: this.id,
      operation: input.operation,
      idempotencyKey: input.idempotencyKey,
    });
    return found ? { status: 'done', outcome: found.answer as GiftCardMoneyOutcomes[O] } : { status: 'not_found' };
  }

  async balance(input: GiftCardBalanceInput): Promise<GiftCardBalanceOutcome> {
    const card = usableCard(input);
    if ('ok' in card) return card;
    return {
      ok: true,
      balance: available(card, input.alreadyRedeemed),
      currency: card.currency,
      expirationDate: card.expirationDate,
    };
  }

  async redeem(input: GiftCardRedeemInput): Promise<GiftCardRedeemOutcome> {
    return this.answer('redeem', input.idempotencyKey, this.redemptionOf(input));
  }

  private redemptionOf(input: GiftCardRedeemInput): GiftCardRedeemOutcome {
    const card = usableCard(input);
    if ('ok' in card) return card;
    if (!Number.isInteger(input.amount) || input.amount <= 0) return failure('invalid_amount');
    if (input.currency !== card.currency) return failure('incorrect_currency');
    if (card.redeemRefusal) return failure(card.redeemRefusal);
    const left = available(card, input.alreadyRedeemed);
    if (input.amount > left) return failure('insufficient_funds');
    return {
      ok: true,
      redemptionId: `${REDEMPTION_PREFIX}${digest(`redeem:${input.idempotencyKey}`).slice(0, 24)}`,
      remainingBalance: left - input.amount,
    };
  }

  async refund(input: GiftCardRefundInput): Promise<GiftCardRefundOutcome> {
    const outcome: GiftCardRefundOutcome = !input.redemptionId.startsWith(REDEMPTION_PREFIX)
      ? failure('invalid_gift_card')
      : !Number.isInteger(input.amount) || input.amount <= 0
        ? failure('invalid_amount')
        : { ok: true, refundId: `mock-gcf-${digest(`refund:${input.idempotencyKey}`).slice(0, 24)}` };
    return this.answer('refund', input.idempotencyKey, outcome);
  }

  async reverse(input: GiftCardReverseInput): Promise<GiftCardReverseOutcome> {
    return this.answer(
      'reverse',
      input.idempotencyKey,
      input.redemptionId.startsWith(REDEMPTION_PREFIX) ? { ok: true } : failure('invalid_gift_card'),
    );
  }

  /** Activatable cards activate once (`activated` says whether we did already); any other card is already active. */
  async activate(input: GiftCardActivateInput): Promise<GiftCardActivateOutcome> {
    const card = knownCard(input, false);
    if ('ok' in card) return card;
    if (card.refusal && !card.activatable) return failure(card.refusal);
    if (!card.activatable || input.activated) return ALREADY_ACTIVE;
    if (card.activateRefusal) return failure(card.activateRefusal);
    const value = input.value ?? { amount: card.balance, currency: card.currency };
    return {
      ok: true,
      activationId: `mock-gca-${digest(`activate:${input.idempotencyKey}`).slice(0, 24)}`,
      balance: value.amount,
      currency: value.currency,
      expirationDate: card.expirationDate,
    };
  }

  /** Any theme but `FAILING_ISSUANCE_THEME`; the card lives under our sandbox URL. */
  async issue(input: GiftCardIssueInput): Promise<GiftCardIssueOutcome> {
    if (input.theme === FAILING_ISSUANCE_THEME) return failure('service_error');
    if (!Number.isInteger(input.amount) || input.amount <= 0) return failure('invalid_amount');
    const issuanceId = `mock-gci-${digest(`issue:${input.idempotencyKey}`).slice(0, 24)}`;
    return { ok: true, issuanceId, url: `${input.sandboxBaseUrl}/sandbox/gift-cards/${issuanceId}` };
  }
}
