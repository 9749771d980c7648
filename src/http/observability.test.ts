import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../test/helpers/build-test-app.ts';
import { createTransaction, merchantWithMockCard } from '../../test/helpers/transactions.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t.close();
});

interface Timing {
  db: { dur: number; statements: number };
  connector?: { dur: number; calls: number };
  app: number;
}

/** Parses our Server-Timing value (db, optional connector, app). */
function parseTiming(header: string | string[] | number | undefined): Timing {
  expect(typeof header).toBe('string');
  const entries = new Map((header as string).split(', ').map((part) => [part.split(';')[0]!, part] as const));
  const dur = (name: string) => Number(/;dur=(\d+\.\d{2})/.exec(entries.get(name) ?? '')?.[1] ?? NaN);
  const count = (name: string) => Number(/desc="(\d+) /.exec(entries.get(name) ?? '')?.[1] ?? NaN);
  return {
    db: { dur: dur('db'), statements: count('db') },
    ...(entries.has('connector') ? { connector: { dur: dur('connector'), calls: count('connector') } } : {}),
    app: dur('app'),
  };
}

function accessLine(requestId: string): Record<string, unknown> {
  const line = t.logs.find((l) => l.includes('request completed') && l.includes(`"reqId":"${requestId}"`));
  expect(line, `access line of ${requestId}`).toBeDefined();
  return JSON.parse(line!);
}

describe('happy', () => {
  it('gives the database time of a read, and no connector entry', async () => {
    const res = await t.request({
      method: 'GET',
      url: '/merchant-accounts',
      headers: { 'x-request-id': 'timing-read-1' },
    });
    expect(res.statusCode).toBe(200);
    const timing = parseTiming(res.headers['server-timing']);
    expect(timing.db.statements).toBeGreaterThanOrEqual(1);
    expect(timing.db.dur).toBeGreaterThan(0);
    expect(timing.connector).toBeUndefined();
    expect(timing.app).toBeGreaterThanOrEqual(timing.db.dur);
  });

  it('gives the connector time of a payment apart from the database time', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const res = await createTransaction(t, m, {}, { 'x-request-id': 'timing-payment-1' });
    expect(res.statusCode).toBe(201);
    const timing = parseTiming(res.headers['server-timing']);
    expect(timing.connector).toEqual({ dur: expect.any(Number), calls: 1 });
    expect(timing.connector!.dur).toBeGreaterThanOrEqual(0);
    // The statements after the body was read (the payment's own) are counted, not only authentication's.
    expect(timing.db.statements).toBeGreaterThanOrEqual(4);
    expect(timing.app).toBeGreaterThanOrEqual(timing.db.dur + timing.connector!.dur);

    const line = accessLine('timing-payment-1');
    expect(line).toMatchObject({
      reqId: 'timing-payment-1',
      operationId: 'createTransaction',
      merchantAccountId: m,
      status: 201,
      method: 'POST',
      route: '/transactions',
    });
    expect(line.durationMs).toBeGreaterThan(0);
    expect(line.dbMs).toBeGreaterThan(0);
    expect(line.connectorMs).toBeGreaterThanOrEqual(0);
  });

  it('writes one JSON access line per request with operationId, merchant account, status, duration and request id', async () => {
    await t.request({ method: 'GET', url: '/merchant-accounts/default', headers: { 'x-request-id': 'access-2' } });
    const lines = t.logs.filter((l) => l.includes('"reqId":"access-2"') && l.includes('request completed'));
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!);
    expect(line).toMatchObject({
      level: 30,
      reqId: 'access-2',
      operationId: 'getMerchantAccount',
      merchantAccountId: 'default',
      status: 200,
      msg: 'request completed',
    });
    expect(typeof line.durationMs).toBe('number');
    expect(typeof line.dbMs).toBe('number');
    expect(line).not.toHaveProperty('connectorMs');
    // Routes outside defineRoute carry their operationId too.
    await t.request({ method: 'GET', url: '/readyz', token: null, headers: { 'x-request-id': 'access-3' } });
    expect(accessLine('access-3')).toMatchObject({ operationId: 'getReadiness', status: 200 });
  });
});

describe('errors', () => {
  it('carries Server-Timing on errors, unknown paths and validation failures too', async () => {
    const unauthorized = await t.request({ method: 'GET', url: '/merchant-accounts', token: null });
    expect(unauthorized.statusCode).toBe(401);
    expect(parseTiming(unauthorized.headers['server-timing']).app).toBeGreaterThan(0);
    const missing = await t.request({ method: 'GET', url: '/no-such-thing' });
    expect(missing.statusCode).toBe(404);
    expect(parseTiming(missing.headers['server-timing']).db.statements).toBeGreaterThanOrEqual(0);
    const invalid = await t.request({
      method: 'POST',
      url: '/transactions',
      payload: { amount: 'x' },
      headers: { 'x-request-id': 'access-422' },
    });
    expect(invalid.statusCode).toBe(422);
    expect(invalid.headers['server-timing']).toMatch(/^db;dur=\d+\.\d{2};desc="\d+ statements", app;dur=\d+\.\d{2}$/);
    expect(accessLine('access-422')).toMatchObject({ operationId: 'createTransaction', status: 422 });
  });
});

describe('security', () => {
  it('keeps card data out of the access line and the timing header', async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const res = await createTransaction(t, m, {}, { 'x-request-id': 'access-card' });
    expect(String(res.headers['server-timing'])).not.toContain('4111');
    expect(JSON.stringify(accessLine('access-card'))).not.toContain('4111111111111111');
  });
});
