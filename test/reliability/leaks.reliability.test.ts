import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from '../../src/lib/ids.ts';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { bruteForceCards, type Haystack, type SentRequest } from '../helpers/card-brute-force.ts';
import { merchantWithMockCard } from '../helpers/transactions.ts';
import { drainUntil, startReceiver, type Receiver } from '../helpers/webhook-receiver.ts';
import { CARD_PATHS, SECRETS, type PathContext } from './support/card-paths.ts';
import { dumpAllTables, needlesOf, scan } from './support/leak-scan.ts';
import { report } from './support/profile.ts';

/**
 * Card numbers and security codes go through every path that takes them (support/card-paths.ts);
 * then every answer, every log line, every webhook and every row of every table is searched for
 * them: 0 hits. Logs are at trace level, the most a deployment could write. The same texts are
 * then searched for hashes of them: a brute force over the unknown digits of each card number and
 * code, in every form the server could have hashed (the requests that carried them included),
 * must recover nothing (helpers/card-brute-force.ts).
 */
let t: TestApp;
let receiver: Receiver;
let target: Server;
let forwardTarget = '';

beforeAll(async () => {
  receiver = await startReceiver();
  // A vault forwarding target that echoes what it got, card number included: the answer passed back must be masked.
  target = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () =>
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ received: JSON.parse(body || 'null') })),
    );
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  forwardTarget = `http://127.0.0.1:${(target.address() as AddressInfo).port}/echo`;
  t = await buildTestApp({
    LOG_LEVEL: 'trace',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    VAULT_FORWARD_ALLOW_PRIVATE_URLS: 'true',
    SETTLEMENT_DELAY_SECONDS: '0',
  });
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
  await new Promise((resolve) => target?.close(resolve));
});

const needles = needlesOf(
  [SECRETS.visa.number, SECRETS.mastercard.number, SECRETS.amex.number, SECRETS.giftCard.number],
  [SECRETS.visa.securityCode, SECRETS.mastercard.securityCode, SECRETS.amex.securityCode, SECRETS.giftCard.pin],
);

describe('security', () => {
  it('no card number or security code in any answer, log line, webhook or database row', async () => {
    const { merchantAccountId, paymentServiceId } = await merchantWithMockCard(t);
    const sub = await t.request({
      method: 'POST',
      url: '/webhook-subscriptions',
      merchantAccountId,
      payload: { url: receiver.url },
    });
    expect(sub.statusCode, sub.body).toBe(201);
    const answers: Array<{ step: string; res: LightMyRequestResponse }> = [];
    const requests: SentRequest[] = [];
    const ctx: PathContext = {
      merchantAccountId,
      paymentServiceId,
      forwardTarget,
      async send(options) {
        // Idempotency keys too: the stored answers (replays) are part of the database scan.
        const headers = {
          ...(options.method === 'POST' ? { 'idempotency-key': uuidv7() } : {}),
          ...(options.headers as Record<string, string>),
        };
        const res = await t.request({ ...options, headers, merchantAccountId });
        answers.push({ step: `${options.method} ${options.url}`, res });
        requests.push({ method: options.method ?? 'GET', url: options.url as string, payload: options.payload });
        return res;
      },
    };
    for (const path of CARD_PATHS) await path.run(ctx);
    await drainUntil(t.deps, () => receiver.received.length >= 8, 20_000);

    const hits: string[] = [];
    for (const { step, res } of answers)
      hits.push(...scan(`answer to ${step}`, `${JSON.stringify(res.headers)}\n${res.body}`, needles));
    hits.push(...t.logs.flatMap((line, i) => scan(`log line ${i}`, line, needles)));
    hits.push(...receiver.received.flatMap((r) => scan(`webhook ${r.json.kind}`, r.body, needles)));
    const dump = await dumpAllTables(t.deps);
    for (const { table, rows } of dump)
      rows.forEach((row, i) => hits.push(...scan(`table ${table} row ${i}`, row, needles)));

    const haystacks: Haystack[] = [
      ...answers.map(({ step, res }) => ({
        where: `answer to ${step}`,
        text: `${JSON.stringify(res.headers)}\n${res.body}`,
      })),
      ...t.logs.map((text, i) => ({ where: `log line ${i}`, text })),
      ...receiver.received.map((r) => ({ where: `webhook ${r.json.kind}`, text: r.body })),
      ...dump.flatMap(({ table, rows }) => rows.map((text, i) => ({ where: `table ${table} row ${i}`, text }))),
    ];
    const cards = [
      { label: 'visa', number: SECRETS.visa.number, code: SECRETS.visa.securityCode },
      { label: 'mastercard', number: SECRETS.mastercard.number, code: SECRETS.mastercard.securityCode },
      { label: 'amex', number: SECRETS.amex.number, code: SECRETS.amex.securityCode },
      { label: 'gift card', number: SECRETS.giftCard.number, code: SECRETS.giftCard.pin },
    ];
    const recovered = bruteForceCards(cards, requests, haystacks);
    hits.push(...recovered);

    const rows = dump.reduce((n, d) => n + d.rows.length, 0);
    report('leaks', {
      paths: CARD_PATHS.length,
      answers: answers.length,
      log_lines: t.logs.length,
      webhooks: receiver.received.length,
      tables: dump.length,
      rows,
      hits: hits.length,
      recovered_by_brute_force: recovered.length,
    });
    // The scan saw the data it should: cards were stored (encrypted), events delivered, lines logged.
    expect(dump.find((d) => d.table === 'payment_methods')!.rows.length).toBeGreaterThanOrEqual(3);
    expect(receiver.received.length).toBeGreaterThanOrEqual(8);
    expect(t.logs.length).toBeGreaterThan(answers.length);
    expect(hits).toEqual([]);
  });
});
