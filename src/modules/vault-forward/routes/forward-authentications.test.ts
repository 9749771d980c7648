import { createHash, createHmac, createPrivateKey, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { compactDecrypt, decodeProtectedHeader } from 'jose';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { createMleKeys, createTestPki, type TestPki } from '../../../../test/helpers/test-pki.ts';

/**
 * Authentication methods applied to real local targets, each verified by the target itself: an
 * HTTP target that recomputes the HMAC and decrypts the JWE with its own code (not the server's),
 * and an HTTPS target with its own test CA that requires and checks a client certificate.
 */

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
  /** The client certificate's subject CN on the https target, when one was presented and trusted. */
  client: string | null;
}

const PAN = '4111111111111111';
const SECRET = 'hmac-secret-0123456789-abcdefghijklmnop';
const received: Received[] = [];
let pki: TestPki;
const mle = createMleKeys();
let t: TestApp;
let plain: Server;
let secure: Server;
let httpBase: string;
let httpsBase: string;

function record(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const socket = req.socket as TLSSocket;
    const client =
      typeof socket.getPeerCertificate === 'function' && socket.authorized
        ? (socket.getPeerCertificate().subject.CN ?? null)
        : null;
    received.push({
      method: req.method!,
      url: req.url!,
      headers: req.headers,
      body: Buffer.concat(chunks),
      client: Array.isArray(client) ? client[0]! : client,
    });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: true, client }));
  });
}

const listen = (server: Server) =>
  new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(String((server.address() as AddressInfo).port))),
  );

beforeAll(async () => {
  pki = createTestPki();
  plain = createServer(record);
  secure = createHttpsServer(
    { key: pki.serverKey, cert: pki.serverCert, ca: pki.caCert, requestCert: true, rejectUnauthorized: true },
    record,
  );
  httpBase = `http://127.0.0.1:${await listen(plain)}`;
  httpsBase = `https://127.0.0.1:${await listen(secure)}`;
  t = await buildTestApp({ VAULT_FORWARD_ALLOW_PRIVATE_URLS: 'true', VAULT_FORWARD_TIMEOUT_SECONDS: '5' });
});
afterAll(async () => {
  await t.close();
  await Promise.all([plain, secure].map((s) => new Promise((resolve) => s.close(resolve))));
});

/** The target's own check of a signature: the digest of the body it received, then the HMAC of the signed lines. */
function verifiedByTarget(r: Received, names = { signature: 'signature', date: 'date', digest: 'digest' }): boolean {
  const params = Object.fromEntries(
    [...String(r.headers[names.signature] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]),
  );
  if (r.headers[names.digest] !== `SHA-256=${createHash('sha256').update(r.body).digest('base64')}`) return false;
  if (Math.abs(Date.parse(String(r.headers[names.date])) - Date.now()) > 60_000) return false;
  const lines = params
    .headers!.split(' ')
    .map((h) => (h === '(request-target)' ? `${h}: ${r.method.toLowerCase()} ${r.url}` : `${h}: ${r.headers[h]}`));
  return (
    params.keyId === 'k-1' &&
    params.algorithm === 'hmac-sha256' &&
    createHmac('sha256', SECRET).update(lines.join('\n')).digest('base64') === params.signature
  );
}

const decrypt = async (jwe: string, key: string) =>
  JSON.parse(new TextDecoder().decode((await compactDecrypt(jwe, createPrivateKey(key))).plaintext));

interface Account {
  m: string;
  card: string;
  config: string;
}

async function account(hosts = ['127.0.0.1']): Promise<Account> {
  const m = await createMerchantAccount(t.deps);
  const card = (
    await t.request({
      method: 'POST',
      url: '/payment-methods',
      merchantAccountId: m,
      payload: { method: 'card', number: PAN, expiration_date: '07/30' },
    })
  ).json().id;
  const config = (
    await t.request({
      method: 'POST',
      url: '/vault-forward/configs',
      merchantAccountId: m,
      payload: { definition_id: 'custom', hosts },
    })
  ).json().id;
  return { m, card, config };
}

async function method(acc: Account, kind: string, fields: Record<string, string>): Promise<string> {
  const res = await t.request({
    method: 'POST',
    url: `/vault-forward/configs/${acc.config}/authentications`,
    merchantAccountId: acc.m,
    payload: { kind, display_name: kind, fields: Object.entries(fields).map(([key, value]) => ({ key, value })) },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

const signing = (extra: Record<string, string> = {}) => ({ key_id: 'k-1', secret: SECRET, ...extra });
const certificate = (cert = pki.clientCert, key = pki.clientKey) => ({
  certificate: cert,
  private_key: key,
  ca_certificates: pki.caCert,
});

function forward(
  acc: Account,
  url: string,
  authentications: string[],
  extra: Record<string, string> = {},
  payload: unknown = { card: '{{CARD_NUMBER_1}}', expiry: '{{ CARD_EXPIRATION_DATE_1 }}' },
) {
  return t.request({
    method: 'POST',
    url: '/vault-forward',
    merchantAccountId: acc.m,
    headers: {
      'x-vault-forward-url': url,
      'x-vault-forward-payment-methods': acc.card,
      'x-vault-forward-authentications': authentications.join(','),
      ...extra,
    },
    payload: payload as Record<string, unknown>,
  });
}

const sent = () => received[received.length - 1]!;

describe('happy', () => {
  it('signs the request: the target recomputes the HMAC over method, path, date and body digest', async () => {
    const acc = await account();
    const [plainNames, customNames] = [
      await method(acc, 'signature', signing()),
      await method(
        acc,
        'signature',
        signing({ signature_header: 'x-sig', date_header: 'x-date', digest_header: 'x-digest' }),
      ),
    ];
    const res = await forward(acc, `${httpBase}/bookings?ref=1`, [plainNames]);
    expect(res.statusCode, res.body).toBe(200);
    expect(JSON.parse(sent().body.toString())).toEqual({ card: PAN, expiry: '07/30' });
    expect(verifiedByTarget(sent())).toBe(true);
    expect(sent().headers.signature).toMatch(
      /^keyId="k-1",algorithm="hmac-sha256",headers="\(request-target\) date digest",signature="/,
    );
    await forward(acc, `${httpBase}/bookings`, [customNames], { 'x-vault-forward-http-method': 'PUT' });
    expect(verifiedByTarget(sent(), { signature: 'x-sig', date: 'x-date', digest: 'x-digest' })).toBe(true);
    // The target's check is real: a body changed after signing no longer verifies.
    expect(
      verifiedByTarget(
        { ...sent(), body: Buffer.from('{}') },
        { signature: 'x-sig', date: 'x-date', digest: 'x-digest' },
      ),
    ).toBe(false);
  });

  it('presents the client certificate to an https target that requires one from its CA', async () => {
    const acc = await account();
    const withCert = await method(acc, 'mtls', certificate());
    const encryptedKey = await method(acc, 'mtls', {
      ...certificate(pki.clientCert, pki.encryptedClientKey),
      private_key_passphrase: pki.passphrase,
    });
    const stranger = await method(acc, 'mtls', certificate(pki.strangerCert, pki.strangerKey));
    for (const id of [withCert, encryptedKey]) {
      const res = await forward(acc, `${httpsBase}/pay`, [id]);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toEqual({ ok: true, client: 'merchant-client' });
      expect(sent().client).toBe('merchant-client');
    }
    const count = received.length;
    const refused = await forward(acc, `${httpsBase}/pay`, [stranger]);
    expect(refused.statusCode, refused.body).toBe(502);
    const without = await forward(acc, `${httpsBase}/pay`, []);
    expect(without.statusCode).toBe(502);
    expect(received).toHaveLength(count);
  });

  it('encrypts the body as a JWE the target decrypts with its private key (RSA-OAEP-256, or ECDH-ES+A256KW in a JSON field)', async () => {
    const acc = await account();
    const rsa = await method(acc, 'mle', { public_key: mle.rsa.publicKey, key_id: 'target-1' });
    const ec = await method(acc, 'mle', {
      public_key: mle.ec.publicKey,
      alg: 'ECDH-ES+A256KW',
      enc: 'A128GCM',
      body_field: 'encData',
    });
    expect((await forward(acc, `${httpBase}/pay`, [rsa])).statusCode).toBe(200);
    const jwe = sent().body.toString();
    expect(sent().headers['content-type']).toBe('application/jose');
    expect(decodeProtectedHeader(jwe)).toEqual({
      alg: 'RSA-OAEP-256',
      enc: 'A256GCM',
      cty: 'application/json',
      kid: 'target-1',
    });
    expect(await decrypt(jwe, mle.rsa.privateKey)).toEqual({ card: PAN, expiry: '07/30' });
    expect(jwe).not.toContain(PAN);
    await forward(acc, `${httpBase}/pay`, [ec]);
    const wrapped = JSON.parse(sent().body.toString());
    expect(sent().headers['content-type']).toBe('application/json');
    expect(decodeProtectedHeader(wrapped.encData)).toMatchObject({ alg: 'ECDH-ES+A256KW', enc: 'A128GCM' });
    expect(await decrypt(wrapped.encData, mle.ec.privateKey)).toEqual({ card: PAN, expiry: '07/30' });
  });

  it('applies the methods in the order given: encrypt then sign signs the JWE; sign then encrypt signs the plaintext', async () => {
    const acc = await account();
    const [sign, encrypt] = [
      await method(acc, 'signature', signing()),
      await method(acc, 'mle', { public_key: mle.rsa.publicKey }),
    ];
    await forward(acc, `${httpBase}/pay`, [encrypt, sign]);
    expect(verifiedByTarget(sent())).toBe(true);
    expect(await decrypt(sent().body.toString(), mle.rsa.privateKey)).toEqual({ card: PAN, expiry: '07/30' });
    await forward(acc, `${httpBase}/pay`, [sign, encrypt]);
    const plaintext = Buffer.from(JSON.stringify(await decrypt(sent().body.toString(), mle.rsa.privateKey)));
    expect(verifiedByTarget(sent())).toBe(false);
    expect(verifiedByTarget({ ...sent(), body: plaintext })).toBe(true);
  });

  it('combines all three kinds on one request to the https target', async () => {
    const acc = await account();
    const ids = [
      await method(acc, 'mtls', certificate()),
      await method(acc, 'mle', { public_key: mle.ec.publicKey, alg: 'ECDH-ES' }),
      await method(acc, 'signature', signing()),
    ];
    const res = await forward(acc, `${httpsBase}/pay`, ids);
    expect(res.statusCode, res.body).toBe(200);
    expect(sent().client).toBe('merchant-client');
    expect(verifiedByTarget(sent())).toBe(true);
    expect(await decrypt(sent().body.toString(), mle.ec.privateKey)).toEqual({ card: PAN, expiry: '07/30' });
  });
});

describe('errors', () => {
  it('refuses before anything is sent, saying which method and why', async () => {
    const acc = await account();
    const other = await account();
    const elsewhere = await account(['api.partner.example']);
    const [sign, cert, cert2, encrypt] = [
      await method(acc, 'signature', signing()),
      await method(acc, 'mtls', certificate()),
      await method(acc, 'mtls', certificate()),
      await method(acc, 'mle', { public_key: mle.rsa.publicKey }),
    ];
    const foreign = await method(other, 'signature', signing());
    const partner = await method(elsewhere, 'signature', signing());
    const count = received.length;
    const refused = async (res: Awaited<ReturnType<typeof forward>>, message: RegExp) => {
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({
        code: 'bad_request',
        message: expect.stringMatching(message),
        details: [{ pointer: '/x-vault-forward-authentications' }],
      });
    };
    await refused(
      await forward(acc, `${httpBase}/pay`, [sign, foreign]),
      new RegExp(`authentication method 2 \\(${foreign}\\): no such authentication method in this merchant account`),
    );
    await refused(
      await forward(elsewhere, `${httpBase}/pay`, [partner]),
      new RegExp(
        `authentication method 1 \\(${partner}\\) belongs to the config Custom target \\(custom\\), whose hosts \\(api.partner.example\\) do not include 127.0.0.1`,
      ),
    );
    await refused(await forward(acc, `${httpBase}/pay`, [cert]), /is mutual TLS, which needs an https target/);
    await refused(await forward(acc, `${httpsBase}/pay`, [cert, cert2]), /name one mtls method/);
    await refused(
      await forward(acc, `${httpBase}/pay`, [encrypt], { 'x-vault-forward-http-method': 'GET' }),
      /encrypts the body, and this request has none/,
    );
    await refused(await forward(acc, `${httpBase}/pay`, [sign, sign]), /is named twice/);
    await refused(
      await forward(
        acc,
        `${httpBase}/pay`,
        Array.from({ length: 6 }, () => randomUUIDLike()),
      ),
      /at most 5 authentication methods/,
    );
    await t.request({ method: 'DELETE', url: `/vault-forward/configs/${acc.config}`, merchantAccountId: acc.m });
    await refused(await forward(acc, `${httpBase}/pay`, [sign]), /no such authentication method/);
    expect(received).toHaveLength(count);
  });
});

function randomUUIDLike(): string {
  const h = randomBytes(16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-7${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20)}`;
}

describe('security', () => {
  it("keeps the card number and the methods' secrets out of logs, answers, audit entries and stored replies", async () => {
    const acc = await account();
    const ids = [await method(acc, 'signature', signing()), await method(acc, 'mtls', certificate())];
    const res = await forward(acc, `${httpsBase}/pay`, ids, { 'idempotency-key': 'auth-scan-1' });
    expect(res.statusCode).toBe(200);
    const again = await forward(acc, `${httpsBase}/pay`, ids, { 'idempotency-key': 'auth-scan-1' });
    expect(again.headers['idempotent-replayed']).toBe('true');
    const keyLine = pki.clientKey.split('\n')[1]!;
    const dumps = await Promise.all(
      ['audit_logs', 'idempotency_keys', 'vault_forward_authentications'].map((table) =>
        sql<{
          text: string | null;
        }>`SELECT string_agg(row_to_json(x)::text, '') AS text FROM ${sql.table(table)} x`.execute(t.deps.db),
      ),
    );
    for (const text of [t.logs.join('\n'), res.body, ...dumps.map((d) => d.rows[0]!.text ?? '')]) {
      for (const secret of [PAN, SECRET, keyLine]) expect(text).not.toContain(secret);
    }
    const audit = (
      await t.request({ method: 'GET', url: '/audit-logs?resource_type=vault-forward', merchantAccountId: acc.m })
    ).json().items;
    expect(audit[0].resource.name).toContain(`authentication methods ${ids.join(', ')}`);
  });

  it("in production allows only hosts of the merchant account's configs that are within VAULT_FORWARD_ALLOWED_HOSTS", async () => {
    const production = await buildTestApp({
      ENVIRONMENT: 'production',
      VAULT_MASTER_KEY: randomBytes(32).toString('base64'),
      VAULT_FORWARD_ALLOWED_HOSTS: 'a.invalid,b.invalid',
    });
    try {
      const m = await createMerchantAccount(production.deps);
      const send = (url: string) =>
        production.request({
          method: 'POST',
          url: '/vault-forward',
          merchantAccountId: m,
          headers: { 'x-vault-forward-url': url },
          payload: {},
        });
      expect((await send('https://a.invalid/')).json().message).toMatch(
        /only the hosts of the merchant account's vault forward configs/,
      );
      for (const payload of [{ definition_id: 'custom', hosts: ['a.invalid'] }, { definition_id: 'visa' }]) {
        expect(
          (await production.request({ method: 'POST', url: '/vault-forward/configs', merchantAccountId: m, payload }))
            .statusCode,
        ).toBe(201);
      }
      // Past both lists, the name is resolved (and .invalid never resolves).
      expect((await send('https://a.invalid/')).json().message).toMatch(/could not be resolved/);
      expect((await send('https://b.invalid/')).json()).toMatchObject({
        status: 403,
        message: expect.stringMatching(/vault forward configs/),
      });
      expect((await send('https://api.visa.com/')).json()).toMatchObject({
        status: 403,
        message: expect.stringMatching(/not within VAULT_FORWARD_ALLOWED_HOSTS/),
      });
    } finally {
      await production.close();
    }
  });
});
