import { expect } from 'vitest';
import type { TestApp } from './build-test-app.ts';
import { merchantWithMockCard } from './transactions.ts';

export { merchantWithMockCard };

/** A card that receives payouts (the mock-card connector's default: succeeded). */
export const payoutCard = (number = '4111111111111111', extra: Record<string, unknown> = {}) => ({
  method: 'card',
  number,
  expiration_date: '12/40',
  ...extra,
});

export async function storeCard(
  t: TestApp,
  merchantAccountId: string,
  number = '4111111111111111',
  buyerId: string | null = null,
): Promise<string> {
  const res = await t.request({
    method: 'POST',
    url: '/payment-methods',
    merchantAccountId,
    payload: { method: 'card', number, expiration_date: '12/40', ...(buyerId ? { buyer_id: buyerId } : {}) },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

export async function addBuyer(
  t: TestApp,
  merchantAccountId: string,
  body: Record<string, unknown> = {},
): Promise<string> {
  const res = await t.request({
    method: 'POST',
    url: '/buyers',
    merchantAccountId,
    payload: {
      display_name: 'Ada Lovelace',
      billing_details: { first_name: 'Ada', last_name: 'Lovelace', email_address: 'ada@example.com' },
      ...body,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

export function postPayout(
  t: TestApp,
  merchantAccountId: string,
  paymentServiceId: string,
  body: Record<string, unknown> = {},
  headers: Record<string, string> = {},
  scopes?: string[],
) {
  return t.request({
    method: 'POST',
    url: '/payouts',
    merchantAccountId,
    headers,
    ...(scopes ? { scopes } : {}),
    payload: {
      amount: 1000,
      currency: 'USD',
      payment_service_id: paymentServiceId,
      payment_method: payoutCard(),
      ...body,
    },
  });
}
