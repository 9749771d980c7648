import { sql } from 'kysely';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { MockCardConnector } from '../../../connectors/mock/mock-card.connector.ts';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { subscribeToEvents } from '../../../../test/helpers/event-subscription.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { addBuyer, merchantWithMockCard, payoutCard, postPayout, storeCard } from '../../../../test/helpers/payouts.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';

let t: TestApp;
let merchant: string;
let service: string;
beforeAll(async () => {
  t = await buildTestApp();
  ({ merchantAccountId: merchant, paymentServiceId: service } = await merchantWithMockCard(t));
  // Payouts' webhook events are read: written only for a merchant account with a subscription.
  await subscribeToEvents(t, merchant);
});
afterAll(async () => t.close());

const post = (body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  postPayout(t, merchant, service, body, headers);
const MERCHANT = {
  name: 'Lucky Games Ltd',
  identification_number: 'MID-42',
  phone_number: '+442071234567',
  url: 'https://lucky.example',
  statement_descriptor: 'LUCKY GAMES',
  merchant_category_code: '7995',
};
const eventsOf = async (id: string) =>
  await t.deps.db
    .selectFrom('events')
    .select(['kind', 'payload'])
    .where('resource_id', '=', id)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

/** A 422 whose detail names `loc`. */
function expect422(res: LightMyRequestResponse, loc: (string | number)[]) {
  expect(res.statusCode, res.body).toBe(422);
  expect(
    res.json().detail.map((d: { loc: unknown }) => d.loc),
    res.body,
  ).toContainEqual(loc);
}

/** A 400 whose detail points at `pointer`. */
function expect400(res: LightMyRequestResponse, pointer: string) {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json()).toMatchObject({ type: 'error', code: 'bad_request', status: 400 });
  expect(
    res.json().details.map((d: { pointer: string }) => d.pointer),
    res.body,
  ).toContain(pointer);
}

describe('happy', () => {
  it('pays out to a card: 201, succeeded, the card masked and never stored', async () => {
    const res = await post({
      external_identifier: 'po-1',
      category: 'online_gambling',
      merchant: { ...MERCHANT, address: { line1: '1 Main St', country: 'GB' } },
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      type: 'payout',
      id: expect.any(String),
      merchant_account_id: merchant,
      status: 'succeeded',
      amount: 1000,
      currency: 'USD',
      category: 'online_gambling',
      external_identifier: 'po-1',
      payment_method: expect.objectContaining({
        type: 'payment-method',
        id: null,
        method: 'card',
        label: '1111',
        scheme: 'visa',
        expiration_date: '12/40',
        details: { bin: '41111111', card_type: null, card_issuer_name: null },
      }),
      payment_service: {
        type: 'payment-service',
        id: service,
        method: 'card',
        payment_service_definition_id: 'mock-card',
        display_name: 'Mock card',
      },
      payment_service_payout_id: expect.stringMatching(/^mock_pay_/),
      buyer: null,
      merchant: {
        type: 'merchant',
        ...MERCHANT,
        address: expect.objectContaining({ line1: '1 Main St', country: 'GB', city: null }),
      },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(res.body).not.toContain('4111111111111111');
    const stored = await sql<{
      text: string;
    }>`SELECT row_to_json(p)::text AS text FROM payouts p WHERE id = ${body.id}`.execute(t.deps.db);
    expect(stored.rows[0]!.text).not.toContain('4111111111111111');
    const cards = await t.deps.db
      .selectFrom('payment_methods')
      .select('id')
      .where('merchant_account_id', '=', merchant)
      .execute();
    expect(cards).toEqual([]);
    expect((await t.request({ method: 'GET', url: `/payouts/${body.id}`, merchantAccountId: merchant })).body).toBe(
      res.body,
    );
  });

  it("pays out to a stored card by its id alone; the card's buyer becomes the payout's buyer", async () => {
    const buyer = await addBuyer(t, merchant);
    const card = await storeCard(t, merchant, '5555555555554444', buyer);
    const res = await post({ payment_method: { id: card } });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      status: 'succeeded',
      payment_method: { id: card, label: '4444', scheme: 'mastercard' },
      buyer: { type: 'buyer', id: buyer, display_name: 'Ada Lovelace' },
    });
    expect((await post({ payment_method: { method: 'id', id: card }, buyer_id: buyer })).json()).toMatchObject({
      status: 'succeeded',
      buyer: { id: buyer },
    });
  });

  it("masks the buyer's billing details without buyers.billing-details.read", async () => {
    const res = await postPayout(
      t,
      merchant,
      service,
      {
        buyer: { display_name: 'Guest', billing_details: { first_name: 'Grace', email_address: 'grace@example.com' } },
      },
      {},
      ['payouts.write'],
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().buyer).toMatchObject({ id: null, display_name: 'Guest' });
    expect(res.body).not.toContain('grace@example.com');
  });

  it('names a stored buyer by external identifier', async () => {
    const buyer = await addBuyer(t, merchant, { external_identifier: 'buyer-ext-1' });
    expect((await post({ buyer_external_identifier: 'buyer-ext-1' })).json()).toMatchObject({
      buyer: { id: buyer, external_identifier: 'buyer-ext-1' },
    });
  });

  it('passes the merchant, category and the attempt id as idempotency key to the connector', async () => {
    const connector = t.deps.connectors.get('mock-card') as MockCardConnector;
    const spy = vi.spyOn(connector, 'payout');
    try {
      const res = await post({
        category: 'online_gambling',
        merchant: MERCHANT,
        connection_options: { 'checkout-card': { processing_channel_id: 'pc_1', source_id: 'src_1' } },
      });
      expect(res.statusCode, res.body).toBe(201);
      const request = spy.mock.calls[0]![0];
      const attempt = await t.deps.db
        .selectFrom('payout_attempts')
        .selectAll()
        .where('payout_id', '=', res.json().id)
        .executeTakeFirstOrThrow();
      expect(request).toMatchObject({
        idempotencyKey: attempt.id,
        amount: 1000,
        currency: 'USD',
        category: 'online_gambling',
        merchant: { name: MERCHANT.name, statementDescriptor: 'LUCKY GAMES', address: null },
      });
      expect(attempt).toMatchObject({
        status: 'succeeded',
        next_check_at: null,
        provider_reference: res.json().payment_service_payout_id,
      });
    } finally {
      spy.mockRestore();
    }
  });

  it('writes payout.<status> webhook events and an audit entry', async () => {
    const ok = (await post()).json();
    expect(await eventsOf(ok.id)).toEqual([
      { kind: 'payout.succeeded', payload: expect.objectContaining({ id: ok.id, status: 'succeeded' }) },
    ]);
    const declined = (await post({ amount: 3005 })).json();
    expect((await eventsOf(declined.id)).map((e) => e.kind)).toEqual(['payout.declined']);
    const audit = await t.request({
      method: 'GET',
      url: '/audit-logs?resource_type=payout',
      merchantAccountId: merchant,
    });
    expect(audit.json().items.map((e: { resource: { id: string } }) => e.resource.id)).toEqual(
      expect.arrayContaining([ok.id, declined.id]),
    );
  });

  it('replays a creation with the same idempotency key byte for byte, paying out once', async () => {
    const key = `payout-${Date.now()}`;
    const first = await post({}, { 'idempotency-key': key });
    const again = await post({}, { 'idempotency-key': key });
    expect(first.statusCode).toBe(201);
    expect([again.statusCode, again.headers['idempotent-replayed'], again.body]).toEqual([201, 'true', first.body]);
  });

  it('lets exactly one of 20 concurrent identical creations with one key pay out, with one connector call', async () => {
    const m = await merchantWithMockCard(t);
    const connector = t.deps.connectors.get('mock-card') as MockCardConnector;
    const spy = vi.spyOn(connector, 'payout');
    try {
      const key = `parallel-${Date.now()}`;
      const responses = await Promise.all(
        Array.from({ length: 20 }, () =>
          postPayout(t, m.merchantAccountId, m.paymentServiceId, {}, { 'idempotency-key': key }),
        ),
      );
      for (const res of responses) expect([201, 425]).toContain(res.statusCode);
      const created = responses.filter((res) => res.statusCode === 201);
      expect(created.filter((res) => res.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
      for (const res of created) expect(res.body).toBe(created[0]!.body);
      const rows = await t.deps.db
        .selectFrom('payouts')
        .select('id')
        .where('merchant_account_id', '=', m.merchantAccountId)
        .execute();
      expect(rows).toHaveLength(1);
      expect(spy.mock.calls.filter(([request]) => request.currency === 'USD' && request.amount === 1000)).toHaveLength(
        1,
      );
    } finally {
      spy.mockRestore();
    }
  });
});

describe('errors', () => {
  it.each([
    ['amount below 0', { amount: -1 }, ['body', 'amount']],
    ['amount above 99999999', { amount: 100_000_000 }, ['body', 'amount']],
    ['amount not an integer', { amount: 10.5 }, ['body', 'amount']],
    ['currency not ISO 4217 shaped', { currency: 'usd' }, ['body', 'currency']],
    ['payment_service_id not a uuid', { payment_service_id: 'mock-card' }, ['body', 'payment_service_id']],
    ['card number not digits', { payment_method: payoutCard('4111-1111-1111') }, ['body', 'payment_method', 'number']],
    [
      'card expiration not MM/YY',
      { payment_method: payoutCard(undefined, { expiration_date: '2040-12' }) },
      ['body', 'payment_method', 'expiration_date'],
    ],
    [
      'card without expiration',
      { payment_method: { method: 'card', number: '4111111111111111' } },
      ['body', 'payment_method', 'expiration_date'],
    ],
    ['stored card id not a uuid', { payment_method: { id: 'card-1' } }, ['body', 'payment_method', 'id']],
    ['stored card form without id', { payment_method: { method: 'id' } }, ['body', 'payment_method', 'id']],
    ['category outside the enum', { category: 'lottery' }, ['body', 'category']],
    ['external_identifier empty', { external_identifier: '' }, ['body', 'external_identifier']],
    ['external_identifier over 200', { external_identifier: 'x'.repeat(201) }, ['body', 'external_identifier']],
    ['buyer_external_identifier empty', { buyer_external_identifier: '' }, ['body', 'buyer_external_identifier']],
    [
      'buyer_external_identifier over 200',
      { buyer_external_identifier: 'x'.repeat(201) },
      ['body', 'buyer_external_identifier'],
    ],
    ['buyer_id not a uuid', { buyer_id: 'ada' }, ['body', 'buyer_id']],
    [
      'statement_descriptor under 5',
      { merchant: { ...MERCHANT, statement_descriptor: 'LUCK' } },
      ['body', 'merchant', 'statement_descriptor'],
    ],
    [
      'statement_descriptor over 22',
      { merchant: { ...MERCHANT, statement_descriptor: 'L'.repeat(23) } },
      ['body', 'merchant', 'statement_descriptor'],
    ],
    [
      'merchant phone not E.164',
      { merchant: { ...MERCHANT, phone_number: '020 7123 4567' } },
      ['body', 'merchant', 'phone_number'],
    ],
    [
      'merchant phone with a leading 0',
      { merchant: { ...MERCHANT, phone_number: '+0441234' } },
      ['body', 'merchant', 'phone_number'],
    ],
    ['merchant without name', { merchant: { ...MERCHANT, name: undefined } }, ['body', 'merchant', 'name']],
    [
      'merchant_category_code over 4',
      { merchant: { ...MERCHANT, merchant_category_code: '79955' } },
      ['body', 'merchant', 'merchant_category_code'],
    ],
    [
      'connection options of checkout-card without source_id',
      { connection_options: { 'checkout-card': { processing_channel_id: 'pc_1' } } },
      ['body', 'connection_options', 'checkout-card', 'source_id'],
    ],
  ])('answers 422 naming the field: %s', async (_name, body, loc) => {
    expect422(await post(body), loc);
  });

  it.each(['amount', 'currency', 'payment_service_id', 'payment_method'])(
    'answers 422 when %s is missing',
    async (field) => {
      const body: Record<string, unknown> = {
        amount: 1000,
        currency: 'USD',
        payment_service_id: service,
        payment_method: payoutCard(),
      };
      delete body[field];
      expect422(await t.request({ method: 'POST', url: '/payouts', merchantAccountId: merchant, payload: body }), [
        'body',
        field,
      ]);
    },
  );

  it('accepts statement descriptors of 5 and 22 characters and an E.164 phone', async () => {
    for (const descriptor of ['LUCKY', 'L'.repeat(22)])
      expect((await post({ merchant: { ...MERCHANT, statement_descriptor: descriptor } })).statusCode).toBe(201);
  });

  it('answers 400 naming the field for more than one of buyer_id, buyer and buyer_external_identifier', async () => {
    const buyer = await addBuyer(t, merchant);
    expect400(await post({ buyer_id: buyer, buyer_external_identifier: 'x' }), '/buyer_external_identifier');
    expect400(await post({ buyer_id: buyer, buyer: { display_name: 'Guest' } }), '/buyer');
  });

  it('checks a card like a stored card: number and expiry', async () => {
    expect400(await post({ payment_method: payoutCard('4111111111111112') }), '/payment_method/number');
    expect400(
      await post({ payment_method: payoutCard(undefined, { expiration_date: '01/20' }) }),
      '/payment_method/expiration_date',
    );
  });

  it('answers 404 for an unknown payment service, buyer or stored card', async () => {
    const unknown = '018f0000-0000-7000-8000-000000000000';
    expect((await post({ payment_service_id: unknown })).json()).toMatchObject({ code: 'not_found', status: 404 });
    expect((await post({ buyer_id: unknown })).json()).toMatchObject({ code: 'not_found', status: 404 });
    expect((await post({ payment_method: { id: unknown } })).json()).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('answers 400 for an inactive payment service, one without payouts, or a currency it does not accept', async () => {
    const m = await merchantWithMockCard(t);
    expect400(await postPayout(t, m.merchantAccountId, m.paymentServiceId, { currency: 'JPY' }), '/currency');
    const redirect = await t.request({
      method: 'POST',
      url: '/payment-services',
      merchantAccountId: m.merchantAccountId,
      payload: {
        display_name: 'Bank',
        payment_service_definition_id: 'mock-paybybank',
        fields: [{ key: 'merchant_id', value: 'm' }],
        accepted_currencies: ['USD'],
        accepted_countries: ['US'],
      },
    });
    expect(redirect.statusCode, redirect.body).toBe(201);
    expect400(await postPayout(t, m.merchantAccountId, redirect.json().id), '/payment_service_id');
    const off = await t.request({
      method: 'PUT',
      url: `/payment-services/${m.paymentServiceId}`,
      merchantAccountId: m.merchantAccountId,
      payload: { active: false },
    });
    expect(off.statusCode, off.body).toBe(200);
    expect400(await postPayout(t, m.merchantAccountId, m.paymentServiceId), '/payment_service_id');
    expect(
      await t.deps.db
        .selectFrom('payouts')
        .select('id')
        .where('merchant_account_id', '=', m.merchantAccountId)
        .execute(),
    ).toEqual([]);
  });

  it('answers 400 when the stored card belongs to another buyer than the one named', async () => {
    const owner = await addBuyer(t, merchant);
    const other = await addBuyer(t, merchant, { external_identifier: 'not-the-owner' });
    const card = await storeCard(t, merchant, '4111111111111111', owner);
    expect400(await post({ payment_method: { id: card }, buyer_id: other }), '/buyer_id');
    expect400(
      await post({ payment_method: { id: card }, buyer_external_identifier: 'not-the-owner' }),
      '/buyer_external_identifier',
    );
    expect400(await post({ payment_method: { id: card }, buyer: { display_name: 'Guest' } }), '/buyer');
  });
});

describe('security', () => {
  runScopeTests(() => t, {
    request: () => ({
      method: 'POST',
      url: '/payouts',
      merchantAccountId: merchant,
      payload: { amount: 1, currency: 'USD', payment_service_id: service, payment_method: payoutCard() },
    }),
    scope: 'payouts.write',
  });

  it('never logs the card number, whatever the outcome', async () => {
    const number = '4000000000000572';
    for (const amount of [1000, 3408, 3094])
      expect((await post({ amount, payment_method: payoutCard(number) })).statusCode).toBe(201);
    expect((await post({ payment_method: payoutCard('4111111111111112') })).body).not.toContain('4111111111111112');
    expect(t.logs.join('\n')).not.toContain(number);
    expect(t.logs.join('\n')).not.toContain('4111111111111112');
  });

  it("answers 404 for another merchant account's stored card or payment service, and pays nothing", async () => {
    const other = await createMerchantAccount(t.deps);
    const othersCard = await storeCard(t, other);
    const res = await post({ payment_method: { id: othersCard } });
    expect(res.json()).toMatchObject({ code: 'not_found', status: 404 });
    const theirs = await merchantWithMockCard(t);
    expect((await post({ payment_service_id: theirs.paymentServiceId })).json()).toMatchObject({
      code: 'not_found',
      status: 404,
    });
    expect(
      await t.deps.db.selectFrom('payouts').select('id').where('payment_method_id', '=', othersCard).execute(),
    ).toEqual([]);
  });
});
