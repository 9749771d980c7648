import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { authorized, card, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';
import { reconcileDueAttempts } from '../reconcile/reconcile.service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const GIFT = { number: '6036281000000000001', pin: '1234' };

describe('happy', () => {
  it('redeems a gift card and authorizes the card for the rest', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m, { amount: 3000, gift_cards: [{ ...GIFT, amount: 1000 }] });
    expect(txn).toMatchObject({
      status: 'authorization_succeeded',
      amount: 3000,
      authorized_amount: 2000,
      multi_tender: true,
    });
    expect(txn.gift_card_redemptions).toHaveLength(1);
    expect(txn.gift_card_redemptions[0]).toMatchObject({
      type: 'gift-card-redemption',
      status: 'succeeded',
      amount: 1000,
      refunded_amount: 0,
      gift_card: { last4: '0001' },
    });
    expect(txn.gift_card_service).toMatchObject({
      type: 'gift-card-service',
      gift_card_service_definition_id: 'mock-gift-card',
    });
    const listed = (await t.request({ method: 'GET', url: '/transactions', merchantAccountId: m })).json();
    expect(listed.items[0].gift_card_redemptions).toEqual(txn.gift_card_redemptions);
    const capture = await t.request({
      method: 'POST',
      url: `/transactions/${txn.id}/capture`,
      merchantAccountId: m,
      payload: {},
      headers: { prefer: 'resource=transaction' },
    });
    expect(capture.json()).toMatchObject({ captured_amount: 2000, status: 'capture_succeeded' });
    const all = await t.request({ method: 'POST', url: `/transactions/${txn.id}/refunds/all`, merchantAccountId: m });
    expect(all.statusCode, all.body).toBe(201);
    const items = all.json().items;
    expect(items.map((r: { target_type: string; amount: number }) => [r.target_type, r.amount]).sort()).toEqual([
      ['gift-card-redemption', 1000],
      ['payment-method', 2000],
    ]);
    const after = (await t.request({ method: 'GET', url: `/transactions/${txn.id}`, merchantAccountId: m })).json();
    expect(after).toMatchObject({ refunded_amount: 2000 });
    expect(after.gift_card_redemptions[0].refunded_amount).toBe(1000);
  });
});

describe('gift cards only', () => {
  it('completes a transaction the gift cards pay in full, without a payment service call', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const res = await t.request({
      method: 'POST',
      url: '/transactions',
      merchantAccountId: m,
      payload: { amount: 1500, currency: 'USD', gift_cards: [{ ...GIFT, amount: 1500 }] },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      status: 'capture_succeeded',
      intent_outcome: 'succeeded',
      method: 'gift-card',
      payment_service: null,
      payment_method: null,
      authorized_amount: 0,
      multi_tender: true,
    });
    expect(res.json().gift_card_redemptions[0]).toMatchObject({ status: 'succeeded', amount: 1500 });
    const all = await t.request({
      method: 'POST',
      url: `/transactions/${res.json().id}/refunds/all`,
      merchantAccountId: m,
    });
    expect(all.json().items).toEqual([
      expect.objectContaining({ target_type: 'gift-card-redemption', amount: 1500, status: 'succeeded' }),
    ]);
  });

  it('needs the gift cards to add up to amount', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const res = await t.request({
      method: 'POST',
      url: '/transactions',
      merchantAccountId: m,
      payload: { amount: 1500, currency: 'USD', gift_cards: [{ ...GIFT, amount: 1000 }] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].message).toContain('must add up to amount');
  });
});

describe('errors', () => {
  it('does not charge the card when a gift card fails, and gives back what was redeemed', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m, {
      amount: 3000,
      gift_cards: [
        { ...GIFT, amount: 1000 },
        { number: '6036281000000000002', pin: '1234', amount: 900 },
      ],
    });
    expect(txn).toMatchObject({
      status: 'authorization_declined',
      error_code: 'insufficient_funds',
      authorized_amount: 0,
    });
    expect(
      txn.gift_card_redemptions.map((r: { status: string; refunded_amount: number }) => [r.status, r.refunded_amount]),
    ).toEqual([
      ['succeeded', 1000],
      ['failed', 0],
    ]);
  });

  it('reverses the gift cards when the card is declined', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m, {
      amount: 3000,
      payment_method: card('4000000000000002'),
      gift_cards: [{ ...GIFT, amount: 1000 }],
    });
    expect(txn).toMatchObject({ status: 'authorization_declined', error_code: 'do_not_honor' });
    expect(txn.gift_card_redemptions[0]).toMatchObject({ status: 'succeeded', refunded_amount: 1000 });
  });

  it('refuses gift cards that cover the whole amount', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const res = await t.request({
      method: 'POST',
      url: '/transactions',
      merchantAccountId: m,
      payload: { amount: 1000, currency: 'USD', payment_method: card(), gift_cards: [{ ...GIFT, amount: 1000 }] },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].pointer).toBe('/gift_cards');
  });
});

/** Every path that ends a multi-tender payment without its payment method gives the gift cards back. */
describe('gift cards given back', () => {
  const pathOf = (url: string) => new URL(url).pathname;
  const redemptionsOf = async (m: string, id: string) =>
    (await t.request({ method: 'GET', url: `/transactions/${id}`, merchantAccountId: m })).json();

  async function redirectPending() {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const service = await t.request({
      method: 'POST',
      url: '/payment-services',
      merchantAccountId: m,
      payload: {
        display_name: 'Bank',
        payment_service_definition_id: 'mock-paybybank',
        fields: [{ key: 'merchant_id', value: 'pbb' }],
        accepted_currencies: ['USD'],
        accepted_countries: ['US'],
      },
    });
    expect(service.statusCode, service.body).toBe(201);
    const txn = await authorized(t, m, {
      amount: 3000,
      payment_method: {
        method: 'paybybank',
        country: 'US',
        currency: 'USD',
        redirect_url: 'https://shop.example/return',
      },
      gift_cards: [{ ...GIFT, amount: 1000 }],
    });
    expect(txn).toMatchObject({ status: 'buyer_approval_pending', multi_tender: true });
    expect(txn.gift_card_redemptions[0]).toMatchObject({ status: 'succeeded', refunded_amount: 0 });
    return { m, txn };
  }

  it('when the buyer declines the redirect payment', async () => {
    const { m, txn } = await redirectPending();
    const declined = await t.app.inject({ method: 'POST', url: `${pathOf(txn.payment_method.approval_url)}/decline` });
    expect(declined.statusCode, declined.body).toBe(200);
    const after = await redemptionsOf(m, txn.id);
    expect(after).toMatchObject({ status: 'authorization_declined', error_code: 'buyer_declined' });
    expect(after.gift_card_redemptions[0]).toMatchObject({ status: 'succeeded', refunded_amount: 1000 });
  });

  it('when the redirect payment times out', async () => {
    const { m, txn } = await redirectPending();
    await reconcileDueAttempts(t.deps, new Date(Date.parse(txn.approval_expires_at) + 1000));
    const after = await redemptionsOf(m, txn.id);
    expect(after).toMatchObject({ status: 'authorization_failed', error_code: 'buyer_approval_timeout' });
    expect(after.gift_card_redemptions[0]).toMatchObject({ refunded_amount: 1000 });
  });

  it('when the payment is canceled while it waits for the buyer', async () => {
    const { m, txn } = await redirectPending();
    const canceled = await t.request({ method: 'POST', url: `/transactions/${txn.id}/cancel`, merchantAccountId: m });
    expect(canceled.statusCode, canceled.body).toBe(200);
    const after = await redemptionsOf(m, txn.id);
    expect(after).toMatchObject({ status: 'authorization_failed', error_code: 'canceled' });
    expect(after.gift_card_redemptions[0]).toMatchObject({ refunded_amount: 1000 });
  });

  it('when a challenged card payment is canceled', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t, { three_d_secure_enabled: true });
    const txn = await authorized(t, m, {
      amount: 3000,
      payment_method: card('4000000000003220'),
      gift_cards: [{ ...GIFT, amount: 1000 }],
    });
    expect(txn).toMatchObject({ status: 'buyer_approval_pending' });
    await t.request({ method: 'POST', url: `/transactions/${txn.id}/cancel`, merchantAccountId: m });
    expect((await redemptionsOf(m, txn.id)).gift_card_redemptions[0]).toMatchObject({ refunded_amount: 1000 });
  });

  it('when the card authorization is voided (a payment given up: a review declined, an order canceled)', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m, { amount: 3000, gift_cards: [{ ...GIFT, amount: 1000 }] });
    expect(txn).toMatchObject({ status: 'authorization_succeeded', authorized_amount: 2000 });
    const voided = await t.request({ method: 'POST', url: `/transactions/${txn.id}/void`, merchantAccountId: m });
    expect(voided.statusCode, voided.body).toBe(200);
    const after = await redemptionsOf(m, txn.id);
    expect(after).toMatchObject({ status: 'authorization_voided' });
    expect(after.gift_card_redemptions[0]).toMatchObject({ status: 'succeeded', refunded_amount: 1000 });
    // A second void is refused and gives nothing back twice.
    await t.request({ method: 'POST', url: `/transactions/${txn.id}/void`, merchantAccountId: m });
    expect((await redemptionsOf(m, txn.id)).gift_card_redemptions[0]).toMatchObject({ refunded_amount: 1000 });
  });

  it('not when the card authorization is found approved later (timeout, then reconciliation)', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const txn = await authorized(t, m, {
      amount: 3000,
      payment_method: card('4000000000000408'),
      gift_cards: [{ ...GIFT, amount: 1000 }],
    });
    expect(txn).toMatchObject({ status: 'processing' });
    await reconcileDueAttempts(t.deps, new Date(Date.now() + 10 * 60_000));
    const after = await redemptionsOf(m, txn.id);
    expect(after).toMatchObject({ status: 'authorization_succeeded', authorized_amount: 2000 });
    expect(after.gift_card_redemptions[0]).toMatchObject({ status: 'succeeded', refunded_amount: 0 });
  });
});
