/**
 * Memory and speed of report generation over a large table: `npm run bench:reports`.
 *
 * Seeds BENCH_REPORT_ROWS transactions (default 1,000,000) for one merchant account in a throw-away
 * schema of the PostgreSQL at BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test)
 * with one INSERT ... SELECT generate_series (buyers with billing details, metadata, card snapshots,
 * so every column has something to render and mask), then runs one execution of a `transactions`
 * report with every column (the `generate-report` job's code, in this process) and samples the
 * process's resident set size every 20 ms. Prints the rows, the time, rows/s, the file size and the
 * peak RSS growth over the RSS measured right before the run (Linux: the kernel's high-water mark,
 * reset just before), the peak heap growth, and the heap left after a full GC (what was retained).
 * V8 lets collectable garbage accumulate up to an adaptive limit before a full collection, so the
 * growth depends on the heap limit: run it also with NODE_OPTIONS=--max-old-space-size=128 to see
 * the figure of a worker given a small heap.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { createRuntime } from '../src/deps.ts';
import { uuidv7 } from '../src/lib/ids.ts';
import { insertMerchantAccount } from '../src/modules/merchant-accounts/merchant-accounts.repo.ts';
import { runReportExecution } from '../src/modules/reports/report-runner.service.ts';

/** Peak resident set size of this process (Linux VmHWM), in bytes. */
function vmHwm(): number {
  const line = fs
    .readFileSync('/proc/self/status', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'));
  return line ? Number(line.replace(/\D+/g, '')) * 1024 : 0;
}

const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const rows = Number(process.env.BENCH_REPORT_ROWS ?? 1_000_000);
const schema = `bench_reports_${uuidv7().replace(/-/g, '').slice(-12)}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-reports-'));
const admin = new pg.Client({ connectionString: url });
await admin.connect();
await admin.query(`CREATE SCHEMA ${schema}`);
const config = loadConfig({ DATA_DIR: dataDir, DATABASE_URL: url, LOG_LEVEL: 'silent' });
const runtime = await createRuntime(config, { schema, poolSize: 4 });
const { deps } = runtime;
const log = { info: () => undefined, warn: (o: object) => console.warn(o), error: (o: object) => console.error(o) };

try {
  const m = 'bench-reports';
  await insertMerchantAccount(deps.db, { id: m, display_name: 'Bench' });
  let started = Date.now();
  await sql`
    INSERT INTO transactions (merchant_account_id, id, status, intent, intent_outcome, currency, country, amount, authorized_amount, capture_limit, captured_amount,
      method, payment_method, payment_service, buyer, metadata, external_identifier, payment_source, merchant_initiated, is_subsequent_payment,
      authorized_at, captured_at, created_at, updated_at)
    SELECT ${m}, gen_random_uuid(), 'capture_succeeded', 'capture', 'succeeded', (ARRAY['USD','EUR','GBP','JPY'])[1 + g % 4], 'GB', 100 + g % 100000, 100 + g % 100000, 100 + g % 100000, 100 + g % 100000,
      'card', jsonb_build_object('scheme', 'visa', 'bin', '41111111', 'label', lpad((g % 10000)::text, 4, '0')),
      jsonb_build_object('id', gen_random_uuid(), 'payment_service_definition_id', 'mock-card', 'display_name', 'Mock card'),
      jsonb_build_object('billing_details', jsonb_build_object('first_name', 'Ada', 'last_name', 'Lovelace', 'email_address', 'ada' || g || '@example.com', 'phone_number', '+4477009' || lpad((g % 100000)::text, 5, '0'),
        'address', jsonb_build_object('city', 'London', 'postal_code', 'SW1A 1AA', 'country', 'GB', 'line1', g || ' Downing Street'))),
      jsonb_build_object('order', 'o-' || g), CASE WHEN g % 50 = 0 THEN '=cmd|' || g ELSE 'order-' || g END, 'ecommerce', false, false,
      now() - make_interval(secs => g), now() - make_interval(secs => g), now() - make_interval(secs => g), now() - make_interval(secs => g)
    FROM generate_series(1, ${rows}) AS g`.execute(deps.db);
  await sql`ANALYZE transactions`.execute(deps.db);
  console.log(`seeded ${rows.toLocaleString('en')} transactions in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const reportId = uuidv7();
  const executionId = uuidv7();
  const now = new Date();
  await deps.db
    .insertInto('reports')
    .values({
      merchant_account_id: m,
      id: reportId,
      name: 'Bench',
      description: null,
      schedule: 'once',
      schedule_enabled: true,
      schedule_timezone: 'Europe/Paris',
      spec: JSON.stringify({ model: 'transactions', params: {} }),
      creator_id: null,
      creator_display_name: null,
      creator_type: null,
      reveal_pii: false,
      next_execution_at: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  await deps.db
    .insertInto('report_executions')
    .values({
      merchant_account_id: m,
      id: executionId,
      report_id: reportId,
      status: 'pending',
      reference_timestamp: now,
      reference_timezone: 'Europe/Paris',
      file_key: null,
      row_count: null,
      size: null,
      error_code: null,
      error_message: null,
      created_at: now,
      updated_at: now,
    })
    .execute();

  (globalThis as { gc?: () => void }).gc?.();
  // Linux: reset this process's peak RSS (VmHWM) so the peak read after the run is the run's own.
  const canResetPeak = (() => {
    try {
      fs.writeFileSync('/proc/self/clear_refs', '5');
      return true;
    } catch {
      return false;
    }
  })();
  const baseline = process.memoryUsage().rss;
  const heapBaseline = process.memoryUsage().heapUsed;
  let peak = baseline;
  let heapPeak = heapBaseline;
  let ticks = 0;
  const sampler = setInterval(() => {
    const usage = process.memoryUsage();
    peak = Math.max(peak, usage.rss);
    heapPeak = Math.max(heapPeak, usage.heapUsed);
    if (process.env.BENCH_TRACE && ++ticks % 250 === 0)
      console.error(
        `rss ${(usage.rss / 1048576).toFixed(0)} MiB, heap ${(usage.heapUsed / 1048576).toFixed(0)} MiB, external ${(usage.external / 1048576).toFixed(0)} MiB, arrayBuffers ${(usage.arrayBuffers / 1048576).toFixed(0)} MiB`,
      );
  }, 20);
  started = Date.now();
  await runReportExecution(deps, m, executionId, { jobName: 'bench', jobId: uuidv7(), willRetry: false, log });
  const seconds = (Date.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss, canResetPeak ? vmHwm() : 0);
  (globalThis as { gc?: () => void }).gc?.();
  const heapAfterGc = process.memoryUsage().heapUsed;
  const execution = await deps.db
    .selectFrom('report_executions')
    .selectAll()
    .where('id', '=', executionId)
    .executeTakeFirstOrThrow();
  if (execution.status !== 'succeeded') throw new Error(`execution ${execution.status}: ${execution.error_message}`);
  const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
  console.log('| rows | seconds | rows/s | gzip file | RSS before | peak RSS growth | peak heap growth |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|');
  console.log(
    `| ${Number(execution.row_count).toLocaleString('en')} | ${seconds.toFixed(1)} | ${Math.round(Number(execution.row_count) / seconds).toLocaleString('en')} | ${mb(Number(execution.size))} MiB | ${mb(baseline)} MiB | ${mb(peak - baseline)} MiB | ${mb(heapPeak - heapBaseline)} MiB |`,
  );
  console.log(
    `heap after the run and a full GC: ${mb(heapAfterGc - heapBaseline)} MiB above the baseline (nothing retained)`,
  );
} finally {
  await runtime.close();
  await admin.query(`DROP SCHEMA ${schema} CASCADE`);
  await admin.end();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
