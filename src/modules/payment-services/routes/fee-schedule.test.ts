import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';

/** GET/PUT /payment-services/{id}/fee-schedule: least-cost routing's fees, per payment service. */

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

async function service(m: string): Promise<string> {
  const res = await t.request({
    method: 'POST',
    url: '/payment-services',
    merchantAccountId: m,
    payload: {
      display_name: 'acquirer',
      payment_service_definition_id: 'mock-card',
      fields: [{ key: 'merchant_id', value: 'm1' }],
      accepted_currencies: ['USD', 'EUR'],
      accepted_countries: ['US', 'DE'],
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

const put = (m: string, id: string, payload: object) =>
  t.request({ method: 'PUT', url: `/payment-services/${id}/fee-schedule`, merchantAccountId: m, payload });
const get = (m: string, id: string) =>
  t.request({ method: 'GET', url: `/payment-services/${id}/fee-schedule`, merchantAccountId: m });

describe('happy', () => {
  it('answers no entries before a schedule is set, stores one (every field present), replaces and clears it, audited', async () => {
    const m = await createMerchantAccount(t.deps);
    const id = await service(m);
    const empty = await get(m, id);
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual({
      type: 'payment-service-fee-schedule',
      payment_service_id: id,
      entries: [],
      updated_at: null,
    });
    const set = await put(m, id, {
      entries: [
        { percent: '2.9', fixed_fee: { amount: 30, currency: 'USD' }, currency: 'USD' },
        { scheme: 'visa', card_type: 'debit', percent: '0.2' },
        { scheme: 'amex', country: 'DE', currency: 'EUR', percent: '3.5', fixed_fee: null },
      ],
    });
    expect(set.statusCode, set.body).toBe(200);
    const stored = {
      type: 'payment-service-fee-schedule',
      payment_service_id: id,
      entries: [
        {
          scheme: null,
          card_type: null,
          currency: 'USD',
          country: null,
          percent: '2.9',
          fixed_fee: { amount: 30, currency: 'USD' },
        },
        { scheme: 'visa', card_type: 'debit', currency: null, country: null, percent: '0.2', fixed_fee: null },
        { scheme: 'amex', card_type: null, currency: 'EUR', country: 'DE', percent: '3.5', fixed_fee: null },
      ],
      updated_at: expect.any(String),
    };
    expect(set.json()).toEqual(stored);
    expect((await get(m, id)).json()).toEqual(set.json());
    const cleared = await put(m, id, { entries: [] });
    expect(cleared.json()).toMatchObject({ entries: [], updated_at: expect.any(String) });
    const audit = await t.request({
      method: 'GET',
      url: '/audit-logs?resource_type=payment-service-fee-schedule',
      merchantAccountId: m,
    });
    expect(audit.json().items).toHaveLength(2);
    expect(audit.json().items[0]).toMatchObject({
      action: 'updated',
      resource: { type: 'payment-service-fee-schedule', id, name: 'acquirer' },
    });
  });
});

describe('errors', () => {
  let m: string;
  let id: string;
  beforeAll(async () => {
    m = await createMerchantAccount(t.deps);
    id = await service(m);
  });
  const refusal = (pointer: string, message: string) => ({
    type: 'error',
    code: 'bad_request',
    status: 400,
    message,
    details: [{ location: 'body', pointer, message, type: 'value_error' }],
  });

  it('refuses a percent over 100, two entries for the same transactions, a fixed fee in another currency than its entry (400)', async () => {
    const over = await put(m, id, { entries: [{ percent: '100.0001' }] });
    expect(over.statusCode).toBe(400);
    expect(over.json()).toEqual(
      refusal('/entries/0/percent', 'entries[0].percent is 100.0001: a percentage of the amount is at most 100'),
    );
    const twice = await put(m, id, {
      entries: [
        { scheme: 'visa', percent: '1' },
        { currency: 'EUR', percent: '1' },
        { scheme: 'visa', card_type: null, percent: '2' },
      ],
    });
    expect(twice.statusCode).toBe(400);
    expect(twice.json()).toEqual(
      refusal(
        '/entries/2',
        'entries[2] matches the same transactions as entries[0] (scheme visa, card type any, currency any, country any): give each combination one entry',
      ),
    );
    const currency = await put(m, id, {
      entries: [{ currency: 'EUR', percent: '1', fixed_fee: { amount: 25, currency: 'USD' } }],
    });
    expect(currency.statusCode).toBe(400);
    expect(currency.json()).toEqual(
      refusal(
        '/entries/0/fixed_fee/currency',
        "entries[0].fixed_fee is in USD but the entry applies to EUR transactions only: a fixed fee counts only in the transaction's currency (no conversion)",
      ),
    );
    // Nothing was stored by a refused write.
    expect((await get(m, id)).json().entries).toEqual([]);
  });

  it('refuses malformed entries (422, the schema)', async () => {
    for (const [entry, loc] of [
      [{ percent: 2.9 }, ['body', 'entries', 0, 'percent']],
      [{ percent: '2.95555' }, ['body', 'entries', 0, 'percent']],
      [{ percent: '-1' }, ['body', 'entries', 0, 'percent']],
      [{ percent: '01' }, ['body', 'entries', 0, 'percent']],
      [{ percent: '1', scheme: 'bitcoin' }, ['body', 'entries', 0, 'scheme']],
      [{ percent: '1', card_type: 'charge' }, ['body', 'entries', 0, 'card_type']],
      [{ percent: '1', fixed_fee: { amount: -1, currency: 'USD' } }, ['body', 'entries', 0, 'fixed_fee', 'amount']],
      [{ percent: '1', fixed_fee: { amount: 1.5, currency: 'USD' } }, ['body', 'entries', 0, 'fixed_fee', 'amount']],
    ] as const) {
      const res = await put(m, id, { entries: [entry] });
      expect(res.statusCode, JSON.stringify(entry)).toBe(422);
      expect(res.json().detail[0].loc, JSON.stringify(entry)).toEqual(loc);
    }
    expect((await put(m, id, {})).statusCode).toBe(422);
  });

  it("answers 404 for an unknown, deleted or other account's service", async () => {
    const other = await createMerchantAccount(t.deps);
    const theirs = await service(other);
    const gone = await service(m);
    await t.request({ method: 'DELETE', url: `/payment-services/${gone}`, merchantAccountId: m });
    for (const target of [theirs, gone, '00000000-0000-4000-8000-000000000000']) {
      expect((await get(m, target)).statusCode).toBe(404);
      const res = await put(m, target, { entries: [{ percent: '1' }] });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({
        code: 'not_found',
        message: `The payment service ${target} could not be found`,
      });
    }
    expect((await get(other, theirs)).json().entries).toEqual([]);
  });
});

describe('security', () => {
  const one = async () => service('default');
  describe('get', () =>
    runScopeTests(() => t, {
      request: async () => ({ method: 'GET', url: `/payment-services/${await one()}/fee-schedule` }),
      scope: 'payment-services.read',
    }));
  describe('update', () =>
    runScopeTests(() => t, {
      request: async () => ({
        method: 'PUT',
        url: `/payment-services/${await one()}/fee-schedule`,
        payload: { entries: [] },
      }),
      scope: 'payment-services.write',
    }));
});
