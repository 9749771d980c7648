import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../test/helpers/factories.ts';
import { matchThreeDsScenario, type ThreeDsFacts } from './three-ds-scenarios.service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const VISA = '4111111111111111';
const MASTERCARD = '5555555555554444';
const outcome = (status: string) => ({ version: '2.2.0', authentication: { transaction_status: status } });
const FACTS: ThreeDsFacts = {
  amount: 1299,
  cardNumber: VISA,
  externalIdentifier: 'order-1',
  buyer: { firstName: 'Ada', lastName: 'Lovelace', emailAddress: 'ada@example.com' },
};

async function scenario(merchant: string, conditions: object, status: string): Promise<void> {
  const res = await t.request({
    method: 'POST',
    url: '/three-ds-scenarios',
    payload: { conditions, outcome: outcome(status) },
    merchantAccountId: merchant,
  });
  expect(res.statusCode, res.body).toBe(201);
}

const match = (merchant: string, facts: Partial<ThreeDsFacts> = {}) =>
  matchThreeDsScenario(t.deps.db, t.deps, merchant, { ...FACTS, ...facts });

describe('matchThreeDsScenario', () => {
  it('finds scenarios keyed by amount, by card, or by neither', async () => {
    const merchant = await createMerchantAccount(t.deps);
    await scenario(merchant, { amount: 1299 }, 'Y');
    expect(await match(merchant)).toEqual({ ...outcome('Y'), result: null });
    await scenario(merchant, { card_number: MASTERCARD }, 'N');
    expect((await match(merchant, { amount: 1, cardNumber: MASTERCARD }))?.authentication.transaction_status).toBe('N');
    await scenario(merchant, { email_address: 'ADA@example.com' }, 'R');
    expect((await match(merchant, { amount: 2, cardNumber: null }))?.authentication.transaction_status).toBe('R');
    expect(await match(merchant, { amount: 2, cardNumber: null, buyer: null })).toBeNull();
  });

  it('prefers the newest scenario whose every condition matches', async () => {
    const merchant = await createMerchantAccount(t.deps);
    await scenario(merchant, { amount: 1299 }, 'Y');
    await scenario(merchant, { amount: 1299, card_number: VISA }, 'A');
    await scenario(merchant, { amount: 1299, card_number: VISA, external_identifier: 'other' }, 'U');
    expect((await match(merchant))?.authentication.transaction_status).toBe('A');
    expect((await match(merchant, { cardNumber: MASTERCARD }))?.authentication.transaction_status).toBe('Y');
  });

  it("ignores another merchant account's scenarios", async () => {
    const merchant = await createMerchantAccount(t.deps);
    const other = await createMerchantAccount(t.deps);
    await scenario(other, { amount: 1299, card_number: VISA }, 'N');
    expect(await match(merchant)).toBeNull();
  });

  it('answers null in production', async () => {
    const app = await buildTestApp({ ENVIRONMENT: 'production', VAULT_MASTER_KEY: randomBytes(32).toString('base64') });
    try {
      await app.deps.db
        .insertInto('three_ds_scenarios')
        .values({
          merchant_account_id: 'default',
          id: '018f0000-0000-7000-8000-000000000001',
          amount: 1299,
          outcome: JSON.stringify({ ...outcome('Y'), result: null }),
        })
        .execute();
      expect(await matchThreeDsScenario(app.deps.db, app.deps, 'default', { ...FACTS, cardNumber: null })).toBeNull();
    } finally {
      await app.close();
    }
  });
});
