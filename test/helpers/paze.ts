import { expect } from 'vitest';
import type { TestApp } from './build-test-app.ts';

/** Registers the merchant account's Paze wallet. */
export async function registerPaze(t: TestApp, merchantAccountId: string, extra: Record<string, unknown> = {}) {
  const res = await t.request({
    method: 'POST',
    url: '/digital-wallets',
    merchantAccountId,
    payload: { provider: 'paze', merchant_name: 'Paze Shop', accept_terms_and_conditions: true, ...extra },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

export const pazeCall = (
  t: TestApp,
  merchantAccountId: string,
  step: 'session' | 'create' | 'review' | 'complete',
  payload: Record<string, unknown>,
) =>
  t.request({
    method: 'POST',
    url: step === 'session' ? '/digital-wallets/paze/session' : `/digital-wallets/paze/session/${step}`,
    merchantAccountId,
    payload,
  });

/** The path and query of an absolute URL this server made (pazeCheckoutUrl, links). */
export const localPath = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

/** Opens the simulated checkout page and presses the card's button: the code the app gets back. */
export async function chooseCard(
  t: TestApp,
  checkoutUrl: string,
  cardId: string,
): Promise<{ page: string; callback: string; code: string }> {
  const page = await t.app.inject({ method: 'GET', url: localPath(checkoutUrl) });
  expect(page.statusCode, page.body).toBe(200);
  const action = [...page.body.matchAll(/action="([^"]+)"/g)]
    .map((m) => m[1]!)
    .find((a) => a.includes(`/cards/${cardId}?`));
  expect(action, `no button for ${cardId}`).toBeDefined();
  const chosen = await t.app.inject({
    method: 'POST',
    url: action!,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: '',
  });
  expect(chosen.statusCode, chosen.body).toBe(200);
  const callback = String(chosen.headers.refresh).replace(/^0;url=/, '');
  return { page: page.body, callback, code: new URL(callback).searchParams.get('code')! };
}

/** The whole mobile dance up to complete: session → create → checkout page → review → complete. */
export async function pazeDance(
  t: TestApp,
  merchantAccountId: string,
  options: { card?: string; transactionValue?: { transactionAmount: string; transactionCurrency: string } } = {},
) {
  const session = await pazeCall(t, merchantAccountId, 'session', { source: 'mobile' });
  expect(session.statusCode, session.body).toBe(200);
  const { id, name, profileId, accessToken, sessionId } = session.json();
  const created = await pazeCall(t, merchantAccountId, 'create', {
    client: { id, name, profileId },
    sessionId,
    accessToken,
    callbackURLScheme: 'shopapp',
    intent: 'REVIEW_AND_PAY',
    ...(options.transactionValue ? { transactionValue: options.transactionValue } : {}),
  });
  expect(created.statusCode, created.body).toBe(200);
  const { code } = await chooseCard(t, created.json().pazeCheckoutUrl, options.card ?? 'visa-credit');
  const review = await pazeCall(t, merchantAccountId, 'review', { sessionId, accessToken, code });
  expect(review.statusCode, review.body).toBe(200);
  const complete = await pazeCall(t, merchantAccountId, 'complete', {
    sessionId,
    accessToken,
    code: review.json().code,
    transactionType: 'PURCHASE',
    ...(options.transactionValue ? { transactionValue: options.transactionValue } : {}),
  });
  expect(complete.statusCode, complete.body).toBe(200);
  return {
    session: session.json(),
    created: created.json(),
    review: review.json(),
    complete: complete.json(),
    sessionId,
    accessToken,
  };
}
