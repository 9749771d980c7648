import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from '../../src/lib/ids.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { createLink } from '../helpers/payment-links.ts';

/**
 * Failed lookups of ids that need no bearer token (a checkout session's fields, Click to Pay) are
 * counted per client address: the address Fastify derives, which follows X-Forwarded-For only as far
 * as TRUST_PROXY allows (docs/security.md, "Client addresses and proxies"). A session id that exists
 * is served whatever its address's count.
 */
const PROXY = '10.1.2.3';
const card = { method: 'card', number: '4111111111111111', expiration_date: '12/39', security_code: '737' };

/** Waits for a fresh rate limit window when the current one is about to end, so a test stays in one window. */
async function freshWindow(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

const session = async (t: TestApp, merchantAccountId?: string): Promise<string> => {
  const res = await t.request({
    method: 'POST',
    url: '/checkout/sessions',
    payload: {},
    ...(merchantAccountId ? { merchantAccountId } : {}),
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
};

/** A request from `remoteAddress` (the peer of the TCP connection), optionally naming a client in X-Forwarded-For. */
const from = (remoteAddress: string, forwardedFor?: string): Pick<InjectOptions, 'remoteAddress' | 'headers'> => ({
  remoteAddress,
  headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
});
const fields = (t: TestApp, id: string, client: ReturnType<typeof from>) =>
  t.app.inject({
    method: 'POST',
    url: `/checkout/sessions/${id}/fields`,
    payload: { payment_method: card },
    ...client,
  });
const clickToPay = (t: TestApp, id: string, client: ReturnType<typeof from>) =>
  t.app.inject({
    method: 'POST',
    url: '/digital-wallets/click-to-pay/session',
    payload: { checkout_session_id: id },
    ...client,
  });

/** Spends the 50 misses of a client address on unknown session ids; every one is 401. */
async function spendMisses(t: TestApp, client: ReturnType<typeof from>): Promise<void> {
  const statuses: number[] = [];
  for (let i = 0; i < 50; i++) statuses.push((await fields(t, uuidv7(), client)).statusCode);
  expect(statuses.filter((s) => s !== 401)).toEqual([]);
}

describe('security', () => {
  describe('behind a load balancer that TRUST_PROXY names', () => {
    let t: TestApp;
    beforeAll(async () => {
      // A load balancer in 10.0.0.0/8, and a CDN in front of it in 172.16.0.0/12.
      t = await buildTestApp({ TRUST_PROXY: '10.0.0.0/8, 172.16.0.0/12' });
    });
    afterAll(async () => t.close());

    it('one client guessing session ids does not turn off card entry for the other buyers behind the same proxy', async () => {
      await freshWindow();
      const attacker = from(PROXY, '198.51.100.7');
      await spendMisses(t, attacker);
      expect((await fields(t, uuidv7(), attacker)).statusCode).toBe(429);
      const buyer = from(PROXY, '198.51.100.8');
      expect((await fields(t, await session(t), buyer)).statusCode).toBe(204);
      // The other buyer's own misses are still its own: 401, not the attacker's 429.
      expect((await fields(t, uuidv7(), buyer)).statusCode).toBe(401);
    });

    it('serves a session id that exists even from an address out of misses, and refuses its next miss', async () => {
      await freshWindow();
      const noisy = from(PROXY, '198.51.100.20');
      await spendMisses(t, noisy);
      const id = await session(t);
      expect((await fields(t, id, noisy)).statusCode).toBe(204);
      const over = await fields(t, uuidv7(), noisy);
      expect(over.statusCode).toBe(429);
      expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    });

    it('does not let a client that connects directly name its own address in X-Forwarded-For', async () => {
      await freshWindow();
      // 203.0.113.50 is no trusted proxy: its X-Forwarded-For is ignored, every guess counts for it.
      const statuses: number[] = [];
      for (let i = 0; i < 51; i++)
        statuses.push((await fields(t, uuidv7(), from('203.0.113.50', `198.51.100.${i}`))).statusCode);
      expect(statuses.slice(0, 50).filter((s) => s !== 401)).toEqual([]);
      expect(statuses[50]).toBe(429);
    });

    it('takes the address the first trusted proxy saw, whatever the client wrote before it', async () => {
      await freshWindow();
      // The CDN appends the address it saw, the load balancer the CDN's; what the client wrote itself changes every time.
      const statuses: number[] = [];
      for (let i = 0; i < 51; i++)
        statuses.push((await fields(t, uuidv7(), from(PROXY, `192.0.2.${i}, 198.51.100.40, 172.16.5.5`))).statusCode);
      expect(statuses.slice(0, 50).filter((s) => s !== 401)).toEqual([]);
      expect(statuses[50]).toBe(429);
      expect((await fields(t, uuidv7(), from(PROXY, '192.0.2.1, 198.51.100.41, 172.16.5.5'))).statusCode).toBe(401);
    });

    it('counts Click to Pay misses in the same budget: a guesser cannot switch endpoints for 50 more', async () => {
      await freshWindow();
      const m = await createMerchantAccount(t.deps);
      const wallet = await t.request({
        method: 'POST',
        url: '/digital-wallets',
        merchantAccountId: m,
        payload: { provider: 'click-to-pay', merchant_name: 'C2P Shop', accept_terms_and_conditions: true },
      });
      expect(wallet.statusCode, wallet.body).toBe(201);
      const guesser = from(PROXY, '198.51.100.30');
      const statuses: number[] = [];
      for (let i = 0; i < 25; i++) statuses.push((await clickToPay(t, uuidv7(), guesser)).statusCode);
      for (let i = 0; i < 25; i++) statuses.push((await fields(t, uuidv7(), guesser)).statusCode);
      expect(statuses.filter((s) => s === 429)).toEqual([]);
      const over = await clickToPay(t, uuidv7(), guesser);
      expect(over.statusCode).toBe(429);
      expect(over.json()).toMatchObject({ code: 'too_many_requests', status: 429 });
      // A real session still gets its Click to Pay answer, from the noisy address and from another.
      const id = await session(t, m);
      expect((await clickToPay(t, id, guesser)).statusCode).toBe(200);
      expect((await clickToPay(t, uuidv7(), from(PROXY, '198.51.100.31'))).statusCode).toBe(404);
    });

    it('counts misses of every other tokenless lookup by id in that budget, and still serves a link that exists', async () => {
      await freshWindow();
      const link = await createLink(t, 'default');
      const pagePath = new URL(link.url).pathname;
      const guesser = from(PROXY, '198.51.100.50');
      const other = from(PROXY, '198.51.100.51');
      const unknown = [
        `/pay/default/${uuidv7()}`,
        `/connector-returns/default/${uuidv7()}`,
        `/sandbox/approvals/default/${uuidv7()}`,
        `/sandbox/challenges/default/${uuidv7()}`,
      ];
      // Each kind of miss counts: 4 here and 46 on session ids spend the 50.
      for (const url of unknown)
        expect((await t.app.inject({ method: 'GET', url, ...guesser })).statusCode, url).toBe(404);
      for (let i = 0; i < 46; i++) expect((await fields(t, uuidv7(), guesser)).statusCode).toBe(401);
      for (const url of unknown)
        expect((await t.app.inject({ method: 'GET', url, ...guesser })).statusCode, url).toBe(429);
      for (const url of [
        `/sandbox/approvals/default/${uuidv7()}/approve`,
        `/sandbox/challenges/default/${uuidv7()}/complete`,
      ]) {
        expect((await t.app.inject({ method: 'POST', url, ...guesser })).statusCode, url).toBe(429);
      }
      // The page of a link that exists is served to the spent address; another address still gets 404 for a guess.
      expect((await t.app.inject({ method: 'GET', url: pagePath, ...guesser })).statusCode).toBe(200);
      for (const url of unknown)
        expect((await t.app.inject({ method: 'GET', url, ...other })).statusCode, url).toBe(404);
    });
  });

  describe('with no proxy trusted (the default)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await buildTestApp();
    });
    afterAll(async () => t.close());

    it('ignores X-Forwarded-For: a client cannot escape its count by writing a new address each time', async () => {
      await freshWindow();
      const statuses: number[] = [];
      for (let i = 0; i < 51; i++)
        statuses.push((await fields(t, uuidv7(), from('203.0.113.60', `198.51.100.${i}`))).statusCode);
      expect(statuses[50]).toBe(429);
      // A real session is still served to that address.
      expect((await fields(t, await session(t), from('203.0.113.60'))).statusCode).toBe(204);
    });
  });
});
