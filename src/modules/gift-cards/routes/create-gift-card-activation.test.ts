import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { mintToken } from '../../../cli/token.ts';
import {
  TEST_GIFT_CARD_PIN as PIN,
  TEST_GIFT_CARDS,
  UNACTIVATED_GIFT_CARD_PREFIX,
  lookupTestGiftCard,
} from '../../../connectors/gift-cards/mock-gift-card.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { builtInGiftCardServiceId } from '../gift-card-service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const [DEFAULT, , EXPIRED, INACTIVE, , , FAILING] = TEST_GIFT_CARDS.map((card) => card.number) as string[];
/** A fresh unactivated card number (19 digits) per call. */
const fresh = () => `${UNACTIVATED_GIFT_CARD_PREFIX}${uuidv7().replace(/\D/g, '').slice(-12).padStart(12, '0')}`;
const activate = (
  merchantAccountId: string,
  payload: object,
  extra: { token?: string; headers?: Record<string, string> } = {},
) => t.request({ method: 'POST', url: '/gift-cards/activations', payload, merchantAccountId, ...extra });
const balanceOf = async (merchantAccountId: string, item: object) =>
  (
    await t.request({ method: 'POST', url: '/gift-cards/balances', payload: { items: [item] }, merchantAccountId })
  ).json().items[0];
const auditOf = (id: string) =>
  t.deps.db
    .selectFrom('audit_logs')
    .select(['action', 'resource_type', 'resource_name', 'operation_id'])
    .where('resource_id', '=', id)
    .orderBy('resource_type')
    .execute();
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
  it('activates a card without storing it: the answer describes the card, its id is the activation, the balance is the amount', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const number = fresh();
    expect(await balanceOf(merchant, { number, pin: 'any' })).toMatchObject({
      balance: null,
      balance_error_code: 'inactive_card',
    });
    const res = await activate(merchant, { number, amount: 4200, currency: 'EUR', external_identifier: 'order-1' });
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
      bin: number.slice(0, 6),
      sub_bin: number.slice(6, 9),
      last4: number.slice(-4),
      expiration_date: null,
      buyer: null,
      usage_count: 0,
      cit_usage_count: 0,
      last_used_at: null,
      cit_last_used_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(
      (await t.request({ method: 'GET', url: `/gift-cards/${body.id}`, merchantAccountId: merchant })).statusCode,
    ).toBe(404);
    expect(await balanceOf(merchant, { number, pin: 'any' })).toMatchObject({
      balance: 4200,
      currency: 'EUR',
      balance_error_code: null,
    });
    const row = await t.deps.db
      .selectFrom('gift_card_activations')
      .selectAll()
      .where('id', '=', body.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      amount: 4200,
      currency: 'EUR',
      external_identifier: 'order-1',
      gift_card_id: null,
      gift_card_service_activation_id: expect.stringMatching(/^mock-gca-/),
    });
    expect(await auditOf(body.id)).toEqual([
      {
        action: 'created',
        resource_type: 'gift-card-activation',
        resource_name: `gift card activation ${number.slice(-4)}`,
        operation_id: 'createGiftCardActivation',
      },
    ]);
  });

  it('takes the face value without amount and currency, and the card can then be stored by POST /gift-cards', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const res = await activate(merchant, { number: INACTIVE, pin: PIN });
    expect(res.statusCode, res.body).toBe(201);
    expect(await balanceOf(merchant, { number: INACTIVE, pin: PIN })).toMatchObject({ balance: 2500, currency: 'USD' });
    expect(
      (
        await t.request({
          method: 'POST',
          url: '/gift-cards',
          payload: { number: INACTIVE, pin: PIN },
          merchantAccountId: merchant,
        })
      ).statusCode,
    ).toBe(201);
    // Per merchant account: another account has not activated it.
    expect(await balanceOf(await createMerchantAccount(t.deps), { number: INACTIVE, pin: PIN })).toMatchObject({
      balance_error_code: 'inactive_card',
    });
  });

  it('stores the card with store=true for a buyer, encrypted, under the same id as the activation', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const buyer = await addBuyer(merchant, 'activation-holder');
    const number = fresh();
    const res = await activate(merchant, {
      number,
      pin: '5678',
      amount: 1000,
      currency: 'USD',
      store: true,
      buyer_external_identifier: 'activation-holder',
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body.buyer).toMatchObject({ id: buyer.id, type: 'buyer' });
    expect(
      (await t.request({ method: 'GET', url: `/gift-cards/${body.id}`, merchantAccountId: merchant })).json(),
    ).toEqual(body);
    expect(await balanceOf(merchant, { id: body.id })).toMatchObject({ id: body.id, balance: 1000, currency: 'USD' });
    const row = await t.deps.db
      .selectFrom('gift_cards')
      .selectAll()
      .where('id', '=', body.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(number);
    const binding = (column: string) => ({ table: 'gift_cards', column, rowId: body.id });
    expect(
      await t.deps.vault.decrypt(
        t.deps.db,
        merchant,
        { ciphertext: row.pin_ciphertext, keyId: row.pin_key_id },
        binding('pin'),
      ),
    ).toBe('5678');
    expect(
      (
        await t.deps.db
          .selectFrom('gift_card_activations')
          .select('gift_card_id')
          .where('id', '=', body.id)
          .executeTakeFirstOrThrow()
      ).gift_card_id,
    ).toBe(body.id);
    expect((await auditOf(body.id)).map((entry) => entry.resource_type)).toEqual(['gift-card', 'gift-card-activation']);
  });

  it('replays the same answer byte for byte for the same idempotency-key, activating once', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const payload = { number: fresh(), amount: 300, currency: 'USD' };
    const headers = { 'idempotency-key': `act-${uuidv7()}` };
    const first = await activate(merchant, payload, { headers });
    expect(first.statusCode, first.body).toBe(201);
    const again = await activate(merchant, payload, { headers });
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    const count = await t.deps.db
      .selectFrom('gift_card_activations')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('merchant_account_id', '=', merchant)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
    // Without the key the card is already active.
    expect((await activate(merchant, payload)).statusCode).toBe(400);
  });
});

describe('errors', () => {
  it('validates the body with 422 naming the field', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const cases: Array<[object, string]> = [
      [{ number: '123456789012345' }, 'number'],
      [{ number: fresh(), pin: '' }, 'pin'],
      [{ number: fresh(), amount: -1, currency: 'USD' }, 'amount'],
      [{ number: fresh(), amount: 100_000_000, currency: 'USD' }, 'amount'],
      [{ number: fresh(), amount: 1, currency: 'usd' }, 'currency'],
      [{ number: fresh(), external_identifier: '' }, 'external_identifier'],
      [{ number: fresh(), store: 'yes' }, 'store'],
    ];
    for (const [payload, field] of cases) {
      const res = await activate(merchant, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(422);
      expect(res.json().detail.map((d: { loc: string[] }) => d.loc.join('.'))).toContain(`body.${field}`);
    }
    expect((await activate(merchant, { pin: PIN })).statusCode).toBe(422);
  });

  it('refuses amount without currency, the store rules and buyer keys with 400 naming the field', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const buyerId = '018f0000-0000-7000-8000-000000000000';
    const cases: Array<[object, string]> = [
      [{ number: fresh(), amount: 100 }, '/currency'],
      [{ number: fresh(), currency: 'USD', amount: null }, '/amount'],
      [{ number: fresh(), store: true }, '/pin'],
      [{ number: fresh(), store: true, pin: null }, '/pin'],
      [{ number: fresh(), buyer_id: buyerId }, '/buyer_id'],
      [{ number: fresh(), pin: PIN, buyer_external_identifier: 'x' }, '/buyer_external_identifier'],
      [
        { number: fresh(), pin: PIN, store: true, buyer_id: buyerId, buyer_external_identifier: 'x' },
        '/buyer_external_identifier',
      ],
    ];
    for (const [payload, pointer] of cases) {
      const res = await activate(merchant, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json()).toMatchObject({ code: 'bad_request', details: [{ location: 'body', pointer }] });
    }
    expect((await activate(merchant, { number: fresh(), pin: PIN, store: true, buyer_id: buyerId })).statusCode).toBe(
      404,
    );
    // Nothing was activated by the refused requests.
    expect(
      await t.deps.db
        .selectFrom('gift_card_activations')
        .select('id')
        .where('merchant_account_id', '=', merchant)
        .execute(),
    ).toEqual([]);
  });

  it("answers the service's refusals as POST /gift-cards does: 400 naming the problem, 502 for a failure", async () => {
    const merchant = await createMerchantAccount(t.deps);
    for (const [payload, type, message] of [
      [{ number: DEFAULT, pin: PIN }, 'invalid_gift_card', 'already active'],
      [{ number: '9999888877776666' }, 'invalid_gift_card', 'already active'],
      [{ number: EXPIRED, pin: PIN }, 'expired_card', 'expired'],
      [{ number: INACTIVE, pin: '0000' }, 'invalid_gift_card', 'not valid'],
      [{ number: INACTIVE }, 'invalid_gift_card', 'not valid'],
    ] as const) {
      const res = await activate(merchant, payload);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({
        code: 'bad_request',
        details: [{ location: 'body', pointer: '/number', type }],
      });
      expect(res.json().message).toContain(message);
    }
    const failing = await activate(merchant, { number: FAILING, pin: PIN });
    expect(failing.statusCode).toBe(502);
    expect(failing.json()).toMatchObject({ code: 'bad_gateway' });
    const number = fresh();
    expect((await activate(merchant, { number })).statusCode).toBe(201);
    expect((await activate(merchant, { number, pin: PIN, store: true })).json()).toMatchObject({
      code: 'bad_request',
      details: [{ pointer: '/number' }],
    });
    expect(lookupTestGiftCard(number).activatable).toBe(true);
  });
});

describe('security', () => {
  runScopeTests(() => t, {
    request: () => ({ method: 'POST', url: '/gift-cards/activations', payload: { number: fresh() } }),
    scope: 'gift-cards.write',
  });

  const embedToken = (merchant: string, embed: Record<string, unknown> = {}) =>
    mintToken({
      privateKeyPem: t.keys.privateKeyPem,
      scopes: ['embed'],
      lifetimeSeconds: 3600,
      embed: { merchant_account_id: merchant, ...embed },
    });

  it('is open to embed tokens: a buyer pin applies when storing and is ignored otherwise; no pin, no buyer', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const buyer = await addBuyer(merchant, 'embed-holder');
    const pinned = await embedToken(merchant, { buyer_id: buyer.id });
    expect((await activate(merchant, { number: fresh() }, { token: pinned })).statusCode).toBe(201);
    const stored = await activate(merchant, { number: fresh(), pin: PIN, store: true }, { token: pinned });
    expect(stored.statusCode, stored.body).toBe(201);
    expect(stored.json().buyer).toMatchObject({ id: buyer.id });
    const other = await addBuyer(merchant, 'embed-other');
    expect(
      (await activate(merchant, { number: fresh(), pin: PIN, store: true, buyer_id: other.id }, { token: pinned }))
        .statusCode,
    ).toBe(403);
    const unpinned = await embedToken(merchant);
    expect(
      (await activate(merchant, { number: fresh(), pin: PIN, store: true, buyer_id: buyer.id }, { token: unpinned }))
        .statusCode,
    ).toBe(403);
    expect(
      (await activate(merchant, { number: fresh(), pin: PIN, store: true }, { token: unpinned })).json().buyer,
    ).toBeNull();
  });

  it('limits an embed token to 50 calls a minute (enumeration limit); server-to-server tokens are not limited', async () => {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
    const merchant = await createMerchantAccount(t.deps);
    const token = await embedToken(merchant);
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++)
      statuses.push((await activate(merchant, { number: DEFAULT, pin: PIN }, { token })).statusCode);
    expect(statuses.every((status) => status === 400)).toBe(true);
    const over = await activate(merchant, { number: fresh() }, { token });
    expect(over.statusCode).toBe(429);
    expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await activate(merchant, { number: fresh() })).statusCode).toBe(201);
  });

  it("does not store a card for another merchant account's buyer", async () => {
    const mine = await createMerchantAccount(t.deps);
    const buyer = await addBuyer(mine, 'mine');
    const other = await createMerchantAccount(t.deps);
    expect((await activate(other, { number: fresh(), pin: PIN, store: true, buyer_id: buyer.id })).statusCode).toBe(
      404,
    );
  });

  it('never lets a gift card number or pin reach a response, a log line or an audit entry', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const pin = '8642';
    const numbers = [fresh(), fresh(), fresh()];
    const bodies = [
      (await activate(merchant, { number: numbers[0]!, pin, amount: 100, currency: 'USD' })).body,
      (
        await activate(
          merchant,
          { number: numbers[1]!, pin, store: true },
          { headers: { 'idempotency-key': `k-${uuidv7()}` } },
        )
      ).body,
      (await activate(merchant, { number: numbers[0]!, pin })).body,
      (await activate(merchant, { number: numbers[2]!, pin, amount: 1 })).body,
      (await activate(merchant, { number: numbers[2]!.slice(0, 12), pin })).body,
      (await activate(merchant, { number: FAILING, pin })).body,
    ];
    const audit = await sql<{ text: string }>`SELECT row_to_json(a)::text AS text FROM audit_logs a`.execute(t.deps.db);
    const activations = await sql<{
      text: string;
    }>`SELECT row_to_json(a)::text AS text FROM gift_card_activations a`.execute(t.deps.db);
    const everything = [
      ...bodies,
      ...t.logs,
      ...audit.rows.map((r) => r.text),
      ...activations.rows.map((r) => r.text),
    ].join('\n');
    for (const number of [...numbers, numbers[2]!.slice(0, 12), FAILING]) expect(everything).not.toContain(number);
    expect(everything).not.toContain(`"${pin}"`);
  });
});
