import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { mintToken } from '../../../cli/token.ts';
import { FAILING_ISSUANCE_THEME } from '../../../connectors/gift-cards/mock-gift-card.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { builtInGiftCardServiceId } from '../gift-card-service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const issue = (
  merchantAccountId: string,
  payload: object,
  extra: { token?: string; headers?: Record<string, string> } = {},
) => t.request({ method: 'POST', url: '/gift-cards/issuances', payload, merchantAccountId, ...extra });

describe('happy', () => {
  it('issues a virtual gift card at the service and records it with an audit entry', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const res = await issue(merchant, {
      theme: 'birthday',
      amount: 5000,
      currency: 'USD',
      external_identifier: 'gift-1',
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      type: 'gift-card-issuance',
      id: expect.any(String),
      merchant_account_id: merchant,
      gift_card_service: {
        type: 'gift-card-service',
        id: builtInGiftCardServiceId(merchant),
        gift_card_service_definition_id: 'mock-gift-card',
        display_name: 'Mock gift card service',
      },
      gift_card_service_payment_issuance_id: expect.stringMatching(/^mock-gci-[0-9a-f]{24}$/),
      url: `${t.config.publicUrl}/sandbox/gift-cards/${body.gift_card_service_payment_issuance_id}`,
      amount: 5000,
      currency: 'USD',
      external_identifier: 'gift-1',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const row = await t.deps.db
      .selectFrom('gift_card_issuances')
      .selectAll()
      .where('id', '=', body.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ merchant_account_id: merchant, theme: 'birthday', amount: 5000, url: body.url });
    const audit = await t.deps.db
      .selectFrom('audit_logs')
      .select(['action', 'resource_type', 'resource_name', 'operation_id'])
      .where('resource_id', '=', body.id)
      .execute();
    expect(audit).toEqual([
      {
        action: 'created',
        resource_type: 'gift-card-issuance',
        resource_name: 'gift card issuance birthday',
        operation_id: 'createGiftCardIssuance',
      },
    ]);
    // Each issuance is a new card.
    const second = (await issue(merchant, { theme: 'birthday', amount: 5000, currency: 'USD' })).json();
    expect(second).toMatchObject({ external_identifier: null });
    expect(second.gift_card_service_payment_issuance_id).not.toBe(body.gift_card_service_payment_issuance_id);
  });

  it('replays the same answer byte for byte for the same idempotency-key, issuing once', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const headers = { 'idempotency-key': `iss-${uuidv7()}` };
    const payload = { theme: 'thank-you', amount: 1000, currency: 'EUR' };
    const first = await issue(merchant, payload, { headers });
    expect(first.statusCode, first.body).toBe(201);
    const again = await issue(merchant, payload, { headers });
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(
      await t.deps.db
        .selectFrom('gift_card_issuances')
        .select('id')
        .where('merchant_account_id', '=', merchant)
        .execute(),
    ).toHaveLength(1);
    expect((await issue(merchant, { ...payload, amount: 2000 }, { headers })).statusCode).toBe(400);
  });
});

describe('errors', () => {
  it('validates the body with 422 naming the field', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const valid = { theme: 'birthday', amount: 100, currency: 'USD' };
    const cases: Array<[object, string]> = [
      [{ amount: 100, currency: 'USD' }, 'theme'],
      [{ ...valid, theme: '' }, 'theme'],
      [{ ...valid, theme: 'x'.repeat(201) }, 'theme'],
      [{ theme: 'birthday', currency: 'USD' }, 'amount'],
      [{ ...valid, amount: -1 }, 'amount'],
      [{ ...valid, amount: 100_000_000 }, 'amount'],
      [{ theme: 'birthday', amount: 100 }, 'currency'],
      [{ ...valid, currency: 'XYZ' }, 'currency'],
      [{ ...valid, external_identifier: '' }, 'external_identifier'],
    ];
    for (const [payload, field] of cases) {
      const res = await issue(merchant, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(422);
      expect(res.json().detail.map((d: { loc: string[] }) => d.loc.join('.'))).toContain(`body.${field}`);
    }
  });

  it('answers 502 for the failing theme and 400 for an amount the service refuses, recording nothing', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const failing = await issue(merchant, { theme: FAILING_ISSUANCE_THEME, amount: 100, currency: 'USD' });
    expect(failing.statusCode).toBe(502);
    expect(failing.json()).toMatchObject({ code: 'bad_gateway', message: expect.stringContaining('service_error') });
    const zero = await issue(merchant, { theme: 'birthday', amount: 0, currency: 'USD' });
    expect(zero.statusCode).toBe(400);
    expect(zero.json()).toMatchObject({
      code: 'bad_request',
      details: [{ location: 'body', pointer: '/amount', type: 'invalid_amount' }],
    });
    expect(
      await t.deps.db
        .selectFrom('gift_card_issuances')
        .select('id')
        .where('merchant_account_id', '=', merchant)
        .execute(),
    ).toEqual([]);
  });
});

describe('security', () => {
  runScopeTests(() => t, {
    request: () => ({
      method: 'POST',
      url: '/gift-cards/issuances',
      payload: { theme: 'birthday', amount: 100, currency: 'USD' },
    }),
    scope: 'gift-cards.write',
  });

  it('is closed to embed tokens', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const token = await mintToken({
      privateKeyPem: t.keys.privateKeyPem,
      scopes: ['embed'],
      lifetimeSeconds: 3600,
      embed: { merchant_account_id: merchant },
    });
    expect((await issue(merchant, { theme: 'birthday', amount: 100, currency: 'USD' }, { token })).statusCode).toBe(
      403,
    );
  });

  it('keeps issuances in their merchant account', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const { id } = (await issue(merchant, { theme: 'birthday', amount: 100, currency: 'USD' })).json();
    const rows = await sql<{
      merchant_account_id: string;
    }>`SELECT merchant_account_id FROM gift_card_issuances WHERE id = ${id}`.execute(t.deps.db);
    expect(rows.rows).toEqual([{ merchant_account_id: merchant }]);
  });
});
