import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/build-test-app.ts';
import { merchantWithMockCard } from '../../../test/helpers/transactions.ts';
import { FlowRuleCache } from './rule-cache.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

describe('FlowRuleCache', () => {
  it('serves enabled rules in order from memory, and another process sees a change once the TTL has passed', async () => {
    const { merchantAccountId: m, paymentServiceId: ps } = await merchantWithMockCard(t);
    let clock = 0;
    // Another process's cache: the app's writes do not invalidate it.
    const other = new FlowRuleCache(t.deps.db, 5_000, 10_000, () => clock);
    const url = '/flows/card-transaction/actions/route-transaction/rules';
    const first = (
      await t.request({
        method: 'POST',
        url,
        merchantAccountId: m,
        payload: { conditions: [], outcome: { payment_service_ids: [ps] } },
      })
    ).json().id;
    expect((await other.rules(m, 'card-transaction', 'route-transaction')).map((r) => r.id)).toEqual([first]);
    const second = (
      await t.request({
        method: 'POST',
        url,
        merchantAccountId: m,
        payload: { position: 1, conditions: [], outcome: { payment_service_ids: [ps] } },
      })
    ).json().id;
    await t.request({ method: 'PUT', url: `${url}/${first}`, merchantAccountId: m, payload: { enabled: false } });
    clock = 4_999;
    expect((await other.rules(m, 'card-transaction', 'route-transaction')).map((r) => r.id)).toEqual([first]);
    clock = 5_000;
    expect((await other.rules(m, 'card-transaction', 'route-transaction')).map((r) => r.id)).toEqual([second]);
    // The process that made the change sees it at once.
    expect((await t.deps.flowRules.rules(m, 'card-transaction', 'route-transaction')).map((r) => r.id)).toEqual([
      second,
    ]);
    expect(await other.rules(m, 'checkout', 'select-payment-options')).toEqual([]);
  });
});
