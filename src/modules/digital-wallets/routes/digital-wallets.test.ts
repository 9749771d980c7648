import { createPublicKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { issueCertificate } from '../../../wallets/x509.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const ecKey = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
const pem = (key: ReturnType<typeof ecKey>) => key.export({ type: 'pkcs8', format: 'pem' }).toString();
function identity(notAfter = new Date('2040-01-01')) {
  const key = ecKey();
  const der = issueCertificate({
    subject: 'Merchant ID: merchant.com.example',
    issuer: 'Test CA',
    serial: 9,
    publicKey: createPublicKey(key),
    issuerKey: key,
    ca: false,
    notBefore: new Date('2020-01-01'),
    notAfter,
  });
  return { certificate: new X509Certificate(der).toString(), key: pem(key) };
}

const post = (merchantAccountId: string, payload: Record<string, unknown>) =>
  t.request({ method: 'POST', url: '/digital-wallets', merchantAccountId, payload });
const apple = (extra: Record<string, unknown> = {}) => ({
  provider: 'apple',
  merchant_name: 'Example Shop',
  accept_terms_and_conditions: true,
  ...extra,
});

describe('happy', () => {
  it('registers an Apple Pay wallet with its own keys: 201, keys never returned, sealed at rest', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const processing = pem(ecKey());
    const id = identity();
    const res = await post(
      merchant,
      apple({
        merchant_display_name: 'Example',
        merchant_url: 'https://shop.example.com',
        merchant_country_code: 'US',
        merchant_category_code: '5999',
        domain_names: ['Shop.Example.com', 'shop.example.com'],
        address: { line1: '1 Main St', city: 'Springfield', state_code: 'US-IL', postal_code: '62701' },
        payment_processing_private_key: processing,
        apple_merchant_identifier: 'merchant.com.example',
        merchant_identity_certificate: id.certificate,
        merchant_identity_private_key: id.key,
      }),
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toEqual({
      type: 'digital-wallet',
      id: expect.any(String),
      merchant_account_id: merchant,
      provider: 'apple',
      merchant_name: 'Example Shop',
      merchant_display_name: 'Example',
      merchant_url: 'https://shop.example.com',
      merchant_country_code: 'US',
      merchant_category_code: '5999',
      address: { line1: '1 Main St', city: 'Springfield', state_code: 'US-IL', postal_code: '62701' },
      extra_configuration: null,
      domain_names: ['shop.example.com'],
      active_certificate_count: 2,
      pending_certificate_count: 0,
      expired_certificate_count: 0,
      fields: null,
      apple_merchant_identifier: 'merchant.com.example',
      google_merchant_id: null,
      payment_processing_key_configured: true,
      merchant_identity_configured: true,
      token_decryption: 'server',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(res.body).not.toContain('PRIVATE KEY');
    const stored = await sql<{
      text: string;
    }>`SELECT row_to_json(w)::text AS text FROM digital_wallets w WHERE id = ${res.json().id}`.execute(t.deps.db);
    expect(stored.rows[0]!.text).not.toContain('PRIVATE KEY');
    expect(stored.rows[0]!.text).not.toContain(processing.split('\n')[1]);
    expect(t.logs.join('')).not.toContain(processing.split('\n')[1]);
  });

  it('lists, reads, updates and deletes (204); the provider stays', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const created = (
      await post(merchant, { provider: 'google', merchant_name: 'G Shop', accept_terms_and_conditions: true })
    ).json();
    await post(merchant, apple());
    const list = await t.request({ method: 'GET', url: '/digital-wallets', merchantAccountId: merchant });
    expect(list.statusCode).toBe(200);
    expect(list.json().items.map((w: { provider: string }) => w.provider)).toEqual(['apple', 'google']);
    expect(
      (await t.request({ method: 'GET', url: `/digital-wallets/${created.id}`, merchantAccountId: merchant })).json(),
    ).toEqual(created);
    const updated = await t.request({
      method: 'PUT',
      url: `/digital-wallets/${created.id}`,
      merchantAccountId: merchant,
      payload: {
        merchant_name: 'G Shop 2',
        merchant_url: null,
        google_merchant_id: '0123',
        payment_processing_private_key: pem(ecKey()),
      },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json()).toMatchObject({
      provider: 'google',
      merchant_name: 'G Shop 2',
      merchant_url: null,
      google_merchant_id: '0123',
      payment_processing_key_configured: true,
      active_certificate_count: 0,
    });
    const removedKey = await t.request({
      method: 'PUT',
      url: `/digital-wallets/${created.id}`,
      merchantAccountId: merchant,
      payload: { payment_processing_private_key: null },
    });
    expect(removedKey.json().payment_processing_key_configured).toBe(false);
    const deleted = await t.request({
      method: 'DELETE',
      url: `/digital-wallets/${created.id}`,
      merchantAccountId: merchant,
    });
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect(
      (await t.request({ method: 'GET', url: `/digital-wallets/${created.id}`, merchantAccountId: merchant }))
        .statusCode,
    ).toBe(404);
    // Every change audited, as the merchant's audit log shows it (newest first): the key's removal too.
    const audit = await t.request({
      method: 'GET',
      url: '/audit-logs?resource_type=digital-wallet&limit=100',
      merchantAccountId: merchant,
    });
    expect(audit.statusCode, audit.body).toBe(200);
    const entries = audit.json().items.filter((e: { resource: { id: string } }) => e.resource.id === created.id);
    expect(entries.map((e: { action: string }) => e.action)).toEqual(['deleted', 'updated', 'updated', 'created']);
    expect(entries[0]).toMatchObject({ resource: { type: 'digital-wallet', id: created.id, name: 'google wallet' } });
  });

  it('adds (200, idempotent) and removes (204, JSON body, idempotent) Apple Pay domains', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const wallet = (await post(merchant, apple())).json();
    const add = () =>
      t.request({
        method: 'POST',
        url: `/digital-wallets/${wallet.id}/domains`,
        merchantAccountId: merchant,
        payload: { domain_name: 'Pay.Example.com' },
      });
    expect((await add()).json().domain_names).toEqual(['pay.example.com']);
    expect((await add()).json().domain_names).toEqual(['pay.example.com']);
    const remove = () =>
      t.request({
        method: 'DELETE',
        url: `/digital-wallets/${wallet.id}/domains`,
        merchantAccountId: merchant,
        payload: { domain_name: 'pay.example.com' },
      });
    expect((await remove()).statusCode).toBe(204);
    expect((await remove()).statusCode).toBe(204);
    expect(
      (await t.request({ method: 'GET', url: `/digital-wallets/${wallet.id}`, merchantAccountId: merchant })).json()
        .domain_names,
    ).toEqual([]);
  });

  it('a sandbox Click to Pay wallet gets a simulated digital payment application', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const res = await post(merchant, {
      provider: 'click-to-pay',
      merchant_name: 'C Shop',
      merchant_display_name: 'C Display',
      accept_terms_and_conditions: true,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().fields).toEqual({
      digital_payment_application_id: expect.stringMatching(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/,
      ),
      digital_payment_application_name: 'C Display',
    });
  });

  it('token_decryption: payment-service at creation, back to server and again by update, as read back', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const created = await post(merchant, {
      provider: 'google',
      merchant_name: 'G Shop',
      accept_terms_and_conditions: true,
      token_decryption: 'payment-service',
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().token_decryption).toBe('payment-service');
    const url = `/digital-wallets/${created.json().id}`;
    const toServer = await t.request({
      method: 'PUT',
      url,
      merchantAccountId: merchant,
      payload: { token_decryption: 'server' },
    });
    expect(toServer.statusCode, toServer.body).toBe(200);
    expect(toServer.json().token_decryption).toBe('server');
    // Another update leaves it as it is.
    expect(
      (
        await t.request({ method: 'PUT', url, merchantAccountId: merchant, payload: { merchant_name: 'G Shop 2' } })
      ).json().token_decryption,
    ).toBe('server');
    await t.request({
      method: 'PUT',
      url,
      merchantAccountId: merchant,
      payload: { token_decryption: 'payment-service' },
    });
    expect((await t.request({ method: 'GET', url, merchantAccountId: merchant })).json()).toMatchObject({
      merchant_name: 'G Shop 2',
      token_decryption: 'payment-service',
    });
    expect(
      (await t.request({ method: 'GET', url: '/digital-wallets', merchantAccountId: merchant })).json().items[0]
        .token_decryption,
    ).toBe('payment-service');
    // Apple Pay wallets default to server.
    expect((await post(merchant, apple())).json().token_decryption).toBe('server');
  });

  it('an expired merchant identity certificate counts as expired', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const id = identity(new Date('2021-01-01'));
    const res = await post(
      merchant,
      apple({ merchant_identity_certificate: id.certificate, merchant_identity_private_key: id.key }),
    );
    expect(res.json()).toMatchObject({
      active_certificate_count: 0,
      expired_certificate_count: 1,
      merchant_identity_configured: true,
    });
  });
});

describe('errors', () => {
  it('a second wallet of the same provider is 409 with the existing wallet as resource_id', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const first = (await post(merchant, apple())).json();
    const res = await post(merchant, apple({ merchant_name: 'Other' }));
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      type: 'error',
      code: 'duplicate_record',
      status: 409,
      message: expect.stringContaining('apple wallet is already registered'),
      details: [],
      resource_id: first.id,
    });
  });

  it('two concurrent registrations of one provider: one 201, one 409', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const answers = await Promise.all([post(merchant, apple()), post(merchant, apple())]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 409]);
  });

  it('refuses accept_terms_and_conditions false with a 400 naming the field', async () => {
    const res = await post(await createMerchantAccount(t.deps), apple({ accept_terms_and_conditions: false }));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'bad_request',
      details: [{ location: 'body', pointer: '/accept_terms_and_conditions' }],
    });
  });

  it('refuses keys that are not P-256 (Paze: RSA of 2048 bits or more), mismatched identity pairs, and fields of another provider', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const paze = { provider: 'paze', merchant_name: 'P', accept_terms_and_conditions: true };
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        apple({ payment_processing_private_key: rsa, apple_merchant_identifier: 'merchant.x' }),
        '/payment_processing_private_key',
      ],
      [
        apple({ payment_processing_private_key: 'not a key', apple_merchant_identifier: 'merchant.x' }),
        '/payment_processing_private_key',
      ],
      [apple({ payment_processing_private_key: pem(ecKey()) }), '/apple_merchant_identifier'],
      [
        apple({ merchant_identity_certificate: identity().certificate, merchant_identity_private_key: identity().key }),
        '/merchant_identity_private_key',
      ],
      [apple({ merchant_identity_certificate: identity().certificate }), '/merchant_identity_private_key'],
      [apple({ google_merchant_id: '1' }), '/google_merchant_id'],
      [
        { provider: 'google', merchant_name: 'G', accept_terms_and_conditions: true, domain_names: ['a.example.com'] },
        '/domain_names',
      ],
      // A Paze wallet's key is RSA of at least 2048 bits (Paze encrypts with RSA-OAEP-256).
      [{ ...paze, payment_processing_private_key: pem(ecKey()) }, '/payment_processing_private_key'],
      [{ ...paze, payment_processing_private_key: rsa }, '/payment_processing_private_key'],
      [{ ...paze, apple_merchant_identifier: 'merchant.x' }, '/apple_merchant_identifier'],
    ];
    for (const [payload, pointer] of cases) {
      const res = await post(merchant, payload);
      expect(res.statusCode, `${pointer}: ${res.body}`).toBe(400);
      expect(res.json().details[0].pointer).toBe(pointer);
    }
    expect(
      (await t.request({ method: 'GET', url: '/digital-wallets', merchantAccountId: merchant })).json().items,
    ).toEqual([]);
  });

  it('422 for an unknown provider and a bad domain (an unknown field is dropped); 400 for a domain of a Google wallet; null merchant_name', async () => {
    const merchant = await createMerchantAccount(t.deps);
    expect((await post(merchant, apple({ provider: 'samsung' }))).statusCode).toBe(422);
    // Unknown fields are dropped (decision 0002), never stored or echoed.
    const extra = await post(merchant, apple({ colour: 'red' }));
    expect(extra.statusCode).toBe(201);
    expect(extra.body).not.toContain('colour');
    const google = (
      await post(merchant, { provider: 'google', merchant_name: 'G', accept_terms_and_conditions: true })
    ).json();
    const bad = await t.request({
      method: 'POST',
      url: `/digital-wallets/${google.id}/domains`,
      merchantAccountId: merchant,
      payload: { domain_name: 'https://x.example.com/' },
    });
    expect(bad.statusCode).toBe(422);
    const notApple = await t.request({
      method: 'POST',
      url: `/digital-wallets/${google.id}/domains`,
      merchantAccountId: merchant,
      payload: { domain_name: 'x.example.com' },
    });
    expect(notApple.statusCode).toBe(400);
    expect(notApple.json().message).toContain('Apple Pay wallets only');
    const nullName = await t.request({
      method: 'PUT',
      url: `/digital-wallets/${google.id}`,
      merchantAccountId: merchant,
      payload: { merchant_name: null },
    });
    expect(nullName.statusCode).toBe(400);
  });

  it('token_decryption: payment-service is for Apple Pay and Google Pay wallets only (400); an unknown value is 422', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const paze = await post(merchant, {
      provider: 'paze',
      merchant_name: 'P',
      accept_terms_and_conditions: true,
      token_decryption: 'payment-service',
    });
    expect(paze.statusCode).toBe(400);
    expect(paze.json()).toMatchObject({
      code: 'bad_request',
      message: expect.stringContaining('apple and google wallets only'),
      details: [{ pointer: '/token_decryption' }],
    });
    const c2p = (
      await post(merchant, { provider: 'click-to-pay', merchant_name: 'C', accept_terms_and_conditions: true })
    ).json();
    const update = await t.request({
      method: 'PUT',
      url: `/digital-wallets/${c2p.id}`,
      merchantAccountId: merchant,
      payload: { token_decryption: 'payment-service' },
    });
    expect(update.statusCode).toBe(400);
    expect(
      (await t.request({ method: 'GET', url: `/digital-wallets/${c2p.id}`, merchantAccountId: merchant })).json()
        .token_decryption,
    ).toBe('server');
    expect((await post(merchant, apple({ token_decryption: 'connector' }))).statusCode).toBe(422);
  });

  it('404 for an unknown wallet on every operation', async () => {
    const merchant = await createMerchantAccount(t.deps);
    const id = '0190a0a0-0000-7000-8000-000000000000';
    for (const [method, url, payload] of [
      ['GET', '', undefined],
      ['PUT', '', {}],
      ['DELETE', '', undefined],
      ['POST', '/domains', { domain_name: 'a.example.com' }],
      ['DELETE', '/domains', { domain_name: 'a.example.com' }],
    ] as const) {
      const res = await t.request({
        method,
        url: `/digital-wallets/${id}${url}`,
        merchantAccountId: merchant,
        ...(payload ? { payload } : {}),
      });
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
  });
});

describe('security', () => {
  let merchant: string;
  let walletId: string;
  beforeAll(async () => {
    merchant = await createMerchantAccount(t.deps);
    walletId = (await post(merchant, apple())).json().id;
  });

  describe('create', () =>
    runScopeTests(() => t, {
      scope: 'digital-wallets.write',
      request: () => ({
        method: 'POST',
        url: '/digital-wallets',
        headers: { 'x-svc-merchant-account-id': merchant },
        payload: apple(),
      }),
    }));
  describe('list', () =>
    runScopeTests(() => t, {
      scope: 'digital-wallets.read',
      request: () => ({ method: 'GET', url: '/digital-wallets', headers: { 'x-svc-merchant-account-id': merchant } }),
    }));
  describe('update', () =>
    runScopeTests(() => t, {
      scope: 'digital-wallets.write',
      request: () => ({
        method: 'PUT',
        url: `/digital-wallets/${walletId}`,
        headers: { 'x-svc-merchant-account-id': merchant },
        payload: {},
      }),
    }));
  describe('domains', () =>
    runScopeTests(() => t, {
      scope: 'digital-wallets.write',
      request: () => ({
        method: 'DELETE',
        url: `/digital-wallets/${walletId}/domains`,
        headers: { 'x-svc-merchant-account-id': merchant },
        payload: { domain_name: 'a.example.com' },
      }),
    }));

  it("another merchant account's wallet is 404 and stays unchanged", async () => {
    const other = await createMerchantAccount(t.deps);
    expect(
      (await t.request({ method: 'GET', url: `/digital-wallets/${walletId}`, merchantAccountId: other })).statusCode,
    ).toBe(404);
    expect(
      (await t.request({ method: 'DELETE', url: `/digital-wallets/${walletId}`, merchantAccountId: other })).statusCode,
    ).toBe(404);
    expect(
      (await t.request({ method: 'GET', url: `/digital-wallets/${walletId}`, merchantAccountId: merchant })).statusCode,
    ).toBe(200);
    expect(
      (await t.request({ method: 'GET', url: '/digital-wallets', merchantAccountId: other })).json().items,
    ).toEqual([]);
  });
});
