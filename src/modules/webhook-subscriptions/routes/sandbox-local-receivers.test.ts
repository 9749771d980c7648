import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';

/**
 * Issue 51, defect 9: a fresh sandbox (no WEBHOOK_ALLOW_PRIVATE_URLS) delivers webhooks to a
 * receiver on this machine; other private ranges still need the opt-in; production refuses loopback
 * whatever the setting says.
 */

let t: TestApp;
let receiver: Server;
let port: number;
const bodies: string[] = [];
beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  port = (receiver.address() as AddressInfo).port;
  t = await buildTestApp();
});
afterAll(async () => {
  await t.close();
  await new Promise((resolve) => receiver.close(resolve));
});

const create = (app: TestApp, m: string, url: string) =>
  app.request({ method: 'POST', url: '/webhook-subscriptions', payload: { url }, merchantAccountId: m });

describe('happy', () => {
  it('accepts loopback receivers over http in the default sandbox (delivery: test/flows/payment-webhooks.test.ts)', async () => {
    const m = await createMerchantAccount(t.deps);
    for (const url of [`http://localhost:${port}/hooks`, `http://[::1]:${port}/hooks`, `https://127.0.0.2/hooks`]) {
      const res = await create(t, m, url);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(201);
      await t.request({ method: 'DELETE', url: `/webhook-subscriptions/${res.json().id}`, merchantAccountId: m });
    }
    // Delivery to a loopback receiver without the opt-in: test/flows/payment-webhooks.test.ts.
    expect((await create(t, m, `http://127.0.0.1:${port}/hooks`)).statusCode).toBe(201);
  });
});

describe('security', () => {
  it('refuses private, link-local and metadata receivers in the default sandbox, naming the opt-in', async () => {
    const m = await createMerchantAccount(t.deps);
    for (const url of [
      'http://10.0.0.1/hooks',
      'https://10.0.0.1/hooks',
      'http://169.254.169.254/latest/meta-data',
      'https://169.254.169.254/',
      'https://172.16.0.1/',
      'https://[fe80::1]/',
    ]) {
      const res = await create(t, m, url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().message, url).toContain('WEBHOOK_ALLOW_PRIVATE_URLS=true');
    }
  });

  it('refuses loopback receivers in production even with WEBHOOK_ALLOW_PRIVATE_URLS=true', async () => {
    const production = await buildTestApp({
      ENVIRONMENT: 'production',
      VAULT_MASTER_KEY: randomBytes(32).toString('base64'),
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    });
    try {
      for (const url of [
        `http://127.0.0.1:${port}/hooks`,
        `https://127.0.0.1:${port}/hooks`,
        'https://localhost/hooks',
        'https://[::1]/hooks',
      ]) {
        expect((await create(production, 'default', url)).statusCode, url).toBe(400);
      }
    } finally {
      await production.close();
    }
  });

  it('refuses loopback in a sandbox that says WEBHOOK_ALLOW_PRIVATE_URLS=false (a shared sandbox)', async () => {
    const strict = await buildTestApp({ WEBHOOK_ALLOW_PRIVATE_URLS: 'false' });
    try {
      expect((await create(strict, 'default', `http://127.0.0.1:${port}/hooks`)).statusCode).toBe(400);
      expect((await create(strict, 'default', 'https://localhost/hooks')).statusCode).toBe(400);
    } finally {
      await strict.close();
    }
  });
});
