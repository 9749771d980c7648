import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../../test/helpers/factories.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';

/** A local target on 127.0.0.1 that records what it receives and answers as the test says. */
interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}
let target: Server;
let base: string;
const received: Received[] = [];
let answer: (req: Received, res: ServerResponse) => void = (req, res) => {
  res.writeHead(201, { 'content-type': 'application/json', 'x-target': 'yes', connection: 'close' });
  res.end(JSON.stringify({ echoed: JSON.parse(req.body || 'null') }));
};

let t: TestApp;
beforeAll(async () => {
  target = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const r = { method: req.method!, url: req.url!, headers: req.headers, body };
      received.push(r);
      answer(r, res);
    });
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  t = await buildTestApp({ VAULT_FORWARD_ALLOW_PRIVATE_URLS: 'true', VAULT_FORWARD_TIMEOUT_SECONDS: '5' });
});
afterAll(async () => {
  await t.close();
  await new Promise((resolve) => target.close(resolve));
});

const PAN = '4111111111111111';
const PAN2 = '5555555555554444';

async function storedCard(m: string, number = PAN, expiration = '07/30') {
  const res = await t.request({
    method: 'POST',
    url: '/payment-methods',
    merchantAccountId: m,
    payload: { method: 'card', number, expiration_date: expiration },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

const forward = (m: string, headers: Record<string, string>, payload?: Record<string, unknown>, app: TestApp = t) =>
  app.request({
    method: 'POST',
    url: '/vault-forward',
    merchantAccountId: m,
    headers: { 'x-vault-forward-url': `${base}/cards?x=1`, ...headers },
    ...(payload === undefined ? {} : { payload }),
  });

describe('happy', () => {
  it("sends the body with both placeholder forms replaced, the forwarded headers and the method; answers with the target's answer, card numbers masked", async () => {
    const m = await createMerchantAccount(t.deps);
    const [first, second] = [await storedCard(m), await storedCard(m, PAN2, '12/29')];
    received.length = 0;
    const res = await forward(
      m,
      {
        'x-vault-forward-http-method': 'PUT',
        'x-vault-forward-payment-methods': `${first}, ${second}`,
        'x-vault-forward-header-authorization': 'Bearer target-secret',
        'x-vault-forward-header-x-hotel': 'h-1',
      },
      {
        card: {
          number: '{{CARD_NUMBER_1}}',
          expiry: '{{ CARD_EXPIRATION_DATE_1 }}',
          month: '{{CARD_EXPIRATION_MONTH_SHORT_1}}',
          year: '{{CARD_EXPIRATION_YEAR_1}}',
        },
        backup: '{{ CARD_NUMBER_2 }}',
        note: 'no placeholder here',
      },
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(received).toHaveLength(1);
    const sent = received[0]!;
    expect(sent.method).toBe('PUT');
    expect(sent.url).toBe('/cards?x=1');
    expect(sent.headers).toMatchObject({
      authorization: 'Bearer target-secret',
      'x-hotel': 'h-1',
      'content-type': 'application/json',
      'accept-encoding': 'identity',
    });
    expect(JSON.parse(sent.body)).toEqual({
      card: { number: PAN, expiry: '07/30', month: '7', year: '2030' },
      backup: PAN2,
      note: 'no placeholder here',
    });
    expect(res.headers['x-target']).toBe('yes');
    expect(res.headers.connection).not.toBe('close');
    expect(res.json()).toEqual({
      echoed: {
        card: { number: '411111******1111', expiry: '07/30', month: '7', year: '2030' },
        backup: '555555******4444',
        note: 'no placeholder here',
      },
    });
    expect(res.body).not.toContain(PAN);
  });

  it('sends the security code a checkout session holds for the card, once', async () => {
    const m = await createMerchantAccount(t.deps);
    // A checkout session takes only its own buyer's stored cards (docs/security.md).
    const buyer = (
      await t.request({
        method: 'POST',
        url: '/buyers',
        merchantAccountId: m,
        payload: { display_name: 'Forward buyer' },
      })
    ).json().id as string;
    const stored = await t.request({
      method: 'POST',
      url: '/payment-methods',
      merchantAccountId: m,
      payload: { method: 'card', number: PAN, expiration_date: '07/30', buyer_id: buyer },
    });
    expect(stored.statusCode, stored.body).toBe(201);
    const card = stored.json().id as string;
    const session = (
      await t.request({ method: 'POST', url: '/checkout/sessions', merchantAccountId: m, payload: { buyer_id: buyer } })
    ).json().id;
    const fields = await t.request({
      method: 'POST',
      url: `/checkout/sessions/${session}/fields`,
      token: null,
      payload: { payment_method: { method: 'id', id: card, security_code: '737' } },
    });
    expect(fields.statusCode, fields.body).toBe(204);
    received.length = 0;
    const headers = { 'x-vault-forward-payment-methods': card, 'x-vault-forward-checkout-session': session };
    const res = await forward(m, headers, { cvv: '{{CARD_SECURITY_CODE_1}}' });
    expect(res.statusCode, res.body).toBe(201);
    expect(JSON.parse(received[0]!.body)).toEqual({ cvv: '737' });
    const again = await forward(m, headers, { cvv: '{{CARD_SECURITY_CODE_1}}' });
    expect(again.statusCode).toBe(400);
    expect(again.json().details[0].pointer).toBe('/x-vault-forward-checkout-session');
    expect(received).toHaveLength(1);
    const without = await forward(m, { 'x-vault-forward-payment-methods': card }, { cvv: '{{CARD_SECURITY_CODE_1}}' });
    expect(without.json().message).toMatch(/x-vault-forward-checkout-session/);
  });

  it('replays an idempotent forward byte for byte without sending it again', async () => {
    const m = await createMerchantAccount(t.deps);
    const card = await storedCard(m);
    received.length = 0;
    const headers = { 'x-vault-forward-payment-methods': card, 'idempotency-key': 'forward-1' };
    const first = await forward(m, headers, { n: '{{CARD_NUMBER_1}}' });
    const again = await forward(m, headers, { n: '{{CARD_NUMBER_1}}' });
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['x-target']).toBe('yes');
    expect(received).toHaveLength(1);
  });

  it('writes an audit entry with the host, the payment methods and the status, never the body', async () => {
    const m = await createMerchantAccount(t.deps);
    const card = await storedCard(m);
    await forward(m, { 'x-vault-forward-payment-methods': card }, { n: '{{CARD_NUMBER_1}}' });
    const audit = (
      await t.request({ method: 'GET', url: '/audit-logs?resource_type=vault-forward', merchantAccountId: m })
    ).json().items;
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit)).toContain(card);
    expect(JSON.stringify(audit)).toContain('→ 201');
  });
});

describe('errors', () => {
  const refused = async (res: { statusCode: number; json(): any; body: string }, pointer: string, message: RegExp) => {
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(message),
      details: [{ pointer }],
    });
  };

  it("refuses before sending anything: no url, an unknown placeholder, an index without a payment method, another account's card, an unknown authentication method", async () => {
    const m = await createMerchantAccount(t.deps);
    const other = await createMerchantAccount(t.deps);
    const card = await storedCard(m);
    const foreign = await storedCard(other);
    received.length = 0;
    await refused(
      await t.request({ method: 'POST', url: '/vault-forward', merchantAccountId: m, payload: {} }),
      '/x-vault-forward-url',
      /x-vault-forward-url is required/,
    );
    await refused(
      await forward(m, { 'x-vault-forward-payment-methods': card }, { n: '{{CARD_NUMBR_1}}' }),
      '',
      /Unknown placeholder \{\{CARD_NUMBR_1\}\}/,
    );
    await refused(
      await forward(m, { 'x-vault-forward-payment-methods': card }, { n: '{{CARD_NUMBER_2}}' }),
      '',
      /names payment method 2, but x-vault-forward-payment-methods lists 1/,
    );
    await refused(
      await forward(m, { 'x-vault-forward-payment-methods': `${card},${foreign}` }, { n: '{{CARD_NUMBER_2}}' }),
      '/x-vault-forward-payment-methods',
      new RegExp(`payment method 2 \\(${foreign}\\): no such payment method`),
    );
    await refused(
      await forward(m, { 'x-vault-forward-payment-methods': 'nope' }, {}),
      '/x-vault-forward-payment-methods',
      /"nope" is not one/,
    );
    await refused(
      await forward(m, { 'x-vault-forward-authentications': '018f0000-0000-7000-8000-000000000000' }, {}),
      '/x-vault-forward-authentications',
      /authentication method 1 \(018f0000-0000-7000-8000-000000000000\): no such authentication method in this merchant account/,
    );
    await refused(
      await forward(m, { 'x-vault-forward-http-method': 'TRACE' }, {}),
      '/x-vault-forward-http-method',
      /must be one of/,
    );
    await refused(
      await forward(m, { 'x-vault-forward-header-host': 'evil.example' }, {}),
      '/x-vault-forward-header-host',
      /cannot be forwarded/,
    );
    expect(received).toEqual([]);
  });

  it("answers 504 when the target is slower than the caller's timeout, and 502 when its answer is too large", async () => {
    const m = await createMerchantAccount(t.deps);
    answer = () => undefined;
    const slow = await forward(m, { 'x-vault-forward-timeout': '1' }, {});
    expect(slow.statusCode).toBe(504);
    expect(slow.json().message).toMatch(/no complete answer from the target within 1000 ms/);
    answer = (_req, res) => res.end(Buffer.alloc(2 * 1024 * 1024, 'a'));
    const big = await forward(m, {}, {});
    expect(big.statusCode).toBe(502);
    expect(big.json().message).toMatch(/exceeds 1048576 bytes/);
    answer = (req, res) => {
      res.writeHead(201, { 'content-type': 'application/json', 'x-target': 'yes' });
      res.end(JSON.stringify({ echoed: JSON.parse(req.body || 'null') }));
    };
    expect((await forward(m, { 'x-vault-forward-timeout': '999' }, {})).statusCode).toBe(400);
  });

  it('keeps the card number out of logs and the database (stored replies hold it masked)', async () => {
    const m = await createMerchantAccount(t.deps);
    const card = await storedCard(m);
    await forward(
      m,
      { 'x-vault-forward-payment-methods': card, 'idempotency-key': 'scan-1' },
      { n: '{{CARD_NUMBER_1}}' },
    );
    expect(t.logs.join('\n')).not.toContain(PAN);
    const dump = await sql<{
      text: string;
    }>`SELECT string_agg(row_to_json(k)::text, '') AS text FROM idempotency_keys k`.execute(t.deps.db);
    expect(dump.rows[0]!.text ?? '').not.toContain(PAN);
    const audit = await sql<{
      text: string;
    }>`SELECT string_agg(row_to_json(a)::text, '') AS text FROM audit_logs a`.execute(t.deps.db);
    expect(audit.rows[0]!.text ?? '').not.toContain(PAN);
  });
});

/** Runs `work` with the target answering `with`, then restores the echoing target. */
async function answering(
  with_: (req: Received, res: ServerResponse) => void,
  work: () => Promise<void>,
): Promise<void> {
  const before = answer;
  answer = with_;
  try {
    await work();
  } finally {
    answer = before;
  }
}

describe('security', () => {
  it('masks the forwarded card number in the forms targets print it: spaced, dashed, dotted, no-break spaces, form-encoded, UTF-16, in the body and in headers', async () => {
    const m = await createMerchantAccount(t.deps);
    const card = await storedCard(m);
    const forms = [
      '4111 1111 1111 1111',
      '4111-1111-1111-1111',
      '4111.1111.1111.1111',
      '4111\u00a01111\u00a01111\u00a01111',
      '4111 - 1111 - 1111 - 1111',
      '4111+1111+1111+1111',
      '4111%201111%201111%201111',
    ];
    const utf16 = Buffer.from('card 4111 1111 1111 1111', 'utf16le');
    await answering(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'x-card': '4111 1111 1111 1111' });
        res.end(Buffer.concat([Buffer.from(forms.join('\n'), 'utf8'), Buffer.from('\n'), utf16]));
      },
      async () => {
        const res = await forward(m, { 'x-vault-forward-payment-methods': card }, { n: '{{CARD_NUMBER_1}}' });
        expect(res.statusCode, res.body).toBe(200);
        const [text, wide] = [
          res.rawPayload.subarray(0, res.rawPayload.length - utf16.length).toString('utf8'),
          res.rawPayload.subarray(res.rawPayload.length - utf16.length).toString('utf16le'),
        ];
        expect(text.split('\n').slice(0, forms.length)).toEqual([
          '4111 11** **** 1111',
          '4111-11**-****-1111',
          '4111.11**.****.1111',
          '4111\u00a011**\u00a0****\u00a01111',
          '4111 - 11** - **** - 1111',
          '4111+11**+****+1111',
          '4111%2011**%20****%201111',
        ]);
        expect(wide).toBe('card 4111 11** **** 1111');
        expect(res.headers['x-card']).toBe('4111 11** **** 1111');
      },
    );
  });

  it('decodes a compressed answer (gzip, deflate, br) to mask it, and passes it back uncompressed', async () => {
    const m = await createMerchantAccount(t.deps);
    const card = await storedCard(m);
    const plain = Buffer.from(JSON.stringify({ echoed: '4111 1111 1111 1111', exact: PAN }));
    for (const [encoding, encode] of [
      ['gzip', gzipSync],
      ['x-gzip', gzipSync],
      ['deflate', deflateSync],
      ['br', brotliCompressSync],
      ['GZIP', gzipSync],
    ] as const) {
      await answering(
        (_req, res) =>
          res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding }).end(encode(plain)),
        async () => {
          const res = await forward(m, { 'x-vault-forward-payment-methods': card }, { n: '{{CARD_NUMBER_1}}' });
          expect(res.statusCode, `${encoding}: ${res.body}`).toBe(200);
          expect(res.headers['content-encoding'], encoding).toBeUndefined();
          expect(res.json(), encoding).toEqual({ echoed: '4111 11** **** 1111', exact: '411111******1111' });
        },
      );
    }
  });

  it('refuses (502) an answer it cannot decode to inspect: an unknown content-encoding, a corrupt body, or more than 1 MiB once decoded', async () => {
    const m = await createMerchantAccount(t.deps);
    const card = await storedCard(m);
    const cases: Array<[string, Buffer, RegExp]> = [
      ['zstd', Buffer.from(PAN), /content-encoding "zstd".*cannot be decoded/],
      ['gzip, zstd', gzipSync(PAN), /content-encoding "gzip, zstd".*cannot be decoded/],
      ['compress', Buffer.from(PAN), /content-encoding "compress"/],
      ['gzip', Buffer.from(`not gzip ${PAN}`), /could not be decoded \(gzip\)/],
      ['gzip', gzipSync(Buffer.alloc(2 * 1024 * 1024, ' ')), /exceeds 1048576 bytes once decoded/],
    ];
    for (const [encoding, body, message] of cases) {
      await answering(
        (_req, res) => res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': encoding }).end(body),
        async () => {
          const res = await forward(m, { 'x-vault-forward-payment-methods': card }, { n: '{{CARD_NUMBER_1}}' });
          expect(res.statusCode, `${encoding}: ${res.body}`).toBe(502);
          expect(res.json()).toMatchObject({
            type: 'error',
            code: 'bad_gateway',
            status: 502,
            message: expect.stringMatching(message),
          });
          expect(res.body).not.toContain(PAN);
        },
      );
    }
  });

  runScopeTests(() => t, {
    request: () => ({
      method: 'POST',
      url: '/vault-forward',
      headers: { 'x-vault-forward-url': 'https://example.com/' },
      payload: {},
    }),
    scope: 'vault-forward.write',
  });

  it('in production reaches no local listener, whatever form the address takes, and only allow-listed https hosts', async () => {
    const production = await buildTestApp({
      ENVIRONMENT: 'production',
      VAULT_MASTER_KEY: randomBytes(32).toString('base64'),
      VAULT_FORWARD_ALLOW_PRIVATE_URLS: 'true',
      VAULT_FORWARD_ALLOWED_HOSTS: 'localhost,*.localhost,api.example.com',
    });
    try {
      const m = await createMerchantAccount(production.deps);
      const port = (target.address() as AddressInfo).port;
      received.length = 0;
      for (const url of [
        `${base}/`,
        `https://127.0.0.1:${port}/`,
        `https://2130706433:${port}/`,
        `https://0x7f000001:${port}/`,
        `https://[::1]:${port}/`,
        `https://[::ffff:127.0.0.1]:${port}/`,
        `https://localhost:${port}/`,
        `https://a.localhost:${port}/`,
        'https://169.254.169.254/latest/meta-data',
        'https://[fd00::1]/',
        'https://10.0.0.1/',
        'https://other.example.org/',
      ]) {
        const res = await forward(m, { 'x-vault-forward-url': url }, {}, production);
        expect([400, 403], `${url}: ${res.body}`).toContain(res.statusCode);
      }
      expect(received).toEqual([]);
    } finally {
      await production.close();
    }
  });
});
