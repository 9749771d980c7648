import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { TEST_GIFT_CARD_PIN as PIN, TEST_GIFT_CARDS } from '../../../connectors/gift-cards/mock-gift-card.ts';
import { builtInGiftCardServiceId } from '../gift-card-service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const [DEFAULT, SMALL, EXPIRED, INACTIVE, EURO] = TEST_GIFT_CARDS.map((card) => card.number) as [
  string,
  string,
  string,
  string,
  string,
];
const store = (merchantAccountId: string, payload: object) =>
  t.request({ method: 'POST', url: '/gift-cards', payload, merchantAccountId });
const addBuyer = async (merchantAccountId: string, externalIdentifier: string) =>
  (
    await t.request({
      method: 'POST',
      url: '/buyers',
      payload: { display_name: externalIdentifier, external_identifier: externalIdentifier },
      merchantAccountId,
    })
  ).json();

describe('happy', () => {
  it('stores a gift card, checked by the service, and shows only its bin, sub_bin and last4', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const res = await store(merchant, { number: DEFAULT, pin: PIN });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      type: 'gift-card',
      id: expect.any(String),
      merchant_account_id: merchant,
      gift_card_service: {
        type: 'gift-card-service',
        id: builtInGiftCardServiceId(merchant),
        gift_card_service_definition_id: 'mock-gift-card',
        display_name: 'Mock gift card service',
      },
      bin: '603628',
      sub_bin: '100',
      last4: '0001',
      expiration_date: '2099-12-31T23:59:59.000Z',
      buyer: null,
      usage_count: 0,
      cit_usage_count: 0,
      last_used_at: null,
      cit_last_used_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(
      (await t.request({ method: 'GET', url: `/gift-cards/${body.id}`, merchantAccountId: merchant })).json(),
    ).toEqual(body);
  });

  it('counts succeeded redemptions as usage, customer-initiated ones apart', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const { id } = (await store(merchant, { number: DEFAULT, pin: PIN })).json();
    const [cit, mit] = ['018f0000-0000-7000-8000-0000000000c1', '018f0000-0000-7000-8000-0000000000c2'];
    await sql`INSERT INTO transactions (merchant_account_id, id, status, intent, intent_outcome, currency, amount, method, payment_source, merchant_initiated, is_subsequent_payment)
      VALUES (${merchant}, ${cit}, 'capture_succeeded', 'capture', 'succeeded', 'USD', 100, 'gift-card', 'ecommerce', false, false),
             (${merchant}, ${mit}, 'capture_succeeded', 'capture', 'succeeded', 'USD', 100, 'gift-card', 'recurring', true, true)`.execute(
      t.deps.db,
    );
    const redemption = {
      merchant_account_id: merchant,
      gift_card_id: id,
      fingerprint: 'f',
      bin: '603628',
      sub_bin: '100',
      last4: '0001',
      amount: 100,
    };
    await t.deps.db
      .insertInto('gift_card_redemptions')
      .values([
        {
          ...redemption,
          id: '018f0000-0000-7000-8000-0000000000d1',
          transaction_id: cit,
          status: 'succeeded',
          created_at: '2026-01-01T00:00:00.000Z',
        },
        {
          ...redemption,
          id: '018f0000-0000-7000-8000-0000000000d2',
          transaction_id: mit,
          status: 'succeeded',
          created_at: '2026-02-01T00:00:00.000Z',
        },
        {
          ...redemption,
          id: '018f0000-0000-7000-8000-0000000000d3',
          transaction_id: cit,
          status: 'failed',
          created_at: '2026-03-01T00:00:00.000Z',
        },
      ])
      .execute();
    const usage = {
      usage_count: 2,
      last_used_at: '2026-02-01T00:00:00.000Z',
      cit_usage_count: 1,
      cit_last_used_at: '2026-01-01T00:00:00.000Z',
    };
    expect(
      (await t.request({ method: 'GET', url: `/gift-cards/${id}`, merchantAccountId: merchant })).json(),
    ).toMatchObject(usage);
    expect(
      (await t.request({ method: 'GET', url: '/gift-cards', merchantAccountId: merchant })).json().items[0],
    ).toMatchObject(usage);
  });

  it('keeps number and pin only as ciphertexts bound to the row', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const { id } = (await store(merchant, { number: SMALL, pin: PIN })).json();
    const row = await t.deps.db.selectFrom('gift_cards').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(SMALL);
    const binding = (column: string) => ({ table: 'gift_cards', column, rowId: id });
    expect(
      await t.deps.vault.decrypt(
        t.deps.db,
        merchant,
        { ciphertext: row.number_ciphertext, keyId: row.number_key_id },
        binding('number'),
      ),
    ).toBe(SMALL);
    expect(
      await t.deps.vault.decrypt(
        t.deps.db,
        merchant,
        { ciphertext: row.pin_ciphertext, keyId: row.pin_key_id },
        binding('pin'),
      ),
    ).toBe(PIN);
    await expect(
      t.deps.vault.decrypt(
        t.deps.db,
        merchant,
        { ciphertext: row.pin_ciphertext, keyId: row.pin_key_id },
        binding('number'),
      ),
    ).rejects.toThrow();
  });

  it('links a buyer by id or external identifier, lists newest first with filters, and detaches on buyer deletion', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const buyer = await addBuyer(merchant, 'gc-holder');
    const byId = (await store(merchant, { number: DEFAULT, pin: PIN, buyer_id: buyer.id })).json();
    const byRef = (await store(merchant, { number: EURO, pin: PIN, buyer_external_identifier: 'gc-holder' })).json();
    const loose = (await store(merchant, { number: '1111222233334444', pin: 'x' })).json();
    expect(byRef.buyer).toMatchObject({ id: buyer.id, type: 'buyer' });
    const list = (query: string) =>
      t.request({ method: 'GET', url: `/gift-cards${query}`, merchantAccountId: merchant });
    expect((await list('')).json().items.map((c: { id: string }) => c.id)).toEqual([loose.id, byRef.id, byId.id]);
    expect((await list(`?buyer_id=${buyer.id}`)).json().items.map((c: { id: string }) => c.id)).toEqual([
      byRef.id,
      byId.id,
    ]);
    expect((await list('?buyer_external_identifier=gc-holder&limit=1')).json()).toMatchObject({
      items: [{ id: byRef.id }],
      limit: 1,
      next_cursor: expect.any(String),
    });
    expect((await list('?buyer_external_identifier=nobody')).json().items).toEqual([]);
    expect(
      (await t.request({ method: 'DELETE', url: `/buyers/${buyer.id}`, merchantAccountId: merchant })).statusCode,
    ).toBe(204);
    expect(
      (await t.request({ method: 'GET', url: `/gift-cards/${byId.id}`, merchantAccountId: merchant })).json().buyer,
    ).toBeNull();
  });

  it('deletes a gift card with its ciphertexts and writes audit entries', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const { id } = (await store(merchant, { number: DEFAULT, pin: PIN })).json();
    const res = await t.request({ method: 'DELETE', url: `/gift-cards/${id}`, merchantAccountId: merchant });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await t.request({ method: 'GET', url: `/gift-cards/${id}`, merchantAccountId: merchant })).statusCode).toBe(
      404,
    );
    const audit = await t.deps.db
      .selectFrom('audit_logs')
      .select(['action', 'resource_type', 'resource_name'])
      .where('resource_id', '=', id)
      .orderBy('created_at')
      .execute();
    expect(audit).toEqual([
      { action: 'created', resource_type: 'gift-card', resource_name: 'gift card 0001' },
      { action: 'deleted', resource_type: 'gift-card', resource_name: 'gift card 0001' },
    ]);
    // Stored again after deletion: no longer a duplicate.
    expect((await store(merchant, { number: DEFAULT, pin: PIN })).statusCode).toBe(201);
  });
});

describe('errors', () => {
  it('refuses expired, inactive and invalid cards with 400 naming the problem', async () => {
    const merchant = await createMerchantAccount(t.deps);
    for (const [number, pin, code] of [
      [EXPIRED, PIN, 'expired_card'],
      [INACTIVE, PIN, 'inactive_card'],
      [DEFAULT, '9999', 'invalid_gift_card'],
    ] as const) {
      const res = await store(merchant, { number, pin });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({
        code: 'bad_request',
        details: [{ location: 'body', pointer: '/number', type: code }],
      });
      expect(res.json().message).toContain(code);
    }
    expect((await t.request({ method: 'GET', url: '/gift-cards', merchantAccountId: merchant })).json().items).toEqual(
      [],
    );
  });

  it('answers 409 duplicate_record with the stored card for the same card stored twice', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const first = (await store(merchant, { number: DEFAULT, pin: PIN })).json();
    const again = await store(merchant, { number: DEFAULT, pin: PIN });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'duplicate_record', resource_id: first.id });
    // Another merchant account stores its own copy.
    expect((await store(await createMerchantAccount(t.deps), { number: DEFAULT, pin: PIN })).statusCode).toBe(201);
  });

  it('validates the body: digits, both buyer keys, unknown buyer', async () => {
    const merchant = await createMerchantAccount(t.deps);
    expect((await store(merchant, { number: '123456789012345', pin: PIN })).statusCode).toBe(422);
    expect((await store(merchant, { number: DEFAULT })).statusCode).toBe(422);
    const both = await store(merchant, {
      number: DEFAULT,
      pin: PIN,
      buyer_id: '018f0000-0000-7000-8000-000000000000',
      buyer_external_identifier: 'x',
    });
    expect(both.statusCode).toBe(400);
    expect(
      (await store(merchant, { number: DEFAULT, pin: PIN, buyer_id: '018f0000-0000-7000-8000-000000000000' }))
        .statusCode,
    ).toBe(404);
    expect(
      (
        await t.request({
          method: 'GET',
          url: '/gift-cards/018f0000-0000-7000-8000-000000000000',
          merchantAccountId: merchant,
        })
      ).statusCode,
    ).toBe(404);
    expect(
      (await t.request({ method: 'GET', url: '/gift-cards?buyer_id=nope', merchantAccountId: merchant })).statusCode,
    ).toBe(422);
  });
});

describe('security', () => {
  describe('create', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'POST', url: '/gift-cards', payload: { number: '5555000011112222', pin: PIN } }),
      scope: 'gift-cards.write',
    }));
  describe('list', () =>
    runScopeTests(() => t, { request: () => ({ method: 'GET', url: '/gift-cards' }), scope: 'gift-cards.read' }));
  describe('delete', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'DELETE', url: '/gift-cards/018f0000-0000-7000-8000-000000000000' }),
      scope: 'gift-cards.write',
    }));

  it("does not show one merchant account's gift cards to another", async () => {
    const mine = await createMerchantAccount(t.deps);
    const other = await createMerchantAccount(t.deps);
    const { id } = (await store(mine, { number: SMALL, pin: PIN })).json();
    expect((await t.request({ method: 'GET', url: `/gift-cards/${id}`, merchantAccountId: other })).statusCode).toBe(
      404,
    );
    expect((await t.request({ method: 'DELETE', url: `/gift-cards/${id}`, merchantAccountId: other })).statusCode).toBe(
      404,
    );
    expect((await t.request({ method: 'GET', url: '/gift-cards', merchantAccountId: other })).json().items).toEqual([]);
  });

  it('never lets a gift card number or pin reach a response, a log line or an audit entry', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const pin = '8642';
    const numbers = ['7777666655554444333', '7777666655554444'];
    const bodies: string[] = [];
    for (const number of numbers) {
      const res = await store(merchant, { number, pin });
      bodies.push(
        res.body,
        (await t.request({ method: 'GET', url: `/gift-cards/${res.json().id}`, merchantAccountId: merchant })).body,
      );
      bodies.push((await store(merchant, { number, pin })).body);
      bodies.push(
        (
          await t.request({
            method: 'POST',
            url: '/gift-cards/balances',
            payload: { items: [{ number, pin }, { id: res.json().id }] },
            merchantAccountId: merchant,
          })
        ).body,
      );
    }
    bodies.push((await store(merchant, { number: DEFAULT, pin })).body);
    bodies.push((await store(merchant, { number: '77776666', pin })).body);
    bodies.push((await t.request({ method: 'GET', url: '/gift-cards?limit=100', merchantAccountId: merchant })).body);
    const audit = await sql<{ text: string }>`SELECT row_to_json(a)::text AS text FROM audit_logs a`.execute(t.deps.db);
    const everything = [...bodies, ...t.logs, ...audit.rows.map((r) => r.text)].join('\n');
    for (const number of [...numbers, DEFAULT, '77776666']) expect(everything).not.toContain(number);
    // As a value of its own: four digits also turn up by chance inside ids and ciphertexts.
    expect(everything).not.toContain(`"${pin}"`);
  });
});
