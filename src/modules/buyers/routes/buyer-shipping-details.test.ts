import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { createTestKeyPair } from '../../../../test/helpers/tokens.ts';
import { uuidv7 } from '../../../lib/ids.ts';
import { MAX_SHIPPING_DETAILS_PER_BUYER } from '../shipping-details.service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const ADDRESS = {
  city: 'Paris',
  country: 'FR',
  postal_code: '75001',
  state: null,
  state_code: 'FR-75',
  house_number_or_name: '1',
  line1: 'Rue de Rivoli',
  line2: null,
  organization: null,
};

function validBody(overrides: Record<string, unknown> = {}) {
  return {
    first_name: 'Marie',
    last_name: 'Curie',
    email_address: 'marie@example.fr',
    phone_number: '+33123456789',
    address: ADDRESS,
    ...overrides,
  };
}

type Json = Record<string, unknown> & { id: string };

async function setup(): Promise<{ account: string; buyer: Json; base: string }> {
  const account = await createMerchantAccount(t.deps);
  const res = await t.request({
    method: 'POST',
    url: '/buyers',
    payload: { display_name: 'Shopper' },
    merchantAccountId: account,
  });
  expect(res.statusCode).toBe(201);
  const buyer = res.json();
  return { account, buyer, base: `/buyers/${buyer.id}/shipping-details` };
}

async function add(account: string, base: string, overrides: Record<string, unknown> = {}): Promise<Json> {
  const res = await t.request({ method: 'POST', url: base, payload: validBody(overrides), merchantAccountId: account });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

describe('happy', () => {
  it('adds shipping details, reads and lists them', async () => {
    const { account, buyer, base } = await setup();
    const res = await t.request({ method: 'POST', url: base, payload: validBody(), merchantAccountId: account });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toEqual({
      type: 'shipping-details',
      id: expect.stringMatching(/^[0-9a-f]{8}-/),
      buyer_id: buyer.id,
      ...validBody(),
    });
    const read = await t.request({ method: 'GET', url: `${base}/${created.id}`, merchantAccountId: account });
    expect(read.json()).toEqual(created);
    const second = await add(account, base, { first_name: 'Pierre' });
    const list = await t.request({ method: 'GET', url: base, merchantAccountId: account });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual({ items: [second, created] });
  });

  it('adds shipping details from an empty body, every field null', async () => {
    const { account, base } = await setup();
    const res = await t.request({ method: 'POST', url: base, merchantAccountId: account });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      first_name: null,
      last_name: null,
      email_address: null,
      phone_number: null,
      address: null,
    });
  });

  it('updates only the fields sent; null clears; address is replaced whole', async () => {
    const { account, base } = await setup();
    const created = await add(account, base);
    const url = `${base}/${created.id}`;
    const res = await t.request({
      method: 'PUT',
      url,
      payload: { last_name: null, address: { line1: 'Quai Voltaire', country: 'FR' } },
      merchantAccountId: account,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      ...created,
      last_name: null,
      address: {
        city: null,
        country: 'FR',
        postal_code: null,
        state: null,
        state_code: null,
        house_number_or_name: null,
        line1: 'Quai Voltaire',
        line2: null,
        organization: null,
      },
    });
    const empty = await t.request({ method: 'PUT', url, merchantAccountId: account });
    expect(empty.json()).toEqual(res.json());
  });

  it('deletes shipping details: 204, then 404', async () => {
    const { account, base } = await setup();
    const created = await add(account, base);
    const res = await t.request({ method: 'DELETE', url: `${base}/${created.id}`, merchantAccountId: account });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(
      (await t.request({ method: 'DELETE', url: `${base}/${created.id}`, merchantAccountId: account })).statusCode,
    ).toBe(404);
    expect((await t.request({ method: 'GET', url: base, merchantAccountId: account })).json()).toEqual({ items: [] });
  });
});

describe('errors', () => {
  it('answers 404 naming the buyer when the buyer is unknown', async () => {
    const { account } = await setup();
    const buyerId = uuidv7();
    const base = `/buyers/${buyerId}/shipping-details`;
    for (const req of [
      { method: 'POST' as const, url: base, payload: validBody() },
      { method: 'GET' as const, url: base },
      { method: 'GET' as const, url: `${base}/${uuidv7()}` },
      { method: 'PUT' as const, url: `${base}/${uuidv7()}`, payload: { first_name: 'x' } },
      { method: 'DELETE' as const, url: `${base}/${uuidv7()}` },
    ]) {
      const res = await t.request({ ...req, merchantAccountId: account });
      expect(res.statusCode, `${req.method} ${req.url}`).toBe(404);
      expect(res.json()).toMatchObject({ code: 'not_found', message: `The buyer ${buyerId} could not be found` });
    }
  });

  it("answers 404 for unknown shipping details, and for another buyer's", async () => {
    const { account, base } = await setup();
    const other = await t.request({ method: 'POST', url: '/buyers', payload: {}, merchantAccountId: account });
    const theirs = await add(account, `/buyers/${other.json().id}/shipping-details`);
    for (const id of [uuidv7(), theirs.id]) {
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        const res = await t.request({
          method,
          url: `${base}/${id}`,
          merchantAccountId: account,
          ...(method === 'PUT' ? { payload: { first_name: 'x' } } : {}),
        });
        expect(res.statusCode, method).toBe(404);
        expect(res.json().message).toBe(`The shipping details ${id} could not be found`);
      }
    }
  });

  it('answers 422 for a bad e-mail, phone number or country', async () => {
    const { account, base } = await setup();
    const res = await t.request({
      method: 'POST',
      url: base,
      payload: validBody({ email_address: 'x@', phone_number: '12', address: { country: 'XX' } }),
      merchantAccountId: account,
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
      ['body', 'email_address'],
      ['body', 'phone_number'],
      ['body', 'address', 'country'],
    ]);
    const path = await t.request({ method: 'GET', url: `${base}/nope`, merchantAccountId: account });
    expect(path.json().detail[0].loc).toEqual(['path', 'shipping_details_id']);
  });

  it(`refuses more than ${MAX_SHIPPING_DETAILS_PER_BUYER} shipping details per buyer`, async () => {
    const { account, buyer, base } = await setup();
    const rows = Array.from({ length: MAX_SHIPPING_DETAILS_PER_BUYER }, () => ({
      merchant_account_id: account,
      id: uuidv7(),
      buyer_id: buyer.id,
    }));
    await t.deps.db.insertInto('buyer_shipping_details').values(rows).execute();
    const res = await t.request({ method: 'POST', url: base, payload: validBody(), merchantAccountId: account });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'bad_request',
      message: `A buyer holds at most ${MAX_SHIPPING_DETAILS_PER_BUYER} shipping details; delete some before adding more`,
    });
  });
});

describe('security', () => {
  const existing = async () => {
    const { account, base } = await setup();
    const created = await add(account, base);
    return { headers: { 'x-svc-merchant-account-id': account }, base, url: `${base}/${created.id}` };
  };
  describe('addBuyerShippingDetails', () =>
    runScopeTests(() => t, {
      request: async () => {
        const { headers, base } = await existing();
        return { method: 'POST', url: base, payload: validBody(), headers };
      },
      scope: 'buyers.write',
    }));
  describe('listBuyerShippingDetails', () =>
    runScopeTests(() => t, {
      request: async () => {
        const { headers, base } = await existing();
        return { method: 'GET', url: base, headers };
      },
      scope: 'buyers.read',
    }));
  describe('getBuyerShippingDetails', () =>
    runScopeTests(() => t, {
      request: async () => {
        const { headers, url } = await existing();
        return { method: 'GET', url, headers };
      },
      scope: 'buyers.read',
    }));
  describe('updateBuyerShippingDetails', () =>
    runScopeTests(() => t, {
      request: async () => {
        const { headers, url } = await existing();
        return { method: 'PUT', url, payload: { first_name: 'x' }, headers };
      },
      scope: 'buyers.write',
    }));
  describe('deleteBuyerShippingDetails', () =>
    runScopeTests(() => t, {
      request: async () => {
        const { headers, url } = await existing();
        return { method: 'DELETE', url, headers };
      },
      scope: 'buyers.write',
    }));

  it("answers 404 for another merchant account's buyer and shipping details", async () => {
    const { base, url } = await existing();
    const other = await createMerchantAccount(t.deps);
    const token = await (await createTestKeyPair(t.deps, other)).token();
    for (const req of [
      { method: 'POST' as const, url: base, payload: validBody() },
      { method: 'GET' as const, url: base },
      { method: 'GET' as const, url },
      { method: 'PUT' as const, url, payload: { first_name: 'stolen' } },
      { method: 'DELETE' as const, url },
    ]) {
      expect((await t.request({ ...req, token })).statusCode, `${req.method} ${req.url}`).toBe(404);
      expect((await t.request({ ...req, merchantAccountId: other })).statusCode, `${req.method} ${req.url}`).toBe(404);
    }
  });

  it('records audit entries named after the buyer, without personal data', async () => {
    const { account, buyer, base } = await setup();
    const created = await add(account, base);
    await t.request({
      method: 'PUT',
      url: `${base}/${created.id}`,
      payload: { first_name: 'Irène' },
      merchantAccountId: account,
    });
    await t.request({ method: 'DELETE', url: `${base}/${created.id}`, merchantAccountId: account });
    const rows = await t.deps.db
      .selectFrom('audit_logs')
      .select(['action', 'resource_type', 'resource_name', 'operation_id'])
      .where('merchant_account_id', '=', account)
      .where('resource_id', '=', created.id)
      .orderBy('id')
      .execute();
    const name = `Shipping details of buyer ${buyer.id}`;
    expect(rows).toEqual([
      {
        action: 'created',
        resource_type: 'shipping-details',
        resource_name: name,
        operation_id: 'addBuyerShippingDetails',
      },
      {
        action: 'updated',
        resource_type: 'shipping-details',
        resource_name: name,
        operation_id: 'updateBuyerShippingDetails',
      },
      {
        action: 'deleted',
        resource_type: 'shipping-details',
        resource_name: name,
        operation_id: 'deleteBuyerShippingDetails',
      },
    ]);
  });
});
