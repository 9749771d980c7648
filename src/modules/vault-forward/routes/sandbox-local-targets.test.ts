import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';

/**
 * Issue 51, defect 9: a fresh sandbox (no VAULT_FORWARD_ALLOW_PRIVATE_URLS) forwards to loopback
 * targets, here the server's own sandbox echo endpoint on its listening address; other private
 * ranges still need the opt-in, and production refuses loopback whatever the setting says.
 */

let t: TestApp;
let echo: string;
beforeAll(async () => {
  t = await buildTestApp({ VAULT_FORWARD_TIMEOUT_SECONDS: '5' });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  echo = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/sandbox/echo`;
});
afterAll(async () => t.close());

const PAN = '4111111111111111';

async function storedCard(app: TestApp, m: string) {
  const res = await app.request({
    method: 'POST',
    url: '/payment-methods',
    merchantAccountId: m,
    payload: { method: 'card', number: PAN, expiration_date: '07/30' },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

const forward = (app: TestApp, m: string, url: string, card: string) =>
  app.request({
    method: 'POST',
    url: '/vault-forward',
    merchantAccountId: m,
    headers: { 'x-vault-forward-url': url, 'x-vault-forward-payment-methods': card },
    payload: { card: { number: '{{CARD_NUMBER_1}}' } },
  });

describe('happy', () => {
  it('forwards to a loopback target in the default sandbox: the echo shows the number substituted, the answer masks it', async () => {
    const m = await createMerchantAccount(t.deps);
    const card = await storedCard(t, m);
    for (const url of [echo, echo.replace('127.0.0.1', 'localhost')]) {
      const res = await forward(t, m, url, card);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
      expect(res.json()).toMatchObject({
        method: 'POST',
        path: '/sandbox/echo',
        body: { card: { number: '411111******1111' } },
      });
      expect(res.body).not.toContain(PAN);
    }
  });

  it('stores a custom config listing loopback hosts in the default sandbox', async () => {
    const m = await createMerchantAccount(t.deps);
    const res = await t.request({
      method: 'POST',
      url: '/vault-forward/configs',
      merchantAccountId: m,
      payload: { definition_id: 'custom', hosts: ['127.0.0.1', 'localhost'] },
    });
    expect(res.statusCode, res.body).toBe(201);
  });
});

describe('security', () => {
  it('refuses private, link-local and metadata targets in the default sandbox, naming the opt-in', async () => {
    const m = await createMerchantAccount(t.deps);
    const card = await storedCard(t, m);
    for (const url of [
      'http://10.0.0.1/x',
      'https://10.0.0.1/x',
      'http://169.254.169.254/latest/meta-data',
      'https://192.168.1.1/',
      'https://[fd00::1]/',
      'https://0.0.0.0/',
    ]) {
      const res = await forward(t, m, url, card);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(400);
      expect(res.json().message).toContain('VAULT_FORWARD_ALLOW_PRIVATE_URLS=true');
    }
    const config = await t.request({
      method: 'POST',
      url: '/vault-forward/configs',
      merchantAccountId: m,
      payload: { definition_id: 'custom', hosts: ['10.0.0.1'] },
    });
    expect(config.statusCode, config.body).toBe(400);
  });

  it('refuses a loopback target in production even with VAULT_FORWARD_ALLOW_PRIVATE_URLS=true', async () => {
    const production = await buildTestApp({
      ENVIRONMENT: 'production',
      VAULT_MASTER_KEY: randomBytes(32).toString('base64'),
      VAULT_FORWARD_ALLOW_PRIVATE_URLS: 'true',
      VAULT_FORWARD_ALLOWED_HOSTS: '*',
    });
    try {
      const m = await createMerchantAccount(production.deps);
      const card = await storedCard(production, m);
      for (const url of [
        echo,
        echo.replace('http:', 'https:'),
        echo.replace('127.0.0.1', 'localhost').replace('http:', 'https:'),
      ]) {
        const res = await forward(production, m, url, card);
        expect([400, 403], `${url}: ${res.body}`).toContain(res.statusCode);
      }
    } finally {
      await production.close();
    }
  });
});
