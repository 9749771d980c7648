import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { downloadCsv, records, runReport } from '../../../../test/helpers/reports.ts';
import { card, merchantWithMockCard } from '../../../../test/helpers/transactions.ts';
import { purgeExpiredReportExecutions } from '../report-retention.service.ts';
import { S3ReportStorage, type S3Settings } from './s3-storage.ts';
import { sql } from 'kysely';

/** The S3 backend against s3rver, a local S3-compatible server from npm (signature V4, multipart uploads). */

let server: S3rver;
let dir: string;
let settings: S3Settings;
let t: TestApp;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 's3rver-'));
  server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: dir,
    configureBuckets: [{ name: 'reports', configs: [] }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  settings = {
    bucket: 'reports',
    region: 'us-east-1',
    endpoint,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    prefix: 'exports/',
    forcePathStyle: true,
  };
  t = await buildTestApp({
    REPORTS_STORAGE: 's3',
    REPORTS_S3_BUCKET: 'reports',
    REPORTS_S3_ENDPOINT: endpoint,
    REPORTS_S3_ACCESS_KEY_ID: 'S3RVER',
    REPORTS_S3_SECRET_ACCESS_KEY: 'S3RVER',
    REPORTS_S3_PREFIX: 'exports/',
  });
});
afterAll(async () => {
  await t?.close();
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const sha = (buffer: Buffer) => createHash('sha256').update(buffer).digest('hex');
async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('happy', () => {
  it('stores a stream larger than one part (multipart upload), reads it back, deletes it', async () => {
    const storage = new S3ReportStorage(settings);
    const data = randomBytes(12 * 1024 * 1024);
    const size = await storage.put(
      'm/big.csv.gz',
      Readable.from([data.subarray(0, 7_000_000), data.subarray(7_000_000)]),
    );
    expect(size).toBe(data.length);
    expect(sha(await bytesOf((await storage.get('m/big.csv.gz'))!))).toBe(sha(data));
    await storage.delete('m/big.csv.gz');
    expect(await storage.get('m/big.csv.gz')).toBeNull();
    expect(await storage.get('m/never-written.csv.gz')).toBeNull();
  });

  it("writes an execution's file to the bucket, serves it through the signed URL, purges it", async () => {
    const { merchantAccountId: m } = await merchantWithMockCard(t);
    const paid = await t.request({
      method: 'POST',
      url: '/transactions',
      merchantAccountId: m,
      payload: { amount: 4200, currency: 'EUR', payment_method: card() },
    });
    const { report, execution } = await runReport(t, m, {
      spec: { model: 'transactions', params: { fields: ['id', 'amount'] } },
    });
    expect(execution).toMatchObject({ status: 'succeeded', row_count: 1 });
    const stored = await new S3ReportStorage(settings).get(`${m}/${execution.id}.csv.gz`);
    expect(gunzipSync(await bytesOf(stored!)).toString()).toBe(
      `id,amount,amount_formatted\r\n${paid.json().id},4200,42.00\r\n`,
    );
    expect(records((await downloadCsv(t, m, report.id, execution.id)).rows)).toEqual([
      { id: paid.json().id, amount: '4200', amount_formatted: '42.00' },
    ]);
    await sql`UPDATE report_executions SET created_at = now() - interval '100 days' WHERE id = ${execution.id}`.execute(
      t.deps.db,
    );
    await purgeExpiredReportExecutions(t.deps, new Date());
    expect(await new S3ReportStorage(settings).get(`${m}/${execution.id}.csv.gz`)).toBeNull();
  });
});

describe('errors', () => {
  it('fails the upload, leaving no object, when the stream fails midway', async () => {
    const storage = new S3ReportStorage(settings);
    async function* failing() {
      yield randomBytes(6 * 1024 * 1024);
      throw new Error('the query failed');
    }
    // AWS aborts the multipart upload; s3rver refuses the abort itself, so only the rejection is checked.
    await expect(storage.put('m/broken.csv.gz', Readable.from(failing()))).rejects.toThrow();
    expect(await storage.get('m/broken.csv.gz')).toBeNull();
  });

  it('refuses an unknown access key', async () => {
    const storage = new S3ReportStorage({ ...settings, accessKeyId: 'NOT-S3RVER' });
    await expect(storage.put('m/x.csv.gz', Readable.from([Buffer.from('x')]))).rejects.toThrow();
  });
});

describe('security', () => {
  it('keeps the credentials out of the logs', () => {
    expect(t.logs.join('\n')).not.toContain('S3RVER');
  });
});
