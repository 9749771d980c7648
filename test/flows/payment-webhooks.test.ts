import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { authorized, merchantWithMockCard } from '../helpers/transactions.ts';
import { drainUntil, startReceiver, verifyWebhook, type Receiver } from '../helpers/webhook-receiver.ts';

/**
 * A payment's whole life reaches a real receiver as signed webhooks, in order: authorize →
 * capture → refund → settlement, each event written with its change (outbox) and delivered by the
 * job queue.
 */
let t: TestApp;
let receiver: Receiver;
beforeAll(async () => {
  t = await buildTestApp({ SETTLEMENT_DELAY_SECONDS: '0' });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

describe('happy', () => {
  it('delivers every event of authorize → capture → refund → settlement, signed and in order', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const sub = await t.request({
      method: 'POST',
      url: '/webhook-subscriptions',
      merchantAccountId: m,
      payload: { url: receiver.url },
    });
    expect(sub.statusCode, sub.body).toBe(201);
    const secret = sub.json().secret as string;

    const txn = await authorized(t, m, { amount: 5000 });
    expect(
      (await t.request({ method: 'POST', url: `/transactions/${txn.id}/capture`, merchantAccountId: m, payload: {} }))
        .statusCode,
    ).toBe(200);
    const refund = await t.request({
      method: 'POST',
      url: `/transactions/${txn.id}/refunds`,
      merchantAccountId: m,
      payload: { amount: 1200 },
    });
    expect(refund.statusCode).toBe(201);
    const mine = () => receiver.received.filter((r) => r.json.merchant_account_id === m);
    // Done when the settlement (created, captured, settled) and the refund (created, succeeded) arrived.
    await drainUntil(
      t.deps,
      () => mine().filter((r) => r.json.kind === 'transaction.settled').length >= 1 && mine().length >= 5,
    );

    for (const r of mine()) expect(verifyWebhook(secret, r.headers, r.body), r.body).toBe(true);
    const ofTransaction = mine()
      .filter((r) => r.json.resource.id === txn.id)
      .map((r) => r.json.kind);
    // Settled once for the capture, and again (settled_amount net of it) if the refund settles after it.
    expect(ofTransaction.slice(0, 3)).toEqual(['transaction.created', 'transaction.captured', 'transaction.settled']);
    expect(ofTransaction.slice(3).every((kind) => kind === 'transaction.settled')).toBe(true);
    const ofRefund = mine()
      .filter((r) => r.json.resource.id === refund.json().id)
      .map((r) => r.json.kind);
    expect(ofRefund).toEqual(['refund.created', 'refund.succeeded']);
    const created = mine().find((r) => r.json.kind === 'transaction.created')!;
    expect(created.json.payload).toMatchObject({
      type: 'transaction',
      id: txn.id,
      status: 'authorization_succeeded',
      amount: 5000,
    });
    // Card data never travels in a webhook.
    for (const r of mine()) expect(r.body).not.toContain('4111111111111111');
  });
});
