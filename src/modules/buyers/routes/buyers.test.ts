import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { createTestKeyPair } from '../../../../test/helpers/tokens.ts';
import { base62ToUuid } from '../../../lib/base62.ts';
import { uuidv7 } from '../../../lib/ids.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const ADDRESS = {
  city: 'London',
  country: 'GB',
  postal_code: 'SW1A 1AA',
  state: 'Greater London',
  state_code: 'GB-LND',
  house_number_or_name: '10',
  line1: 'Downing Street',
  line2: 'Flat 2',
  organization: 'Acme Ltd',
};

function validBody(overrides: Record<string, unknown> = {}) {
  return {
    display_name: 'Ada Lovelace',
    external_identifier: `ext-${uuidv7().slice(-12)}`,
    account_number: 'ACC-001',
    billing_details: {
      first_name: 'Ada',
      last_name: 'Lovelace',
      email_address: 'ada@example.com',
      phone_number: '+447700900123',
      address: ADDRESS,
      tax_id: { value: 'GB123456789', kind: 'gb.vat' },
    },
    ...overrides,
  };
}

type Json = Record<string, unknown> & { id: string };

async function addBuyer(account: string, overrides: Record<string, unknown> = {}): Promise<Json> {
  const res = await t.request({
    method: 'POST',
    url: '/buyers',
    payload: validBody(overrides),
    merchantAccountId: account,
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function auditRows(account: string) {
  return t.deps.db
    .selectFrom('audit_logs')
    .select(['action', 'resource_type', 'resource_id', 'resource_name', 'operation_id'])
    .where('merchant_account_id', '=', account)
    .orderBy('id')
    .execute();
}

describe('happy', () => {
  it('creates a buyer and reads it back', async () => {
    const account = await createMerchantAccount(t.deps);
    const body = validBody();
    const res = await t.request({ method: 'POST', url: '/buyers', payload: body, merchantAccountId: account });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toEqual({
      type: 'buyer',
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7/),
      reconciliation_id: expect.stringMatching(/^[1-9A-Za-z][0-9A-Za-z]{0,21}$/),
      merchant_account_id: account,
      ...body,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      updated_at: created.created_at,
    });
    // The short form of the id, as a transaction's: it decodes back to the buyer's id.
    expect(base62ToUuid(created.reconciliation_id)).toBe(created.id);
    const read = await t.request({ method: 'GET', url: `/buyers/${created.id}`, merchantAccountId: account });
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual(created);
  });

  it('creates a buyer from an empty or absent body, every field null', async () => {
    const account = await createMerchantAccount(t.deps);
    for (const payload of [{}, undefined]) {
      const res = await t.request({
        method: 'POST',
        url: '/buyers',
        ...(payload ? { payload } : {}),
        merchantAccountId: account,
      });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({
        display_name: null,
        external_identifier: null,
        account_number: null,
        billing_details: null,
      });
    }
  });

  it('returns every billing field, null where not given', async () => {
    const account = await createMerchantAccount(t.deps);
    const buyer = await addBuyer(account, { billing_details: { first_name: 'Ada', address: { country: 'FR' } } });
    expect(buyer.billing_details).toEqual({
      first_name: 'Ada',
      last_name: null,
      email_address: null,
      phone_number: null,
      address: {
        city: null,
        country: 'FR',
        postal_code: null,
        state: null,
        state_code: null,
        house_number_or_name: null,
        line1: null,
        line2: null,
        organization: null,
      },
      tax_id: null,
    });
  });

  it('updates only the fields sent; null clears; billing_details is replaced whole', async () => {
    const account = await createMerchantAccount(t.deps);
    const created = await addBuyer(account);
    const url = `/buyers/${created.id}`;
    const renamed = await t.request({
      method: 'PUT',
      url,
      payload: { display_name: 'Countess' },
      merchantAccountId: account,
    });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toEqual({ ...created, display_name: 'Countess', updated_at: expect.any(String) });

    const cleared = await t.request({
      method: 'PUT',
      url,
      payload: { account_number: null, billing_details: { last_name: 'Byron' } },
      merchantAccountId: account,
    });
    expect(cleared.json()).toMatchObject({
      display_name: 'Countess',
      account_number: null,
      external_identifier: created.external_identifier,
    });
    expect(cleared.json().billing_details).toMatchObject({
      first_name: null,
      last_name: 'Byron',
      address: null,
      tax_id: null,
    });

    const empty = await t.request({ method: 'PUT', url, merchantAccountId: account });
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual({ ...cleared.json(), updated_at: expect.any(String) });
    expect(
      (
        await t.request({
          method: 'PUT',
          url,
          payload: { billing_details: null, external_identifier: null },
          merchantAccountId: account,
        })
      ).json(),
    ).toMatchObject({
      billing_details: null,
      external_identifier: null,
    });
  });

  it('keeps its own external_identifier on update, and frees it on delete', async () => {
    const account = await createMerchantAccount(t.deps);
    const created = await addBuyer(account);
    const same = await t.request({
      method: 'PUT',
      url: `/buyers/${created.id}`,
      payload: { external_identifier: created.external_identifier },
      merchantAccountId: account,
    });
    expect(same.statusCode).toBe(200);
    const del = await t.request({ method: 'DELETE', url: `/buyers/${created.id}`, merchantAccountId: account });
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expect(
      (await t.request({ method: 'GET', url: `/buyers/${created.id}`, merchantAccountId: account })).statusCode,
    ).toBe(404);
    await addBuyer(account, { external_identifier: created.external_identifier });
  });

  it('deletes the shipping details with the buyer', async () => {
    const account = await createMerchantAccount(t.deps);
    const buyer = await addBuyer(account);
    for (const name of ['One', 'Two']) {
      const res = await t.request({
        method: 'POST',
        url: `/buyers/${buyer.id}/shipping-details`,
        payload: { first_name: name },
        merchantAccountId: account,
      });
      expect(res.statusCode).toBe(201);
    }
    expect(
      (await t.request({ method: 'DELETE', url: `/buyers/${buyer.id}`, merchantAccountId: account })).statusCode,
    ).toBe(204);
    const left = await t.deps.db
      .selectFrom('buyer_shipping_details')
      .select('id')
      .where('merchant_account_id', '=', account)
      .execute();
    expect(left).toEqual([]);
    expect(
      (await t.request({ method: 'GET', url: `/buyers/${buyer.id}/shipping-details`, merchantAccountId: account }))
        .statusCode,
    ).toBe(404);
  });

  it('allows the same external_identifier on another merchant account', async () => {
    const [one, two] = [await createMerchantAccount(t.deps), await createMerchantAccount(t.deps)];
    const a = await addBuyer(one, { external_identifier: 'shared-ref' });
    const b = await addBuyer(two, { external_identifier: 'shared-ref' });
    expect(a.id).not.toBe(b.id);
  });
});

describe('errors', () => {
  it('answers 422 naming each bad field', async () => {
    const account = await createMerchantAccount(t.deps);
    const res = await t.request({
      method: 'POST',
      url: '/buyers',
      merchantAccountId: account,
      payload: {
        display_name: '',
        external_identifier: 'x'.repeat(201),
        billing_details: {
          email_address: 'not-an-email',
          phone_number: '07700 900123',
          address: { country: 'XX', state_code: 'California' },
          tax_id: { value: 'GB1', kind: 'gb.nope' },
        },
      },
    });
    expect(res.statusCode).toBe(422);
    const locs = res.json().detail.map((d: { loc: unknown[] }) => d.loc);
    expect(locs).toEqual(
      expect.arrayContaining([
        ['body', 'display_name'],
        ['body', 'external_identifier'],
        ['body', 'billing_details', 'email_address'],
        ['body', 'billing_details', 'phone_number'],
        ['body', 'billing_details', 'address', 'country'],
        ['body', 'billing_details', 'address', 'state_code'],
        ['body', 'billing_details', 'tax_id', 'kind'],
      ]),
    );
    const missingKind = await t.request({
      method: 'POST',
      url: '/buyers',
      payload: { billing_details: { tax_id: { value: 'GB1' } } },
      merchantAccountId: account,
    });
    expect(missingKind.json().detail).toEqual([
      { loc: ['body', 'billing_details', 'tax_id', 'kind'], msg: 'Field required', type: 'missing' },
    ]);
  });

  it('answers 409 with the existing id for a second buyer with the same external_identifier', async () => {
    const account = await createMerchantAccount(t.deps);
    const first = await addBuyer(account, { external_identifier: 'ref-1' });
    const res = await t.request({
      method: 'POST',
      url: '/buyers',
      payload: validBody({ external_identifier: 'ref-1' }),
      merchantAccountId: account,
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      type: 'error',
      code: 'duplicate_record',
      status: 409,
      message: 'A buyer with the external_identifier ref-1 already exists',
      details: [],
      resource_id: first.id,
    });
  });

  it('answers 409 when an update takes the external_identifier of another buyer', async () => {
    const account = await createMerchantAccount(t.deps);
    const first = await addBuyer(account, { external_identifier: 'ref-a' });
    const second = await addBuyer(account, { external_identifier: 'ref-b' });
    const res = await t.request({
      method: 'PUT',
      url: `/buyers/${second.id}`,
      payload: { external_identifier: 'ref-a', display_name: 'x' },
      merchantAccountId: account,
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'duplicate_record', resource_id: first.id });
    expect(
      (await t.request({ method: 'GET', url: `/buyers/${second.id}`, merchantAccountId: account })).json(),
    ).toEqual(second);
  });

  it('answers one success and one 409 to concurrent writes of the same external_identifier', async () => {
    const account = await createMerchantAccount(t.deps);
    const creates = await Promise.all(
      [0, 1].map(() =>
        t.request({
          method: 'POST',
          url: '/buyers',
          payload: validBody({ external_identifier: 'race' }),
          merchantAccountId: account,
        }),
      ),
    );
    expect(creates.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    const winner = creates.find((r) => r.statusCode === 201)!.json();
    expect(creates.find((r) => r.statusCode === 409)!.json().resource_id).toBe(winner.id);

    const [a, b] = [await addBuyer(account), await addBuyer(account)];
    const moves = await Promise.all(
      [a, b].map((buyer) =>
        t.request({
          method: 'PUT',
          url: `/buyers/${buyer.id}`,
          payload: { external_identifier: 'moved' },
          merchantAccountId: account,
        }),
      ),
    );
    expect(moves.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect(moves.find((r) => r.statusCode === 409)!.json().resource_id).toBe(
      moves.find((r) => r.statusCode === 200)!.json().id,
    );
  });

  it('answers 404 for an unknown buyer, and 422 for an id that is not a UUID', async () => {
    const account = await createMerchantAccount(t.deps);
    const id = uuidv7();
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await t.request({
        method,
        url: `/buyers/${id}`,
        merchantAccountId: account,
        ...(method === 'PUT' ? { payload: { display_name: 'x' } } : {}),
      });
      expect(res.statusCode, method).toBe(404);
      expect(res.json()).toMatchObject({ code: 'not_found', message: `The buyer ${id} could not be found` });
    }
    const bad = await t.request({ method: 'GET', url: '/buyers/not-a-uuid', merchantAccountId: account });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().detail[0].loc).toEqual(['path', 'buyer_id']);
  });

  it('replays a create sent again with the same idempotency-key', async () => {
    const account = await createMerchantAccount(t.deps);
    const headers = { 'idempotency-key': uuidv7() };
    const payload = validBody();
    const first = await t.request({ method: 'POST', url: '/buyers', payload, headers, merchantAccountId: account });
    const second = await t.request({ method: 'POST', url: '/buyers', payload, headers, merchantAccountId: account });
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toBe(first.body);
  });
});

describe('security', () => {
  const existing = async () => {
    const account = await createMerchantAccount(t.deps);
    return { account, buyer: await addBuyer(account) };
  };
  describe('addBuyer', () =>
    runScopeTests(() => t, {
      request: () => ({ method: 'POST', url: '/buyers', payload: validBody() }),
      scope: 'buyers.write',
    }));
  describe('getBuyer', () =>
    runScopeTests(() => t, {
      request: async () => {
        const { account, buyer } = await existing();
        return { method: 'GET', url: `/buyers/${buyer.id}`, headers: { 'x-svc-merchant-account-id': account } };
      },
      scope: 'buyers.read',
    }));
  describe('updateBuyer', () =>
    runScopeTests(() => t, {
      request: async () => {
        const { account, buyer } = await existing();
        return {
          method: 'PUT',
          url: `/buyers/${buyer.id}`,
          payload: { display_name: 'x' },
          headers: { 'x-svc-merchant-account-id': account },
        };
      },
      scope: 'buyers.write',
    }));
  describe('deleteBuyer', () =>
    runScopeTests(() => t, {
      request: async () => {
        const { account, buyer } = await existing();
        return { method: 'DELETE', url: `/buyers/${buyer.id}`, headers: { 'x-svc-merchant-account-id': account } };
      },
      scope: 'buyers.write',
    }));

  it("answers 404 for another merchant account's buyer, and changes nothing", async () => {
    const { account, buyer } = await existing();
    const other = await createMerchantAccount(t.deps);
    const token = await (await createTestKeyPair(t.deps, other)).token();
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      const res = await t.request({
        method,
        url: `/buyers/${buyer.id}`,
        token,
        ...(method === 'PUT' ? { payload: { display_name: 'stolen' } } : {}),
      });
      expect(res.statusCode, method).toBe(404);
      const viaHeader = await t.request({
        method,
        url: `/buyers/${buyer.id}`,
        merchantAccountId: other,
        ...(method === 'PUT' ? { payload: { display_name: 'stolen' } } : {}),
      });
      expect(viaHeader.statusCode, method).toBe(404);
    }
    expect((await t.request({ method: 'GET', url: `/buyers/${buyer.id}`, merchantAccountId: account })).json()).toEqual(
      buyer,
    );
  });

  it('records created, updated and deleted audit entries without personal data', async () => {
    const account = await createMerchantAccount(t.deps);
    const buyer = await addBuyer(account, { display_name: 'Shop customer 42' });
    await t.request({
      method: 'PUT',
      url: `/buyers/${buyer.id}`,
      payload: { display_name: null },
      merchantAccountId: account,
    });
    const shipping = await t.request({
      method: 'POST',
      url: `/buyers/${buyer.id}/shipping-details`,
      payload: { first_name: 'Ada' },
      merchantAccountId: account,
    });
    await t.request({ method: 'DELETE', url: `/buyers/${buyer.id}`, merchantAccountId: account });
    const shippingId = shipping.json().id;
    expect(
      (await auditRows(account)).map((r) => [
        r.action,
        r.resource_type,
        r.resource_id,
        r.resource_name,
        r.operation_id,
      ]),
    ).toEqual([
      ['created', 'buyer', buyer.id, 'Shop customer 42', 'addBuyer'],
      ['updated', 'buyer', buyer.id, 'Unnamed buyer', 'updateBuyer'],
      ['created', 'shipping-details', shippingId, `Shipping details of buyer ${buyer.id}`, 'addBuyerShippingDetails'],
      ['deleted', 'shipping-details', shippingId, `Shipping details of buyer ${buyer.id}`, 'deleteBuyer'],
      ['deleted', 'buyer', buyer.id, 'Unnamed buyer', 'deleteBuyer'],
    ]);
  });

  it('writes no audit entry for a refused change, and no personal data to the logs', async () => {
    const account = await createMerchantAccount(t.deps);
    const buyer = await addBuyer(account, { external_identifier: 'dup' });
    expect(
      (
        await t.request({
          method: 'POST',
          url: '/buyers',
          payload: validBody({ external_identifier: 'dup' }),
          merchantAccountId: account,
        })
      ).statusCode,
    ).toBe(409);
    expect((await auditRows(account)).map((r) => r.action)).toEqual(['created']);
    await t.request({ method: 'GET', url: `/buyers?search=Ada`, merchantAccountId: account });
    const logs = t.logs.join('\n');
    for (const pii of ['Lovelace', 'ada@example.com', '+447700900123', 'Downing Street', 'GB123456789', 'search=Ada'])
      expect(logs).not.toContain(pii);
    expect(logs).toContain('"operationId":"addBuyer"');
    expect(buyer.id).toBeDefined();
  });
});
