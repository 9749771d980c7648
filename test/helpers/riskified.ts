import { expect } from 'vitest';
import { RISKIFIED_FAKE_SHOP, RISKIFIED_FAKE_TOKEN } from '../fakes/riskified-fake.ts';
import type { TestApp } from './build-test-app.ts';
import { merchantWithMockCard } from './transactions.ts';

/** The body of `POST /anti-fraud-services` configuring Riskified against the fake's shop. */
export const riskifiedServiceBody = (overrides: Record<string, unknown> = {}) => ({
  anti_fraud_service_definition_id: 'riskified-anti-fraud',
  display_name: 'Riskified',
  fields: [
    { key: 'shop_domain', value: RISKIFIED_FAKE_SHOP },
    { key: 'auth_token', value: RISKIFIED_FAKE_TOKEN },
  ],
  ...overrides,
});

/** A merchant account with the sandbox card service and Riskified (the fake) as its anti-fraud service. */
export async function merchantWithRiskified(t: TestApp): Promise<{ m: string; service: { id: string } }> {
  const { merchantAccountId: m } = await merchantWithMockCard(t);
  const res = await t.request({
    method: 'POST',
    url: '/anti-fraud-services',
    merchantAccountId: m,
    payload: riskifiedServiceBody(),
  });
  expect(res.statusCode, res.body).toBe(201);
  return { m, service: res.json() };
}
