import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { subscribeToEvents } from '../../../../test/helpers/event-subscription.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { uuidv7 } from '../../../lib/ids.ts';

/** `PUT /payment-methods/{payment_method_id}`. */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const store = async (m: string, extra: Record<string, unknown> = {}) => {
  const res = await t.request({
    method: 'POST',
    url: '/payment-methods',
    merchantAccountId: m,
    payload: { method: 'card', number: '4111111111111111', expiration_date: '12/39', ...extra },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
};
const update = (m: string, id: string, payload: object) =>
  t.request({ method: 'PUT', url: `/payment-methods/${id}`, merchantAccountId: m, payload });
const stored = (id: string) =>
  t.deps.db
    .selectFrom('payment_methods')
    .select(['expiration_date', 'scheme_transaction_id', 'scheme_transaction_id_scheme', 'transaction_link_id'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
const events = (id: string) =>
  t.deps.db
    .selectFrom('events')
    .select(['kind', 'payload'])
    .where('resource_id', '=', id)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

describe('happy', () => {
  it('changes the expiry and answers the payment method as GET does', async () => {
    const m = await createMerchantAccount(t.deps);
    const buyer = (
      await t.request({ method: 'POST', url: '/buyers', merchantAccountId: m, payload: { display_name: 'Ada' } })
    ).json();
    const card = await store(m, { buyer_id: buyer.id });
    const res = await update(m, card.id, { expiration_date: '03/41' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      id: card.id,
      type: 'payment-method',
      expiration_date: '03/41',
      label: '1111',
      buyer: { id: buyer.id },
    });
    expect(res.json().updated_at > card.updated_at).toBe(true);
    expect(
      (await t.request({ method: 'GET', url: `/payment-methods/${card.id}`, merchantAccountId: m })).json(),
    ).toEqual(res.json());
  });

  it("stores the scheme transaction id with the card's scheme, and null clears both", async () => {
    const m = await createMerchantAccount(t.deps);
    const card = await store(m);
    const set = await update(m, card.id, { scheme_transaction_id: 'MCC123456789', transaction_link_id: 'link-1' });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toMatchObject({
      scheme_transaction_id: 'MCC123456789',
      scheme_transaction_id_scheme: 'visa',
      transaction_link_id: 'link-1',
    });
    expect(await stored(card.id)).toEqual({
      expiration_date: '12/39',
      scheme_transaction_id: 'MCC123456789',
      scheme_transaction_id_scheme: 'visa',
      transaction_link_id: 'link-1',
    });
    expect(
      (await update(m, card.id, { scheme_transaction_id: 'MCC2', scheme_transaction_id_scheme: 'mastercard' }))
        .statusCode,
    ).toBe(200);
    expect(await stored(card.id)).toMatchObject({
      scheme_transaction_id: 'MCC2',
      scheme_transaction_id_scheme: 'mastercard',
    });
    // A scheme already stored stays when a new id comes without one.
    expect((await update(m, card.id, { scheme_transaction_id: 'MCC3' })).statusCode).toBe(200);
    expect(await stored(card.id)).toMatchObject({
      scheme_transaction_id: 'MCC3',
      scheme_transaction_id_scheme: 'mastercard',
    });
    const cleared = await update(m, card.id, {
      scheme_transaction_id: null,
      transaction_link_id: null,
      expiration_date: null,
    });
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(await stored(card.id)).toEqual({
      expiration_date: '12/39',
      scheme_transaction_id: null,
      scheme_transaction_id_scheme: null,
      transaction_link_id: null,
    });
    expect(cleared.json()).toMatchObject({
      scheme_transaction_id: null,
      scheme_transaction_id_scheme: null,
      transaction_link_id: null,
    });
  });

  it('records an audit entry per update, and a payment_method.updated event only when something changed', async () => {
    const m = await createMerchantAccount(t.deps);
    await subscribeToEvents(t, m);
    const card = await store(m);
    await update(m, card.id, { expiration_date: '04/42' });
    await update(m, card.id, { expiration_date: '04/42' });
    await update(m, card.id, {});
    const kinds = (await events(card.id)).map((e) => e.kind);
    expect(kinds).toEqual(['payment_method.created', 'payment_method.updated']);
    expect((await events(card.id))[1]!.payload).toMatchObject({
      type: 'payment-method',
      id: card.id,
      expiration_date: '04/42',
    });
    const audit = (
      await t.request({ method: 'GET', url: '/audit-logs?resource_type=payment-method', merchantAccountId: m })
    ).json().items;
    expect(audit.map((e: { action: string }) => e.action)).toEqual(['updated', 'updated', 'updated', 'created']);
    expect(audit[0].resource).toEqual({ type: 'payment-method', id: card.id, name: 'visa 1111' });
  });
});

describe('errors', () => {
  it('422 with the location of each invalid field', async () => {
    const m = await createMerchantAccount(t.deps);
    const card = await store(m);
    const cases: Array<[object, string]> = [
      [{ expiration_date: '2041-03' }, 'expiration_date'],
      [{ expiration_date: '13/41' }, 'expiration_date'],
      [{ scheme_transaction_id: 'x'.repeat(101) }, 'scheme_transaction_id'],
      [{ scheme_transaction_id_scheme: 'no-such-scheme' }, 'scheme_transaction_id_scheme'],
      [{ transaction_link_id: 'x'.repeat(101) }, 'transaction_link_id'],
    ];
    for (const [payload, field] of cases) {
      const res = await update(m, card.id, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(422);
      expect(
        res.json().detail.map((d: { loc: string[] }) => d.loc.join('.')),
        JSON.stringify(payload),
      ).toContain(`body.${field}`);
    }
    expect(await stored(card.id)).toMatchObject({ expiration_date: '12/39', scheme_transaction_id: null });
    // Fields the update does not take are dropped, as everywhere (decision 0002): the number stays.
    const res = await update(m, card.id, { number: '5555555555554444', status: 'failed' });
    expect(res.json()).toMatchObject({ label: '1111', status: 'succeeded' });
  });

  it('400 for an expiry in the past', async () => {
    const m = await createMerchantAccount(t.deps);
    const card = await store(m);
    const res = await update(m, card.id, { expiration_date: '01/20' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'bad_request',
      details: [{ pointer: '/expiration_date', type: 'card_expired' }],
    });
  });

  it('404 for an unknown payment method', async () => {
    const res = await update('default', uuidv7(), { expiration_date: '03/41' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'not_found' });
  });
});

describe('security', () => {
  let m: string;
  let id: string;
  beforeAll(async () => {
    m = await createMerchantAccount(t.deps);
    await subscribeToEvents(t, m);
    id = (await store(m)).id;
  });

  runScopeTests(() => t, {
    request: () => ({
      method: 'PUT',
      url: `/payment-methods/${id}`,
      merchantAccountId: m,
      payload: { expiration_date: '03/41' },
    }),
    scope: 'payment-methods.write',
  });

  it("answers 404 for another merchant account's payment method and changes nothing", async () => {
    const other = await createMerchantAccount(t.deps);
    await subscribeToEvents(t, other);
    expect((await update(other, id, { expiration_date: '03/41', scheme_transaction_id: 'taken' })).statusCode).toBe(
      404,
    );
    expect(await stored(id)).toMatchObject({ expiration_date: '12/39', scheme_transaction_id: null });
    expect((await events(id)).map((e) => e.kind)).toEqual(['payment_method.created']);
  });
});
