import { describe, expect, it } from 'vitest';
import {
  FAILING_ISSUANCE_THEME,
  MockGiftCardService,
  TEST_GIFT_CARD_PIN,
  TEST_GIFT_CARDS,
  UNACTIVATED_GIFT_CARD_PREFIX,
  lookupTestGiftCard,
} from './mock-gift-card.ts';

const service = new MockGiftCardService();
const DEFAULT = TEST_GIFT_CARDS[0]!.number;
const SMALL = TEST_GIFT_CARDS[1]!.number;
const pin = TEST_GIFT_CARD_PIN;

describe('happy', () => {
  it('answers each test card as the table says', async () => {
    for (const card of TEST_GIFT_CARDS) {
      const outcome = await service.balance({ number: card.number, pin, alreadyRedeemed: 0 });
      if (card.refusal) expect(outcome).toMatchObject({ ok: false, errorCode: card.refusal });
      else
        expect(outcome).toEqual({
          ok: true,
          balance: card.balance,
          currency: card.currency,
          expirationDate: card.expirationDate,
        });
    }
    expect(TEST_GIFT_CARDS.every((card) => /^\d{16,19}$/.test(card.number))).toBe(true);
  });

  it('subtracts what was already redeemed, never below zero', async () => {
    expect(await service.balance({ number: DEFAULT, pin, alreadyRedeemed: 2500 })).toMatchObject({
      ok: true,
      balance: 7500,
    });
    expect(await service.balance({ number: SMALL, pin, alreadyRedeemed: 900 })).toMatchObject({ ok: true, balance: 0 });
  });

  it('gives any other number a fixed balance of 1.00 to 100.00 USD and takes any pin', async () => {
    const one = await service.balance({ number: '9999888877776666', pin: 'anything', alreadyRedeemed: 0 });
    expect(one).toEqual(await service.balance({ number: '9999888877776666', pin: 'x', alreadyRedeemed: 0 }));
    expect(
      one.ok && one.balance >= 100 && one.balance <= 10000 && one.balance % 100 === 0 && one.currency === 'USD',
    ).toBe(true);
    expect(lookupTestGiftCard('9999888877776666').balance).toBe(one.ok ? one.balance : -1);
  });

  it('redeems within the balance with an id fixed by the idempotency key; refunds and reverses it', async () => {
    const input = { number: DEFAULT, pin, amount: 4000, currency: 'USD', idempotencyKey: 'r-1', alreadyRedeemed: 1000 };
    const first = await service.redeem(input);
    expect(first).toMatchObject({ ok: true, remainingBalance: 5000 });
    expect(await service.redeem(input)).toEqual(first);
    if (!first.ok) throw new Error('unreachable');
    expect(
      await service.refund({ redemptionId: first.redemptionId, amount: 100, idempotencyKey: 'f-1' }),
    ).toMatchObject({ ok: true });
    expect(await service.reverse({ redemptionId: first.redemptionId, idempotencyKey: 'v-1' })).toEqual({ ok: true });
  });
});

describe('happy', () => {
  const INACTIVE = TEST_GIFT_CARDS[3]!.number;
  const fresh = `${UNACTIVATED_GIFT_CARD_PREFIX}000000000042`;
  const activate = (number: string, extra: object = {}) =>
    service.activate({ number, pin: null, value: null, activated: null, idempotencyKey: 'a-1', ...extra });

  it('activates an unactivated card with its face value or the given value, with an id fixed by the key', async () => {
    expect(await activate(INACTIVE, { pin })).toEqual({
      ok: true,
      activationId: expect.stringMatching(/^mock-gca-/),
      balance: 2500,
      currency: 'USD',
      expirationDate: null,
    });
    const given = await activate(fresh, { value: { amount: 1234, currency: 'GBP' } });
    expect(given).toMatchObject({ ok: true, balance: 1234, currency: 'GBP' });
    expect(await activate(fresh, { value: { amount: 1234, currency: 'GBP' } })).toEqual(given);
    expect(await activate(fresh)).toMatchObject({
      ok: true,
      balance: lookupTestGiftCard(fresh).balance,
      currency: 'USD',
    });
  });

  it('answers an unactivated card as inactive until activated, then with the activated value', async () => {
    expect(await service.balance({ number: fresh, pin: 'p', alreadyRedeemed: 0 })).toMatchObject({
      ok: false,
      errorCode: 'inactive_card',
    });
    const activated = { amount: 700, currency: 'EUR' };
    expect(await service.balance({ number: fresh, pin: 'p', alreadyRedeemed: 200, activated })).toMatchObject({
      ok: true,
      balance: 500,
      currency: 'EUR',
    });
    expect(
      await service.redeem({
        number: INACTIVE,
        pin,
        amount: 700,
        currency: 'EUR',
        idempotencyKey: 'k',
        alreadyRedeemed: 0,
        activated,
      }),
    ).toMatchObject({ ok: true, remainingBalance: 0 });
  });

  it('issues a virtual card under the sandbox URL, with an id fixed by the key', async () => {
    const input = {
      theme: 'birthday',
      amount: 5000,
      currency: 'USD',
      idempotencyKey: 'i-1',
      sandboxBaseUrl: 'https://svc.test',
    };
    const issued = await service.issue(input);
    expect(issued).toEqual({
      ok: true,
      issuanceId: expect.stringMatching(/^mock-gci-/),
      url: expect.stringMatching(/^https:\/\/svc\.test\/sandbox\/gift-cards\/mock-gci-/),
    });
    expect(await service.issue(input)).toEqual(issued);
    expect(await service.issue({ ...input, idempotencyKey: 'i-2' })).not.toEqual(issued);
  });
});

describe('status queries (issue 48)', () => {
  it('answers each redemption, refund and reversal it received with its first answer, and not_found for any other key', async () => {
    const mock = new MockGiftCardService();
    expect(await mock.status({ operation: 'redeem', idempotencyKey: 'r-9' })).toEqual({ status: 'not_found' });
    const redeemed = await mock.redeem({
      number: DEFAULT,
      pin,
      amount: 1000,
      currency: 'USD',
      idempotencyKey: 'r-9',
      alreadyRedeemed: 0,
    });
    const refused = await mock.redeem({
      number: SMALL,
      pin,
      amount: 501,
      currency: 'USD',
      idempotencyKey: 'r-10',
      alreadyRedeemed: 0,
    });
    expect(await mock.status({ operation: 'redeem', idempotencyKey: 'r-9' })).toEqual({
      status: 'done',
      outcome: redeemed,
    });
    expect(await mock.status({ operation: 'redeem', idempotencyKey: 'r-10' })).toEqual({
      status: 'done',
      outcome: refused,
    });
    if (!redeemed.ok) throw new Error('unreachable');
    expect(await mock.status({ operation: 'refund', idempotencyKey: 'f-9' })).toEqual({ status: 'not_found' });
    const refunded = await mock.refund({ redemptionId: redeemed.redemptionId, amount: 100, idempotencyKey: 'f-9' });
    expect(await mock.status({ operation: 'refund', idempotencyKey: 'f-9' })).toEqual({
      status: 'done',
      outcome: refunded,
    });
    expect(await mock.status({ operation: 'reverse', idempotencyKey: 'v-9' })).toEqual({ status: 'not_found' });
    await mock.reverse({ redemptionId: redeemed.redemptionId, idempotencyKey: 'v-9' });
    expect(await mock.status({ operation: 'reverse', idempotencyKey: 'v-9' })).toEqual({
      status: 'done',
      outcome: { ok: true },
    });
    // A key is one call of one kind, and another simulator (another ledger) received none of them.
    expect(await mock.status({ operation: 'refund', idempotencyKey: 'r-9' })).toEqual({ status: 'not_found' });
    expect(await new MockGiftCardService().status({ operation: 'redeem', idempotencyKey: 'r-9' })).toEqual({
      status: 'not_found',
    });
  });
});

describe('errors', () => {
  it('refuses to activate active, expired, failing or wrongly identified cards', async () => {
    const activate = (number: string, extra: object = {}) =>
      service.activate({ number, pin, value: null, activated: null, idempotencyKey: 'k', ...extra });
    expect(await activate(DEFAULT)).toMatchObject({ ok: false, errorCode: 'invalid_gift_card', alreadyActive: true });
    expect(await activate('9999888877776666')).toMatchObject({ ok: false, alreadyActive: true });
    expect(await activate(TEST_GIFT_CARDS[3]!.number, { activated: { amount: 1, currency: 'USD' } })).toMatchObject({
      ok: false,
      alreadyActive: true,
    });
    expect(await activate(TEST_GIFT_CARDS[2]!.number)).toMatchObject({ ok: false, errorCode: 'expired_card' });
    expect(await activate(TEST_GIFT_CARDS[6]!.number)).toMatchObject({ ok: false, errorCode: 'service_error' });
    expect(await activate(TEST_GIFT_CARDS[3]!.number, { pin: null })).toMatchObject({
      ok: false,
      errorCode: 'invalid_gift_card',
    });
    expect(await activate('12345')).toMatchObject({ ok: false, errorCode: 'invalid_gift_card' });
  });

  it('refuses to issue the failing theme and a zero amount', async () => {
    const input = {
      theme: FAILING_ISSUANCE_THEME,
      amount: 100,
      currency: 'USD',
      idempotencyKey: 'k',
      sandboxBaseUrl: 'https://svc.test',
    };
    expect(await service.issue(input)).toMatchObject({ ok: false, errorCode: 'service_error' });
    expect(await service.issue({ ...input, theme: 'birthday', amount: 0 })).toMatchObject({
      ok: false,
      errorCode: 'invalid_amount',
    });
  });

  it('refuses a wrong pin, a malformed number, and expired or inactive cards', async () => {
    expect(await service.balance({ number: DEFAULT, pin: '0000', alreadyRedeemed: 0 })).toMatchObject({
      ok: false,
      errorCode: 'invalid_gift_card',
      rawErrorCode: 'MOCK_INVALID_GIFT_CARD',
    });
    expect(await service.balance({ number: '123', pin, alreadyRedeemed: 0 })).toMatchObject({
      ok: false,
      errorCode: 'invalid_gift_card',
    });
    expect(
      await service.redeem({
        number: TEST_GIFT_CARDS[2]!.number,
        pin,
        amount: 1,
        currency: 'USD',
        idempotencyKey: 'k',
        alreadyRedeemed: 0,
      }),
    ).toMatchObject({ errorCode: 'expired_card' });
  });

  it('refuses an amount above the balance, another currency, a zero amount, and the failing card', async () => {
    const redeem = (number: string, amount: number, currency = 'USD', alreadyRedeemed = 0) =>
      service.redeem({ number, pin, amount, currency, idempotencyKey: 'k', alreadyRedeemed });
    expect(await redeem(SMALL, 501)).toMatchObject({ errorCode: 'insufficient_funds' });
    expect(await redeem(DEFAULT, 9001, 'USD', 1000)).toMatchObject({ errorCode: 'insufficient_funds' });
    expect(await redeem(TEST_GIFT_CARDS[4]!.number, 100)).toMatchObject({ errorCode: 'incorrect_currency' });
    expect(await redeem(DEFAULT, 0)).toMatchObject({ errorCode: 'invalid_amount' });
    expect(await redeem(TEST_GIFT_CARDS[5]!.number, 100)).toMatchObject({ errorCode: 'service_error' });
    expect(await service.refund({ redemptionId: 'other', amount: 1, idempotencyKey: 'k' })).toMatchObject({
      ok: false,
    });
  });
});

describe('security', () => {
  it('never puts the number or pin in an outcome', async () => {
    const outcomes = [
      await service.balance({ number: DEFAULT, pin, alreadyRedeemed: 0 }),
      await service.balance({ number: DEFAULT, pin: '9876', alreadyRedeemed: 0 }),
      await service.redeem({
        number: DEFAULT,
        pin,
        amount: 1,
        currency: 'USD',
        idempotencyKey: 'k',
        alreadyRedeemed: 0,
      }),
    ];
    const text = JSON.stringify(outcomes);
    expect(text).not.toContain(DEFAULT);
    expect(text).not.toContain('"9876"');
  });
});
