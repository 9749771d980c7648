import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { createMleKeys, createTestPki, type TestPki } from '../../../../test/helpers/test-pki.ts';

let t: TestApp;
let pki: TestPki;
const mle = createMleKeys();
const SECRET = 'hmac-secret-0123456789-abcdefghijklmnop';

beforeAll(async () => {
  pki = createTestPki();
  t = await buildTestApp({ VAULT_FORWARD_ALLOW_PRIVATE_URLS: 'true' });
});
afterAll(async () => t.close());

type Res = Awaited<ReturnType<TestApp['request']>>;
const post = (m: string, url: string, payload: unknown) =>
  t.request({ method: 'POST', url, merchantAccountId: m, payload: payload as Record<string, unknown> });
const get = (m: string, url: string) => t.request({ method: 'GET', url, merchantAccountId: m });
const created = (res: Res) => {
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
};
const customConfig = async (m: string, hosts = ['api.merchant.example', '*.hotels.example']) =>
  created(
    await post(m, '/vault-forward/configs', { definition_id: 'custom', display_name: 'Our hotel system', hosts }),
  );
const signatureBody = (extra: Array<{ key: string; value: string }> = []) => ({
  kind: 'signature',
  display_name: 'Signing',
  fields: [{ key: 'key_id', value: 'k-1' }, { key: 'secret', value: SECRET }, ...extra],
});
const mtlsBody = () => ({
  kind: 'mtls',
  display_name: 'Client certificate',
  fields: [
    { key: 'certificate', value: pki.clientCert },
    { key: 'private_key', value: pki.clientKey },
    { key: 'ca_certificates', value: pki.caCert },
  ],
});
const mleBody = () => ({
  kind: 'mle',
  display_name: 'Payload encryption',
  fields: [
    { key: 'public_key', value: mle.rsa.publicKey },
    { key: 'key_id', value: 'target-key-1' },
  ],
});

describe('happy', () => {
  it('lists the definitions with their hosts and the fields of each authentication kind', async () => {
    const res = await t.request({ method: 'GET', url: '/vault-forward/definitions' });
    expect(res.statusCode, res.body).toBe(200);
    const items = res.json().items;
    expect(items.map((d: { id: string }) => d.id)).toEqual(['amadeus', 'sabre', 'visa', 'mastercard', 'custom']);
    expect(items[0]).toMatchObject({
      type: 'vault-forward-definition',
      display_name: 'Amadeus',
      hosts: ['api.amadeus.com', 'test.api.amadeus.com'],
    });
    const kinds = items[0].authentications;
    expect(kinds.map((k: { kind: string }) => k.kind)).toEqual(['signature', 'mtls', 'mle']);
    expect(kinds[1].fields).toContainEqual({
      key: 'private_key',
      display_name: 'Private key',
      required: true,
      format: 'multiline',
      secret: true,
    });
    expect(kinds[0].type).toBe('vault-forward-authentication-definition');
  });

  it("creates, reads and lists configs: custom hosts, or the definition's", async () => {
    const m = await createMerchantAccount(t.deps);
    const custom = await customConfig(m, ['API.Merchant.example']);
    expect(custom).toMatchObject({
      type: 'vault-forward-config',
      merchant_account_id: m,
      definition_id: 'custom',
      display_name: 'Our hotel system',
      hosts: ['api.merchant.example'],
      authentications: [],
      creator: { id: t.keys.id, email_address: null },
    });
    const amadeus = created(await post(m, '/vault-forward/configs', { definition_id: 'amadeus' }));
    expect(amadeus).toMatchObject({ display_name: 'Amadeus', hosts: ['api.amadeus.com', 'test.api.amadeus.com'] });
    expect((await get(m, `/vault-forward/configs/${custom.id}`)).json()).toEqual(custom);
    const first = (await get(m, '/vault-forward/configs?limit=1')).json();
    expect(first.items.map((c: { id: string }) => c.id)).toEqual([amadeus.id]);
    const second = (await get(m, `/vault-forward/configs?limit=1&cursor=${first.next_cursor}`)).json();
    expect(second.items.map((c: { id: string }) => c.id)).toEqual([custom.id]);
  });

  it('adds each kind of authentication method; secret fields are never returned', async () => {
    const m = await createMerchantAccount(t.deps);
    const config = await customConfig(m);
    const url = `/vault-forward/configs/${config.id}/authentications`;
    const signature = created(await post(m, url, signatureBody([{ key: 'signature_header', value: 'x-signature' }])));
    expect(signature).toMatchObject({
      type: 'vault-forward-config-authentication',
      kind: 'signature',
      display_name: 'Signing',
      label: 'key k-1',
      fields: [
        { key: 'key_id', value: 'k-1' },
        { key: 'signature_header', value: 'x-signature' },
      ],
    });
    const mtls = created(await post(m, url, mtlsBody()));
    expect(mtls.label).toMatch(/CN=merchant-client.*\(expires \d{4}-\d\d-\d\d\)/);
    expect(mtls.fields).toEqual([{ key: 'ca_certificates', value: pki.caCert }]);
    const encrypted = created(await post(m, url, mleBody()));
    expect(encrypted).toMatchObject({ kind: 'mle', label: 'RSA-OAEP-256 A256GCM, RSA key target-key-1' });
    expect(encrypted.fields).toContainEqual({ key: 'public_key', value: mle.rsa.publicKey });
    const list = (await get(m, url)).json().items;
    expect(list.map((a: { id: string }) => a.id)).toEqual([signature.id, mtls.id, encrypted.id]);
    expect((await get(m, `/vault-forward/configs/${config.id}`)).json().authentications).toEqual(list);
    expect((await get(m, `${url}/${mtls.id}`)).json()).toEqual(mtls);
    const everything = JSON.stringify(list) + (await get(m, '/vault-forward/configs')).body;
    for (const secret of [
      SECRET,
      pki.clientKey.split('\n')[1]!,
      `BEGIN CERTIFICATE-----\n${pki.clientCert.split('\n')[1]}`,
    ])
      expect(everything).not.toContain(secret);
  });

  it('updates an authentication method key by key: a value changes, an empty value unsets an optional field, the whole is checked again', async () => {
    const m = await createMerchantAccount(t.deps);
    const config = await customConfig(m);
    const url = `/vault-forward/configs/${config.id}/authentications`;
    const method = created(await post(m, url, signatureBody([{ key: 'digest_header', value: 'x-digest' }])));
    const put = (payload: unknown) =>
      t.request({
        method: 'PUT',
        url: `${url}/${method.id}`,
        merchantAccountId: m,
        payload: payload as Record<string, unknown>,
      });
    const renamed = await put({
      display_name: 'Signing v2',
      fields: [
        { key: 'key_id', value: 'k-2' },
        { key: 'digest_header', value: '' },
      ],
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toMatchObject({
      display_name: 'Signing v2',
      label: 'key k-2',
      fields: [{ key: 'key_id', value: 'k-2' }],
    });
    const unsetRequired = await put({ fields: [{ key: 'secret', value: '' }] });
    expect(unsetRequired.statusCode).toBe(400);
    expect(unsetRequired.json().details).toEqual([
      { location: 'body', pointer: '/fields', message: 'secret: is required', type: 'value_error' },
    ]);
    const mtls = created(await post(m, url, mtlsBody()));
    const otherCert = await t.request({
      method: 'PUT',
      url: `${url}/${mtls.id}`,
      merchantAccountId: m,
      payload: { fields: [{ key: 'certificate', value: pki.strangerCert }] },
    });
    expect(otherCert.json().message).toMatch(/private_key does not belong to the certificate/);
  });

  it('deletes an authentication method, and a config with its methods; audit entries for every change, no secret in them', async () => {
    const m = await createMerchantAccount(t.deps);
    const config = await customConfig(m);
    const url = `/vault-forward/configs/${config.id}/authentications`;
    const one = created(await post(m, url, signatureBody()));
    const two = created(await post(m, url, mtlsBody()));
    expect((await t.request({ method: 'DELETE', url: `${url}/${one.id}`, merchantAccountId: m })).statusCode).toBe(204);
    expect((await get(m, `${url}/${one.id}`)).statusCode).toBe(404);
    expect(
      (await t.request({ method: 'DELETE', url: `/vault-forward/configs/${config.id}`, merchantAccountId: m }))
        .statusCode,
    ).toBe(204);
    expect((await get(m, `/vault-forward/configs/${config.id}`)).statusCode).toBe(404);
    const left = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM vault_forward_authentications WHERE merchant_account_id = ${m}`.execute(
      t.deps.db,
    );
    expect(left.rows[0]!.n).toBe(0);
    const audit = (await get(m, '/audit-logs?limit=100'))
      .json()
      .items.map((e: { action: string; resource: { type: string; id: string } }) => [
        e.action,
        e.resource.type,
        e.resource.id,
      ]);
    expect(audit).toEqual(
      expect.arrayContaining([
        ['created', 'vault-forward-config', config.id],
        ['created', 'vault-forward-config-authentication', one.id],
        ['created', 'vault-forward-config-authentication', two.id],
        ['deleted', 'vault-forward-config-authentication', one.id],
        ['deleted', 'vault-forward-config-authentication', two.id],
        ['deleted', 'vault-forward-config', config.id],
      ]),
    );
    // A config of the definition may be created again once the first is gone.
    await customConfig(m);
  });
});

describe('errors', () => {
  it('answers 409 duplicate_record with the existing config for a second config of a definition, also when two race', async () => {
    const m = await createMerchantAccount(t.deps);
    const [a, b] = await Promise.all([
      post(m, '/vault-forward/configs', { definition_id: 'visa' }),
      post(m, '/vault-forward/configs', { definition_id: 'visa' }),
    ]);
    const winner = [a, b].find((r) => r.statusCode === 201)!;
    const loser = [a, b].find((r) => r.statusCode !== 201)!;
    expect(loser.statusCode, loser.body).toBe(409);
    expect(loser.json()).toMatchObject({
      code: 'duplicate_record',
      resource_id: winner.json().id,
      message: expect.stringMatching(/^Only 1 configuration may exist at a time for a given definition/),
    });
  });

  it('refuses unknown definitions and bad hosts, naming them', async () => {
    const m = await createMerchantAccount(t.deps);
    const refused = async (payload: unknown, pointer: string, message: RegExp) => {
      const res = await post(m, '/vault-forward/configs', payload);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({ message: expect.stringMatching(message), details: [{ pointer }] });
    };
    await refused(
      { definition_id: 'nope' },
      '/definition_id',
      /Unknown definition_id nope: one of amadeus, sabre, visa, mastercard, custom/,
    );
    await refused({ definition_id: 'amadeus', hosts: ['evil.example'] }, '/hosts', /custom definition only/);
    await refused({ definition_id: 'custom' }, '/hosts', /hosts is required/);
    await refused(
      { definition_id: 'custom', hosts: ['ok.example', 'https://x.example/path'] },
      '/hosts/1',
      /https:\/\/x.example\/path is not a host name/,
    );
    await refused({ definition_id: 'custom', hosts: ['*.com'] }, '/hosts/0', /whole top-level domain/);
    expect((await post(m, '/vault-forward/configs', { definition_id: 'custom', hosts: [] })).statusCode).toBe(422);
  });

  it('refuses authentication fields that cannot work, naming the field and never its value', async () => {
    const m = await createMerchantAccount(t.deps);
    const config = await customConfig(m);
    const url = `/vault-forward/configs/${config.id}/authentications`;
    const refused = async (payload: unknown, message: RegExp) => {
      const res = await post(m, url, payload);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().message).toMatch(message);
      expect(res.body).not.toContain(SECRET.slice(0, 20));
      expect(res.body).not.toContain('PRIVATE KEY');
    };
    await refused(
      {
        kind: 'signature',
        display_name: 'x',
        fields: [
          { key: 'key_id', value: 'k' },
          { key: 'secret', value: 'short' },
        ],
      },
      /secret must be at least 32 characters/,
    );
    await refused(
      {
        kind: 'signature',
        display_name: 'x',
        fields: [
          { key: 'secret', value: SECRET },
          { key: 'colour', value: 'red' },
        ],
      },
      /colour is not a field of signature authentication.*key_id is required/,
    );
    await refused(
      signatureBody([{ key: 'date_header', value: 'Bad Header' }]),
      /date_header must be an HTTP header name/,
    );
    await refused(
      {
        kind: 'mtls',
        display_name: 'x',
        fields: [
          { key: 'certificate', value: pki.strangerCert },
          { key: 'private_key', value: pki.clientKey },
        ],
      },
      /private_key does not belong to the certificate/,
    );
    await refused(
      {
        kind: 'mtls',
        display_name: 'x',
        fields: [
          { key: 'certificate', value: pki.clientCert },
          { key: 'private_key', value: pki.encryptedClientKey },
        ],
      },
      /passphrase/,
    );
    await refused(
      {
        kind: 'mtls',
        display_name: 'x',
        fields: [
          { key: 'certificate', value: 'not a pem' },
          { key: 'private_key', value: pki.clientKey },
        ],
      },
      /certificate is not a PEM certificate/,
    );
    await refused(
      { kind: 'mle', display_name: 'x', fields: [{ key: 'public_key', value: mle.rsa.privateKey }] },
      /public_key must be the target's public key, not a private key/,
    );
    await refused(
      { kind: 'mle', display_name: 'x', fields: [{ key: 'public_key', value: mle.weakRsa.publicKey }] },
      /RSA key of 2048 bits or more/,
    );
    await refused(
      {
        kind: 'mle',
        display_name: 'x',
        fields: [
          { key: 'public_key', value: mle.rsa.publicKey },
          { key: 'alg', value: 'RSA1_5' },
        ],
      },
      /alg must be one of RSA-OAEP-256, ECDH-ES, ECDH-ES\+A256KW/,
    );
    await refused(
      {
        kind: 'mle',
        display_name: 'x',
        fields: [
          { key: 'public_key', value: mle.rsa.publicKey },
          { key: 'alg', value: 'ECDH-ES' },
        ],
      },
      /must be an EC key/,
    );
    // An encrypted key with its passphrase is fine.
    created(
      await post(m, url, {
        kind: 'mtls',
        display_name: 'x',
        fields: [
          { key: 'certificate', value: pki.clientCert },
          { key: 'private_key', value: pki.encryptedClientKey },
          { key: 'private_key_passphrase', value: pki.passphrase },
        ],
      }),
    );
    expect((await post(m, url, { kind: 'basic', display_name: 'x', fields: [] })).statusCode).toBe(422);
  });

  it('answers 404 for an unknown config or authentication method', async () => {
    const m = await createMerchantAccount(t.deps);
    const config = await customConfig(m);
    const none = '018f0000-0000-7000-8000-000000000000';
    expect((await get(m, `/vault-forward/configs/${none}`)).json()).toMatchObject({
      code: 'not_found',
      message: `The vault forward config ${none} could not be found`,
    });
    expect((await post(m, `/vault-forward/configs/${none}/authentications`, signatureBody())).statusCode).toBe(404);
    expect((await get(m, `/vault-forward/configs/${config.id}/authentications/${none}`)).statusCode).toBe(404);
  });
});

describe('security', () => {
  const scoped = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: () => string,
    scope: string,
    payload?: () => unknown,
  ) =>
    runScopeTests(() => t, {
      request: () => ({ method, url: url(), ...(payload ? { payload: payload() as Record<string, unknown> } : {}) }),
      scope,
    });
  let ids = { config: '', authentication: '' };
  beforeAll(async () => {
    const config = await customConfig('default');
    ids = {
      config: config.id,
      authentication: created(
        await post('default', `/vault-forward/configs/${config.id}/authentications`, signatureBody()),
      ).id,
    };
  });
  const auth = () => `/vault-forward/configs/${ids.config}/authentications/${ids.authentication}`;
  scoped('GET', () => '/vault-forward/definitions', 'vault-forward-definitions.read');
  scoped('GET', () => '/vault-forward/configs', 'vault-forward-configs.read');
  scoped(
    'POST',
    () => '/vault-forward/configs',
    'vault-forward-configs.write',
    () => ({ definition_id: 'sabre' }),
  );
  scoped('GET', () => `/vault-forward/configs/${ids.config}`, 'vault-forward-configs.read');
  scoped('DELETE', () => `/vault-forward/configs/${ids.config}`, 'vault-forward-configs.write');
  scoped('GET', () => `/vault-forward/configs/${ids.config}/authentications`, 'vault-forward-authentications.read');
  scoped(
    'POST',
    () => `/vault-forward/configs/${ids.config}/authentications`,
    'vault-forward-authentications.write',
    () => signatureBody(),
  );
  scoped('GET', auth, 'vault-forward-authentications.read');
  scoped('PUT', auth, 'vault-forward-authentications.write', () => ({ display_name: 'x' }));
  scoped('DELETE', auth, 'vault-forward-authentications.write');

  it('shows another merchant account nothing of a config or its methods, and lets it change nothing', async () => {
    const [a, b] = [await createMerchantAccount(t.deps), await createMerchantAccount(t.deps)];
    const config = await customConfig(a);
    const method = created(await post(a, `/vault-forward/configs/${config.id}/authentications`, signatureBody()));
    const url = `/vault-forward/configs/${config.id}/authentications/${method.id}`;
    for (const [verb, path] of [
      ['GET', `/vault-forward/configs/${config.id}`],
      ['DELETE', `/vault-forward/configs/${config.id}`],
      ['GET', url],
      ['DELETE', url],
      ['GET', `/vault-forward/configs/${config.id}/authentications`],
    ] as const) {
      expect((await t.request({ method: verb, url: path, merchantAccountId: b })).statusCode, `${verb} ${path}`).toBe(
        404,
      );
    }
    expect(
      (await t.request({ method: 'PUT', url, merchantAccountId: b, payload: { display_name: 'taken over' } }))
        .statusCode,
    ).toBe(404);
    expect((await get(b, '/vault-forward/configs')).json().items).toEqual([]);
    expect((await get(a, url)).json().display_name).toBe('Signing');
    // B may configure the same definition for itself: one per definition per merchant account.
    created(await post(b, '/vault-forward/configs', { definition_id: 'custom', hosts: ['b.example'] }));
  });

  it('stores secret fields encrypted only: not in the database in clear, not in logs', async () => {
    const m = await createMerchantAccount(t.deps);
    const config = await customConfig(m);
    const marker = `secret-${randomBytes(12).toString('hex')}-padding-padding`;
    created(
      await post(m, `/vault-forward/configs/${config.id}/authentications`, {
        kind: 'signature',
        display_name: 'x',
        fields: [
          { key: 'key_id', value: 'k' },
          { key: 'secret', value: marker },
        ],
      }),
    );
    created(await post(m, `/vault-forward/configs/${config.id}/authentications`, mtlsBody()));
    const keyLine = pki.clientKey.split('\n')[1]!;
    for (const table of ['vault_forward_authentications', 'audit_logs', 'idempotency_keys']) {
      const dump = await sql<{
        text: string | null;
      }>`SELECT string_agg(row_to_json(x)::text, '') AS text FROM ${sql.table(table)} x`.execute(t.deps.db);
      expect(dump.rows[0]!.text ?? '', table).not.toContain(marker);
      expect(dump.rows[0]!.text ?? '', table).not.toContain(keyLine);
    }
    expect(t.logs.join('\n')).not.toContain(marker);
    expect(t.logs.join('\n')).not.toContain(keyLine);
  });

  it('in production keeps custom hosts to host names within VAULT_FORWARD_ALLOWED_HOSTS', async () => {
    const production = await buildTestApp({
      ENVIRONMENT: 'production',
      VAULT_MASTER_KEY: randomBytes(32).toString('base64'),
      VAULT_FORWARD_ALLOWED_HOSTS: '*.partner.example',
    });
    try {
      const m = await createMerchantAccount(production.deps);
      const res = await production.request({
        method: 'POST',
        url: '/vault-forward/configs',
        merchantAccountId: m,
        payload: {
          definition_id: 'custom',
          hosts: ['api.partner.example', 'api.other.example', '127.0.0.1', 'localhost'],
        },
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().details.map((d: { pointer: string }) => d.pointer)).toEqual([
        '/hosts/1',
        '/hosts/2',
        '/hosts/3',
      ]);
      expect(res.json().details[0].message).toMatch(/not within VAULT_FORWARD_ALLOWED_HOSTS/);
    } finally {
      await production.close();
    }
  });
});
