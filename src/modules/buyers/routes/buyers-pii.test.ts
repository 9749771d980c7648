import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';

/** Personal data of buyers is masked for callers without buyers.billing-details.read (spec, Buyer). */

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const READ = ['buyers.read'];
const READ_PII = ['buyers.read', 'buyers.billing-details.read'];
const WRITE = ['buyers.write'];

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
const MASKED_ADDRESS = {
  city: 'L***',
  country: 'GB',
  postal_code: 'SW***',
  state: 'G***',
  state_code: 'GB-LND',
  house_number_or_name: '1***',
  line1: 'D***',
  line2: 'F***',
  organization: 'A***',
};
const BILLING = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  email_address: 'ada@example.com',
  phone_number: '+447700900123',
  address: ADDRESS,
  tax_id: { value: 'GB123456789', kind: 'gb.vat' },
};
const MASKED_BILLING = {
  first_name: 'A***',
  last_name: 'L***',
  email_address: 'a***@e***.com',
  phone_number: '+***23',
  address: MASKED_ADDRESS,
  tax_id: { value: '***89', kind: 'gb.vat' },
};
const SHIPPING = {
  first_name: 'Charles',
  last_name: 'Babbage',
  email_address: 'charles@engine.org',
  phone_number: '+442079460958',
  address: ADDRESS,
};
const MASKED_SHIPPING = {
  first_name: 'C***',
  last_name: 'B***',
  email_address: 'c***@e***.org',
  phone_number: '+***58',
  address: MASKED_ADDRESS,
};
const PLAIN = { display_name: 'Ada L.', external_identifier: 'cust-ada', account_number: 'ACC-1' };

async function setup() {
  const account = await createMerchantAccount(t.deps);
  const buyer = await t.request({
    method: 'POST',
    url: '/buyers',
    payload: { ...PLAIN, billing_details: BILLING },
    merchantAccountId: account,
  });
  expect(buyer.statusCode).toBe(201);
  const id = buyer.json().id as string;
  const shipping = await t.request({
    method: 'POST',
    url: `/buyers/${id}/shipping-details`,
    payload: SHIPPING,
    merchantAccountId: account,
  });
  expect(shipping.statusCode).toBe(201);
  return { account, id, shippingId: shipping.json().id as string };
}

describe('happy', () => {
  it('shows billing details in full with buyers.billing-details.read, or with *.read', async () => {
    const { account, id } = await setup();
    for (const scopes of [READ_PII, ['*.read']]) {
      const res = await t.request({ method: 'GET', url: `/buyers/${id}`, scopes, merchantAccountId: account });
      expect(res.json()).toMatchObject({ ...PLAIN, billing_details: BILLING });
      const list = await t.request({ method: 'GET', url: '/buyers', scopes, merchantAccountId: account });
      expect(list.json().items[0].billing_details).toEqual(BILLING);
    }
  });

  it('shows shipping details in full with buyers.billing-details.read', async () => {
    const { account, id, shippingId } = await setup();
    const one = await t.request({
      method: 'GET',
      url: `/buyers/${id}/shipping-details/${shippingId}`,
      scopes: READ_PII,
      merchantAccountId: account,
    });
    expect(one.json()).toMatchObject(SHIPPING);
    const list = await t.request({
      method: 'GET',
      url: `/buyers/${id}/shipping-details`,
      scopes: READ_PII,
      merchantAccountId: account,
    });
    expect(list.json().items[0]).toMatchObject(SHIPPING);
  });
});

describe('security', () => {
  it('masks billing details on get and list without buyers.billing-details.read, other fields in full', async () => {
    const { account, id } = await setup();
    const res = await t.request({ method: 'GET', url: `/buyers/${id}`, scopes: READ, merchantAccountId: account });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id, ...PLAIN, billing_details: MASKED_BILLING });
    const list = await t.request({
      method: 'GET',
      url: '/buyers?search=ada',
      scopes: READ,
      merchantAccountId: account,
    });
    expect(list.json().items).toHaveLength(1);
    expect(list.json().items[0]).toMatchObject({ ...PLAIN, billing_details: MASKED_BILLING });
  });

  it('masks shipping details on get and list without buyers.billing-details.read', async () => {
    const { account, id, shippingId } = await setup();
    const one = await t.request({
      method: 'GET',
      url: `/buyers/${id}/shipping-details/${shippingId}`,
      scopes: READ,
      merchantAccountId: account,
    });
    expect(one.json()).toEqual({ type: 'shipping-details', id: shippingId, buyer_id: id, ...MASKED_SHIPPING });
    const list = await t.request({
      method: 'GET',
      url: `/buyers/${id}/shipping-details`,
      scopes: READ,
      merchantAccountId: account,
    });
    expect(list.json().items).toEqual([one.json()]);
  });

  it('masks the answers to writes made without buyers.billing-details.read, and stores the real values', async () => {
    const account = await createMerchantAccount(t.deps);
    const created = await t.request({
      method: 'POST',
      url: '/buyers',
      payload: { billing_details: BILLING },
      scopes: WRITE,
      merchantAccountId: account,
    });
    expect(created.statusCode).toBe(201);
    expect(created.json().billing_details).toEqual(MASKED_BILLING);
    const id = created.json().id;
    const updated = await t.request({
      method: 'PUT',
      url: `/buyers/${id}`,
      payload: { display_name: 'x' },
      scopes: WRITE,
      merchantAccountId: account,
    });
    expect(updated.json().billing_details).toEqual(MASKED_BILLING);
    const shipping = await t.request({
      method: 'POST',
      url: `/buyers/${id}/shipping-details`,
      payload: SHIPPING,
      scopes: WRITE,
      merchantAccountId: account,
    });
    expect(shipping.json()).toMatchObject(MASKED_SHIPPING);
    const edited = await t.request({
      method: 'PUT',
      url: `/buyers/${id}/shipping-details/${shipping.json().id}`,
      payload: { first_name: 'Ada' },
      scopes: WRITE,
      merchantAccountId: account,
    });
    expect(edited.json()).toMatchObject({ ...MASKED_SHIPPING, first_name: 'A***' });

    const full = await t.request({ method: 'GET', url: `/buyers/${id}`, scopes: READ_PII, merchantAccountId: account });
    expect(full.json().billing_details).toEqual(BILLING);
    const fullShipping = await t.request({
      method: 'GET',
      url: `/buyers/${id}/shipping-details`,
      scopes: READ_PII,
      merchantAccountId: account,
    });
    expect(fullShipping.json().items[0]).toMatchObject({ ...SHIPPING, first_name: 'Ada' });
  });

  it('does not let the search match personal data', async () => {
    const { account } = await setup();
    for (const term of ['Lovelace', 'ada@', 'Charles']) {
      const list = await t.request({
        method: 'GET',
        url: `/buyers?search=${encodeURIComponent(term)}`,
        scopes: READ_PII,
        merchantAccountId: account,
      });
      expect(list.json().items, term).toEqual([]);
    }
  });
});
