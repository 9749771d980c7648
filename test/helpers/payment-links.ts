import { expect } from 'vitest';
import type { TestApp } from './build-test-app.ts';

/** Creates a payment link in `merchantAccountId` (defaults: 1000 USD, US); returns its resource. */
export async function createLink(t: TestApp, merchantAccountId: string, body: Record<string, unknown> = {}) {
  const res = await t.request({
    method: 'POST',
    url: '/payment-links',
    merchantAccountId,
    payload: { amount: 1000, currency: 'USD', country: 'US', ...body },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** The page's path and the token its HTML carries (empty when the page shows no form). */
export async function openPage(t: TestApp, url: string) {
  const path = new URL(url).pathname;
  const res = await t.app.inject({ method: 'GET', url: path });
  const token = /data-token="([^"]*)"/.exec(res.body)?.[1] ?? '';
  return { res, path, token };
}

/** What the page's script does: a session, the card in its fields, then the payment. */
export async function payOnPage(
  t: TestApp,
  url: string,
  number = '4111111111111111',
  extra: Record<string, unknown> = {},
) {
  const { path, token } = await openPage(t, url);
  const headers = { 'x-payment-link-token': token };
  const session = await t.app.inject({ method: 'POST', url: `${path}/sessions`, headers, payload: {} });
  expect(session.statusCode, session.body).toBe(201);
  const id = session.json().id as string;
  const fields = await t.app.inject({
    method: 'PUT',
    url: `/checkout/sessions/${id}/fields`,
    payload: { payment_method: { method: 'card', number, expiration_date: '12/40', security_code: '123' } },
  });
  expect(fields.statusCode, fields.body).toBe(204);
  return t.app.inject({
    method: 'POST',
    url: `${path}/payments`,
    headers,
    payload: { checkout_session_id: id, ...extra },
  });
}

/** What the sandbox's wallet sheet does: a test token for the chosen card, then the payment with it. */
export async function payWithSandboxWallet(
  t: TestApp,
  url: string,
  method: 'applepay' | 'googlepay',
  card = 'visa-approved',
) {
  const { path, token } = await openPage(t, url);
  const headers = { 'x-payment-link-token': token };
  const minted = await t.app.inject({
    method: 'POST',
    url: `${path}/wallet-tokens`,
    headers,
    payload: { method, card },
  });
  expect(minted.statusCode, minted.body).toBe(201);
  const walletToken = minted.json().token as Record<string, unknown>;
  const res = await t.app.inject({
    method: 'POST',
    url: `${path}/payments`,
    headers,
    payload: { method, token: walletToken },
  });
  return { res, walletToken };
}
