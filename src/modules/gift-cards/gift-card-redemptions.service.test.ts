import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../test/helpers/factories.ts';
import { TEST_GIFT_CARD_PIN as PIN, TEST_GIFT_CARDS } from '../../connectors/gift-cards/mock-gift-card.ts';
import type { RequestContext } from '../../context.ts';
import { withTransaction } from '../../db/transaction.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { listGiftCardBalances } from './gift-card-balances.service.ts';
import * as giftCards from './gift-cards.service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const [DEFAULT, SMALL, , , , FAILING] = TEST_GIFT_CARDS.map((card) => card.number);
const ctxOf = (merchantAccountId: string) =>
  ({
    deps: t.deps,
    requestId: 'test',
    log: t.app.log,
    principal: null,
    merchantAccountId,
    operationId: 'test',
    successStatus: 200,
    idempotency: null,
  }) as RequestContext;

async function redeem(ctx: RequestContext, items: giftCards.TransactionGiftCardItem[], currency = 'USD') {
  const transactionId = uuidv7();
  const { instruments, recorded } = await withTransaction(t.deps.db, async (tx) => {
    const instruments = await giftCards.resolveTransactionGiftCards(tx, ctx, items);
    return { instruments, recorded: await giftCards.recordGiftCardRedemptions(tx, ctx, transactionId, instruments) };
  });
  const results = [];
  for (const [index, redemption] of recorded.entries())
    results.push(await giftCards.redeemGiftCard(ctx, redemption.id, instruments[index]!, currency));
  return { transactionId, instruments, results };
}
const redeemedTransaction = async (ctx: RequestContext, redemptionId: string) =>
  (
    await t.deps.db
      .selectFrom('gift_card_redemptions')
      .select('transaction_id')
      .where('merchant_account_id', '=', ctx.merchantAccountId)
      .where('id', '=', redemptionId)
      .executeTakeFirst()
  )?.transaction_id;
const balanceOf = async (ctx: RequestContext, number: string) =>
  (await listGiftCardBalances(ctx, { items: [{ number, pin: PIN }] })).items[0]!.balance;

describe('happy', () => {
  it('resolves given and stored cards (with the stored card buyer), redeems them and lowers the balance', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const ctx = ctxOf(merchant);
    const buyer = (
      await t.request({ method: 'POST', url: '/buyers', payload: { display_name: 'B' }, merchantAccountId: merchant })
    ).json();
    const stored = (
      await t.request({
        method: 'POST',
        url: '/gift-cards',
        payload: { number: SMALL, pin: PIN, buyer_id: buyer.id },
        merchantAccountId: merchant,
      })
    ).json();
    const { transactionId, instruments, results } = await redeem(ctx, [
      { number: DEFAULT!, pin: PIN, amount: 2500 },
      { id: stored.id, amount: 500 },
    ]);
    expect(instruments.map((i) => [i.giftCardId, i.buyerId, i.last4, i.number])).toEqual([
      [null, null, '0001', DEFAULT],
      [stored.id, buyer.id, '0002', SMALL],
    ]);
    expect(results).toEqual([
      expect.objectContaining({
        type: 'gift-card-redemption',
        status: 'succeeded',
        amount: 2500,
        refunded_amount: 0,
        gift_card_service_redemption_id: expect.stringMatching(/^mock-gcr-/),
        gift_card: { type: 'gift-card', id: null, bin: '603628', sub_bin: '100', last4: '0001' },
      }),
      expect.objectContaining({
        status: 'succeeded',
        amount: 500,
        gift_card: expect.objectContaining({ id: stored.id }),
      }),
    ]);
    expect(await balanceOf(ctx, DEFAULT!)).toBe(7500);
    expect(await balanceOf(ctx, SMALL!)).toBe(0);
    expect(await giftCards.listTransactionGiftCardRedemptions(t.deps.db, ctx, transactionId)).toEqual(results);
    // Redeeming a settled redemption again changes nothing.
    expect(await giftCards.redeemGiftCard(ctx, results[0]!.id, instruments[0]!, 'USD')).toEqual(results[0]);
  });

  it('refunds part of a redemption, then reverses the rest, giving the balance back', async () => {
    const ctx = ctxOf(await createMerchantAccount(t.deps));
    const { results } = await redeem(ctx, [{ number: DEFAULT!, pin: PIN, amount: 4000 }]);
    const reserved = await withTransaction(t.deps.db, (tx) =>
      giftCards.reserveGiftCardRefund(tx, ctx, results[0]!.id, 1000),
    );
    expect(reserved).toMatchObject({ refunded_amount: 1000 });
    expect(await giftCards.sendGiftCardRefund(ctx, reserved, 1000, 'refund-1')).toMatchObject({ ok: true });
    expect(await balanceOf(ctx, DEFAULT!)).toBe(7000);
    await expect(
      withTransaction(t.deps.db, (tx) => giftCards.reserveGiftCardRefund(tx, ctx, results[0]!.id, 3001)),
    ).rejects.toMatchObject({ code: 'bad_request' });
    await giftCards.reverseGiftCardRedemption(ctx, results[0]!.id);
    expect(
      await giftCards.listTransactionGiftCardRedemptions(
        t.deps.db,
        ctx,
        (await redeemedTransaction(ctx, results[0]!.id))!,
      ),
    ).toEqual([expect.objectContaining({ refunded_amount: 4000 })]);
    expect(await balanceOf(ctx, DEFAULT!)).toBe(10000);
  });
});

describe('errors', () => {
  it('records refusals: insufficient funds after earlier redemptions, service errors, other currency', async () => {
    const ctx = ctxOf(await createMerchantAccount(t.deps));
    await redeem(ctx, [{ number: SMALL!, pin: PIN, amount: 400 }]);
    const { results } = await redeem(ctx, [
      { number: SMALL!, pin: PIN, amount: 200 },
      { number: FAILING!, pin: PIN, amount: 100 },
    ]);
    expect(results.map((r) => [r.status, r.error_code])).toEqual([
      ['failed', 'insufficient_funds'],
      ['failed', 'service_error'],
    ]);
    expect(results[0]).toMatchObject({
      raw_error_code: 'MOCK_INSUFFICIENT_FUNDS',
      raw_error_message: expect.any(String),
      gift_card_service_redemption_id: null,
    });
    expect((await redeem(ctx, [{ number: DEFAULT!, pin: PIN, amount: 100 }], 'EUR')).results[0]).toMatchObject({
      status: 'failed',
      error_code: 'incorrect_currency',
    });
    await expect(
      withTransaction(t.deps.db, (tx) => giftCards.reserveGiftCardRefund(tx, ctx, results[0]!.id, 1)),
    ).rejects.toMatchObject({ code: 'bad_request' });
  });

  it('refuses the same card twice, too many cards, bad amounts and unknown stored cards', async () => {
    const ctx = ctxOf(await createMerchantAccount(t.deps));
    const resolve = (items: giftCards.TransactionGiftCardItem[]) =>
      giftCards.resolveTransactionGiftCards(t.deps.db, ctx, items);
    await expect(
      resolve([
        { number: DEFAULT!, pin: PIN, amount: 1 },
        { number: DEFAULT!, pin: PIN, amount: 2 },
      ]),
    ).rejects.toMatchObject({ code: 'bad_request', details: [{ pointer: '/gift_cards/1' }] });
    await expect(
      resolve(Array.from({ length: 11 }, (_, i) => ({ number: `${1000000000000000 + i}`, pin: PIN, amount: 1 }))),
    ).rejects.toMatchObject({ details: [{ type: 'max_gift_cards_reached' }] });
    await expect(resolve([{ number: DEFAULT!, pin: PIN, amount: 0 }])).rejects.toMatchObject({
      details: [{ pointer: '/gift_cards/0/amount' }],
    });
    await expect(resolve([{ id: '018f0000-0000-7000-8000-000000000000', amount: 1 }])).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});

describe('security', () => {
  it("does not resolve another merchant account's stored card", async () => {
    const mine = await createMerchantAccount(t.deps);
    const { id } = (
      await t.request({
        method: 'POST',
        url: '/gift-cards',
        payload: { number: DEFAULT, pin: PIN },
        merchantAccountId: mine,
      })
    ).json();
    await expect(
      giftCards.resolveTransactionGiftCards(t.deps.db, ctxOf(await createMerchantAccount(t.deps)), [{ id, amount: 1 }]),
    ).rejects.toMatchObject({ code: 'not_found' });
  });
});
