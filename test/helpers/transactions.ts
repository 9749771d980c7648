import { expect } from 'vitest';
import type { TestApp } from './build-test-app.ts';
import { createMerchantAccount } from './factories.ts';

/** A merchant account with one mock-card payment service accepting every country and currency. */
export async function merchantWithMockCard(
  t: TestApp,
  options: {
    fields?: Array<{ key: string; value: string }>;
    three_d_secure_enabled?: boolean;
    accepted_currencies?: string[];
    accepted_countries?: string[];
  } = {},
) {
  const merchantAccountId = await createMerchantAccount(t.deps);
  const res = await t.request({
    method: 'POST',
    url: '/payment-services',
    merchantAccountId,
    payload: {
      display_name: 'Mock card',
      payment_service_definition_id: 'mock-card',
      fields: options.fields ?? [{ key: 'merchant_id', value: 'merchant-1' }],
      accepted_currencies: options.accepted_currencies ?? ['USD', 'EUR', 'GBP'],
      accepted_countries: options.accepted_countries ?? ['US', 'GB', 'DE', 'FR', 'NL'],
      three_d_secure_enabled: options.three_d_secure_enabled ?? false,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return { merchantAccountId, paymentServiceId: res.json().id as string };
}

export const card = (number = '4111111111111111', extra: Record<string, unknown> = {}) => ({
  method: 'card',
  number,
  expiration_date: '12/40',
  security_code: '123',
  ...extra,
});

export async function createTransaction(
  t: TestApp,
  merchantAccountId: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return t.request({
    method: 'POST',
    url: '/transactions',
    merchantAccountId,
    payload: { amount: 1000, currency: 'USD', payment_method: card(), ...body },
    headers,
  });
}

export async function authorized(t: TestApp, merchantAccountId: string, body: Record<string, unknown> = {}) {
  const res = await createTransaction(t, merchantAccountId, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}
