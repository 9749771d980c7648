import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { subscribeToEvents } from '../../../../test/helpers/event-subscription.ts';
import { downloadCsv, runReport } from '../../../../test/helpers/reports.ts';
import { authorized, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';

/**
 * A transaction's snapshots are stored without what its columns hold (snapshot-codec.ts, decision
 * 0158): every answer reads the same from such a row as from a row written before, which holds
 * the whole snapshots.
 */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const stored = (id: string) =>
  t.deps.db
    .selectFrom('transactions')
    .select(['payment_method', 'payment_service', 'actions'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();

/**
 * The merchant account's rows as a row written before 0158 holds them: the whole snapshots the
 * writers build (keys a snapshot holds stay as they are).
 */
async function asWrittenBefore(m: string) {
  await sql`
    UPDATE transactions SET
      payment_method = CASE WHEN payment_method IS NULL OR payment_method ? 'method' THEN payment_method
        ELSE jsonb_strip_nulls(jsonb_build_object('method', method, 'id', payment_method_id, 'fingerprint', card_fingerprint)) || payment_method END,
      payment_service = CASE WHEN payment_service IS NULL OR payment_service ? 'type' THEN payment_service
        ELSE jsonb_build_object('type', 'payment-service', 'id', payment_service_id, 'method', method) || payment_service END,
      actions = (SELECT coalesce(jsonb_agg(CASE WHEN a->>'id' = 'route-transaction' AND a->'outcome' ? 'eligible'
                   THEN jsonb_set(a, '{outcome}', jsonb_build_object('rule', a->'rule_id', 'selected', payment_service_id) || (a->'outcome'))
                   ELSE a END ORDER BY n), '[]'::jsonb)
                 FROM jsonb_array_elements(actions) WITH ORDINALITY AS e (a, n))
    WHERE merchant_account_id = ${m}`.execute(t.deps.db);
}

async function storedCard(m: string) {
  const res = await t.request({
    method: 'POST',
    url: '/payment-methods',
    merchantAccountId: m,
    payload: { method: 'card', number: '4111111111111111', expiration_date: '12/40' },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

/** Every answer that renders the transactions, as bytes. */
async function answers(m: string, ids: string[]) {
  const get = async (url: string) => {
    const res = await t.request({ method: 'GET', url, merchantAccountId: m });
    expect(res.statusCode, res.body).toBe(200);
    return res.body;
  };
  const out: Record<string, string> = { list: await get('/transactions?limit=10') };
  for (const id of ids) {
    out[`get ${id}`] = await get(`/transactions/${id}`);
    out[`actions ${id}`] = await get(`/transactions/${id}/actions`);
  }
  for (const module of ['payment_service', 'rule_variant_id', 'payment_method_scheme', 'method'])
    out[`metrics ${module}`] = await get(
      `/metrics-explorer/authorization/metrics/transactions/modules/${module}?datetime_range=P7D/now`,
    );
  const { report, execution } = await runReport(t, m, {
    spec: {
      model: 'transactions',
      params: {
        fields: [
          'id',
          'method',
          'scheme',
          'payment_method_bin',
          'payment_method_last4',
          'payment_service_id',
          'payment_service_definition_id',
          'payment_service_display_name',
        ],
      },
    },
  });
  expect(execution.status).toBe('succeeded');
  out.report = (await downloadCsv(t, m, report.id, execution.id)).text;
  return out;
}

describe('happy', () => {
  it('stores the snapshots without what the columns hold, and every answer reads as from a row written before', async () => {
    const { merchantAccountId: m, paymentServiceId } = await merchantWithMockCard(t);
    await subscribeToEvents(t, m);
    const cardId = await storedCard(m);
    const byStoredCard = await authorized(t, m, { payment_method: { method: 'id', id: cardId } });
    const byCard = await authorized(t, m, { intent: 'capture' });
    const ids = [byStoredCard.id as string, byCard.id as string];

    const row = await stored(byStoredCard.id);
    expect(row.payment_method).toEqual({
      bin: '41111111',
      mode: 'card',
      label: '1111',
      scheme: 'visa',
      expiration_date: '12/40',
    });
    expect(row.payment_service).toEqual({ display_name: 'Mock card', payment_service_definition_id: 'mock-card' });
    expect(row.actions[0]!.outcome).toEqual({ skipped: [], eligible: [paymentServiceId] });
    expect(byStoredCard.payment_method).toMatchObject({ id: cardId, method: 'card' });
    expect(byStoredCard.payment_method.fingerprint).toEqual(expect.any(String));
    expect(byStoredCard.payment_service).toMatchObject({
      type: 'payment-service',
      id: paymentServiceId,
      method: 'card',
    });
    // A card paid without being stored: no id to leave out, its fingerprint is.
    expect(Object.keys((await stored(byCard.id)).payment_method as object).sort()).toEqual([
      'bin',
      'card_type',
      'expiration_date',
      'external_identifier',
      'label',
      'mode',
      'scheme',
    ]);

    const now = await answers(m, ids);
    expect(JSON.parse(now[`actions ${byStoredCard.id}`]!).items[0].outcome).toEqual({
      rule: 'first-eligible-by-position',
      skipped: [],
      eligible: [paymentServiceId],
      selected: paymentServiceId,
    });
    expect(JSON.parse(now['metrics rule_variant_id']!).map((r: { key: string }) => r.key)).toEqual([paymentServiceId]);

    // The webhook snapshot of an answer rendered from the read row (a capture), as the created one.
    const capture = await t.request({
      method: 'POST',
      url: `/transactions/${byStoredCard.id}/capture`,
      merchantAccountId: m,
      payload: {},
    });
    expect(capture.statusCode, capture.body).toBe(200);
    const payloads = await t.deps.db
      .selectFrom('events')
      .select(['kind', 'payload'])
      .where('resource_id', '=', byStoredCard.id)
      .orderBy('created_at')
      .execute();
    const snapshots = payloads
      .filter((e) => e.kind.startsWith('transaction.'))
      .map((e) => e.payload as Record<string, unknown>);
    expect(snapshots.length).toBeGreaterThanOrEqual(2);
    for (const payload of snapshots) {
      expect(payload.payment_method).toEqual(byStoredCard.payment_method);
      expect(payload.payment_service).toEqual(byStoredCard.payment_service);
    }

    const before = await answers(m, ids);
    await asWrittenBefore(m);
    expect((await stored(byStoredCard.id)).payment_method).toMatchObject({ id: cardId, method: 'card' });
    const after = await answers(m, ids);
    expect(after).toEqual(before);
  });
});
