import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { purgeWalletTokenUses } from '../../src/jobs/purge-wallet-token-uses.job.ts';
import { sandboxApplePayToken, sandboxGooglePayToken } from '../../src/wallets/sandbox-tokens.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { merchantWithMockCard } from '../helpers/transactions.ts';

/**
 * Money safety of wallet tokens decrypted here (docs/digital-wallets.md, "A token pays once" and
 * "The approved amount"): a token pays one transaction of the merchant account, whatever the
 * idempotency key, also when ten requests race; an idempotent retry still answers the first
 * response; a failover inside the transaction is no second use; an Apple token pays only the amount
 * and currency the buyer approved. Refusals are 400s on /payment_method/token.
 */

const DPAN = '4895370012003478';
const GOOGLE_PAN = '5204245250001488';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

async function merchantWithWallets(options: Parameters<typeof merchantWithMockCard>[1] = {}) {
  const { merchantAccountId, paymentServiceId } = await merchantWithMockCard(t, options);
  for (const provider of ['apple', 'google']) {
    const res = await t.request({
      method: 'POST',
      url: '/digital-wallets',
      merchantAccountId,
      payload: { provider, merchant_name: 'Wallet Shop', accept_terms_and_conditions: true },
    });
    expect(res.statusCode, res.body).toBe(201);
  }
  return { m: merchantAccountId, paymentServiceId };
}

const applePay = (token: Record<string, unknown>) => ({ method: 'applepay', token, card_suffix: '3478' });
const pay = (
  m: string,
  paymentMethod: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) =>
  t.request({
    method: 'POST',
    url: '/transactions',
    merchantAccountId: m,
    headers,
    payload: { amount: 1200, currency: 'USD', country: 'US', payment_method: paymentMethod, ...extra },
  });
const transactionsOf = (m: string) =>
  t.deps.db.selectFrom('transactions').select(['id', 'status']).where('merchant_account_id', '=', m).execute();
const usesOf = (m: string) =>
  t.deps.db.selectFrom('wallet_token_uses').selectAll().where('merchant_account_id', '=', m).execute();

function expectRefusal(res: { statusCode: number; body: string; json(): any }, type: string, message: string | RegExp) {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json()).toMatchObject({
    type: 'error',
    code: 'bad_request',
    status: 400,
    details: [{ location: 'body', pointer: '/payment_method/token', type }],
  });
  expect(res.json().message).toMatch(message);
}

describe('happy', () => {
  it('an Apple token whose approved amount and currency are the charge pays, with intent authorize or capture', async () => {
    const { m } = await merchantWithWallets();
    const authorized = await pay(
      m,
      applePay(sandboxApplePayToken({ number: DPAN, expirationDate: '12/30', amount: 1200, currency: 'USD' })),
    );
    expect(authorized.statusCode, authorized.body).toBe(201);
    expect(authorized.json()).toMatchObject({
      status: 'authorization_succeeded',
      amount: 1200,
      currency: 'USD',
      method: 'applepay',
    });
    const eur = await pay(
      m,
      applePay(sandboxApplePayToken({ number: DPAN, expirationDate: '12/30', amount: 990, currency: 'EUR' })),
      { amount: 990, currency: 'EUR', intent: 'capture' },
    );
    expect(eur.statusCode, eur.body).toBe(201);
    expect(eur.json()).toMatchObject({ status: 'capture_succeeded', amount: 990, currency: 'EUR' });
  });

  it('with gift cards the token approves what its card is charged: the amount less the gift cards', async () => {
    const { m } = await merchantWithWallets();
    const gift = { number: '6036281000000000001', pin: '1234', amount: 1000 };
    const whole = await pay(
      m,
      applePay(sandboxApplePayToken({ number: DPAN, expirationDate: '12/30', amount: 3000 })),
      { amount: 3000, gift_cards: [gift] },
    );
    expectRefusal(whole, 'wallet_token_amount_mismatch', /approved 30\.00 USD .* charges 20\.00 USD/);
    const res = await pay(m, applePay(sandboxApplePayToken({ number: DPAN, expirationDate: '12/30', amount: 2000 })), {
      amount: 3000,
      gift_cards: [gift],
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      status: 'authorization_succeeded',
      amount: 3000,
      authorized_amount: 2000,
      multi_tender: true,
    });
  });

  it('an idempotent retry answers the first response byte for byte, and calls the connector once', async () => {
    const { m } = await merchantWithWallets();
    const authorize = vi.spyOn(t.deps.connectors.get('mock-card'), 'authorize');
    const token = sandboxApplePayToken({ number: DPAN, expirationDate: '12/30', amount: 1200 });
    const first = await pay(m, applePay(token), {}, { 'idempotency-key': 'wallet-retry-1' });
    expect(first.statusCode, first.body).toBe(201);
    const again = await pay(m, applePay(token), {}, { 'idempotency-key': 'wallet-retry-1' });
    expect([again.statusCode, again.headers['idempotent-replayed'], again.body]).toEqual([201, 'true', first.body]);
    expect(authorize).toHaveBeenCalledTimes(1);
    authorize.mockRestore();
    // A new key is a new payment: the token was used.
    expectRefusal(
      await pay(m, applePay(token), {}, { 'idempotency-key': 'wallet-retry-2' }),
      'wallet_token_replayed',
      first.json().id,
    );
  });

  it('a failover to the next service of the rule is the same transaction, not a second use of the token', async () => {
    const { m, paymentServiceId: broken } = await merchantWithWallets({
      fields: [
        { key: 'merchant_id', value: 'a' },
        { key: 'simulate_outcome', value: 'unavailable' },
      ],
    });
    const backup = await t.request({
      method: 'POST',
      url: '/payment-services',
      merchantAccountId: m,
      payload: {
        display_name: 'Backup',
        payment_service_definition_id: 'mock-card',
        fields: [{ key: 'merchant_id', value: 'b' }],
        accepted_currencies: ['USD'],
        accepted_countries: ['US'],
      },
    });
    expect(backup.statusCode, backup.body).toBe(201);
    const rule = await t.request({
      method: 'POST',
      url: '/flows/card-transaction/actions/route-transaction/rules',
      merchantAccountId: m,
      payload: { conditions: [], outcome: { payment_service_ids: [broken, backup.json().id], max_attempts: 2 } },
    });
    expect(rule.statusCode, rule.body).toBe(201);
    const res = await pay(m, {
      method: 'googlepay',
      token: sandboxGooglePayToken({ number: DPAN, expirationDate: '11/31' }),
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ status: 'authorization_succeeded', payment_service: { id: backup.json().id } });
    expect(await usesOf(m)).toEqual([expect.objectContaining({ provider: 'google', transaction_id: res.json().id })]);
  });

  it('the purge job forgets uses past their expiry only', async () => {
    const { m } = await merchantWithWallets();
    await pay(m, applePay(sandboxApplePayToken({ number: DPAN, expirationDate: '12/30', amount: 1200 })));
    await pay(m, {
      method: 'googlepay',
      token: sandboxGooglePayToken({ number: GOOGLE_PAN, expirationDate: '11/31' }),
    });
    const [apple, google] = (await usesOf(m)).sort((a, b) => a.provider.localeCompare(b.provider));
    // Apple: signing time + WALLET_TOKEN_MAX_AGE_SECONDS + an hour; Google: messageExpiration (an hour) + an hour.
    expect(apple!.expires_at.getTime() - Date.now()).toBeGreaterThan(3_800_000);
    expect(apple!.expires_at.getTime() - Date.now()).toBeLessThan(3_960_000);
    expect(google!.expires_at.getTime() - Date.now()).toBeGreaterThan(7_100_000);
    await t.deps.db
      .updateTable('wallet_token_uses')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('merchant_account_id', '=', m)
      .where('provider', '=', 'apple')
      .execute();
    await purgeWalletTokenUses.handle({}, { deps: t.deps, jobId: 'test', attempt: 1, log: t.app.log } as never);
    expect((await usesOf(m)).map((u) => u.provider)).toEqual(['google']);
  });
});

describe('errors', () => {
  it('the same Apple token again (no idempotency key) is refused, naming the transaction it paid; nothing more is recorded', async () => {
    const { m } = await merchantWithWallets();
    const token = sandboxApplePayToken({ number: DPAN, expirationDate: '12/30', amount: 1200 });
    const first = await pay(m, applePay(token));
    expect(first.statusCode, first.body).toBe(201);
    const again = await pay(m, applePay(token));
    expectRefusal(
      again,
      'wallet_token_replayed',
      new RegExp(
        `Apple Pay token was already used for transaction ${first.json().id}.*request a new token from the wallet`,
        'i',
      ),
    );
    // The same token with its id in capitals (Apple does not sign the case) is the same token.
    const header = (token.paymentData as { header: { transactionId: string } }).header;
    const shouting = {
      ...token,
      paymentData: {
        ...(token.paymentData as object),
        header: { ...header, transactionId: header.transactionId.toUpperCase() },
      },
    };
    expectRefusal(await pay(m, applePay(shouting)), 'wallet_token_replayed', first.json().id);
    expect(await transactionsOf(m)).toEqual([{ id: first.json().id, status: 'authorization_succeeded' }]);
  });

  it('a Google token pays once too, and a declined payment used its token', async () => {
    const { m } = await merchantWithWallets();
    const token = sandboxGooglePayToken({ number: GOOGLE_PAN, expirationDate: '11/31' });
    const declined = await pay(m, { method: 'googlepay', token: JSON.stringify(token) }, { amount: 2005 });
    expect(declined.json()).toMatchObject({ status: 'authorization_declined', error_code: 'do_not_honor' });
    expectRefusal(
      await pay(m, { method: 'googlepay', token }, { amount: 2005 }),
      'wallet_token_replayed',
      `Google Pay token was already used for transaction ${declined.json().id}`,
    );
    // Another merchant account keeps its own record (the sandbox keys decrypt for every account).
    const other = await merchantWithWallets();
    expect((await pay(other.m, { method: 'googlepay', token })).statusCode).toBe(201);
  });

  it('ten concurrent requests with one token: one transaction, one connector call, nine refusals', async () => {
    const { m } = await merchantWithWallets();
    const authorize = vi.spyOn(t.deps.connectors.get('mock-card'), 'authorize');
    const token = sandboxApplePayToken({ number: DPAN, expirationDate: '12/30', amount: 1200 });
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        pay(m, applePay(token), {}, i % 2 === 0 ? { 'idempotency-key': `race-${i}` } : {}),
      ),
    );
    const created = answers.filter((a) => a.statusCode === 201);
    expect(created.length, answers.map((a) => a.body).join('\n')).toBe(1);
    for (const refused of answers.filter((a) => a.statusCode !== 201))
      expectRefusal(refused, 'wallet_token_replayed', created[0]!.json().id);
    expect(authorize).toHaveBeenCalledTimes(1);
    expect(await transactionsOf(m)).toEqual([{ id: created[0]!.json().id, status: 'authorization_succeeded' }]);
    expect(await usesOf(m)).toHaveLength(1);
    authorize.mockRestore();
  });

  it('an Apple token for another amount, another currency or zero is refused stating both; nothing is recorded and the token still pays its own amount', async () => {
    const { m } = await merchantWithWallets();
    const token = sandboxApplePayToken({ number: DPAN, expirationDate: '12/30', amount: 1000 });
    expectRefusal(
      await pay(m, applePay(token)),
      'wallet_token_amount_mismatch',
      /buyer approved 10\.00 USD in Apple Pay, but this transaction charges 12\.00 USD/,
    );
    expectRefusal(
      await pay(
        m,
        applePay(sandboxApplePayToken({ number: DPAN, expirationDate: '12/30', amount: 1200, currency: 'EUR' })),
      ),
      'wallet_token_amount_mismatch',
      /approved 12\.00 EUR .* charges 12\.00 USD/,
    );
    expectRefusal(
      await pay(m, applePay(sandboxApplePayToken({ number: DPAN, expirationDate: '12/30' }))),
      'wallet_token_amount_mismatch',
      /approved 0\.00 USD/,
    );
    expect(await transactionsOf(m)).toEqual([]);
    expect(await usesOf(m)).toEqual([]);
    const paid = await pay(m, applePay(token), { amount: 1000 });
    expect(paid.statusCode, paid.body).toBe(201);
  });
});

describe('security', () => {
  it('keeps a keyed hash of the token id only: not the id, the device token or the cryptogram', async () => {
    const { m } = await merchantWithWallets();
    const token = sandboxApplePayToken({
      number: DPAN,
      expirationDate: '12/30',
      amount: 1200,
      cryptogram: 'AgAAAAAAAIR8CQrXcIhbQAAAAAA=',
    });
    const id = (token.paymentData as { header: { transactionId: string } }).header.transactionId;
    expect((await pay(m, applePay(token))).statusCode).toBe(201);
    const rows = await sql<{
      text: string;
    }>`SELECT row_to_json(u)::text AS text FROM wallet_token_uses u WHERE merchant_account_id = ${m}`.execute(
      t.deps.db,
    );
    expect(rows.rows).toHaveLength(1);
    for (const secret of [id, id.toLowerCase(), DPAN, 'AgAAAAAAAIR8CQrXcIhbQAAAAAA='])
      expect(rows.rows[0]!.text).not.toContain(secret);
    for (const line of t.logs) expect(line).not.toContain(id);
  });
});
