/**
 * `node --import tsx bench/audit-chain.ts`: the audit log's hash chain (decisions 0141, 0145), in
 * process, on an in-memory PGlite (or on PostgreSQL with DATABASE_URL, in a fresh schema dropped at
 * the end).
 * 1. Writes AUDIT_BENCH_ENTRIES (default 200000) entries of one account in one statement, links
 *    them (`sealNow`, batches of 5,000): entries/s; then verifies the chain as `svc audit verify`
 *    does: entries/s. Their ids are UUIDv7 as the server makes them, or with AUDIT_BENCH_RANDOM_IDS=1
 *    random (the verifier's fallback: entries looked up by key, audit-chain.reader.ts).
 * 2. The cost of an audited write: AUDIT_BENCH_WRITES (default 2000) transactions, one after the
 *    other, each writing one entry (BEGIN, insert, COMMIT), with the process's sealer running as in
 *    a server; on PostgreSQL also as many spread over AUDIT_BENCH_WRITERS (default 16) concurrent
 *    writers on one account (transactions/s, p50 and p99 of a transaction), and the WAL written per
 *    entry, its sealing included (`walPerEntry`). The same with the chain off (the queue trigger
 *    disabled: nothing is queued or linked), as an audit log without a chain, in interleaved rounds.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { withTransaction } from '../src/db/transaction.ts';
import { createRuntime } from '../src/deps.ts';
import { uuidv7 } from '../src/lib/ids.ts';
import { verifyChain } from '../src/modules/audit-logs/audit-chain.service.ts';
import { recordSystemAudit } from '../src/modules/audit-logs/audit-logs.service.ts';
import { createMerchantAccount } from '../test/helpers/factories.ts';

const ENTRIES = Number(process.env.AUDIT_BENCH_ENTRIES ?? 200_000);
const WRITES = Number(process.env.AUDIT_BENCH_WRITES ?? 2_000);
const WRITERS = Number(process.env.AUDIT_BENCH_WRITERS ?? 16);
const RANDOM_IDS = process.env.AUDIT_BENCH_RANDOM_IDS === '1';
const url = process.env.DATABASE_URL;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-audit-bench-'));
const schema = url ? `audit_bench_${uuidv7().replace(/-/g, '').slice(-12)}` : null;
const admin = url ? new pg.Client({ connectionString: url }) : null;
if (admin && schema) {
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
}
const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...(url ? { DATABASE_URL: url } : {}) });
const runtime = await createRuntime(config, schema ? { schema, poolSize: WRITERS + 2 } : { inMemory: true });
const db = runtime.deps.db;
const sealer = runtime.deps.auditSealer;
const actor = { name: 'System (bench)', jobName: 'bench', jobId: uuidv7() };
const resource = { type: 'buyer', id: 'b-1', name: 'Bench buyer' };
const seconds = (since: number) => (performance.now() - since) / 1000;

async function generateSealVerify(): Promise<void> {
  const big = await createMerchantAccount(runtime.deps);
  let started = performance.now();
  // Ids as the server makes them (UUIDv7: the time first), one a millisecond, or random (RANDOM_IDS).
  const id = RANDOM_IDS
    ? sql`gen_random_uuid()`
    : sql`(lpad(to_hex(1767225600000 + g), 12, '0') || '7000' || '8' || lpad(to_hex(g), 15, '0'))::uuid`;
  await sql`INSERT INTO audit_logs (merchant_account_id, id, action, resource_type, resource_id, resource_name, user_name, created_at)
    SELECT ${big}, ${id}, 'updated', 'transaction', g::text, 'tx ' || g, 'bulk',
      timestamptz '2026-01-01T00:00:00Z' + g * interval '1 millisecond'
    FROM generate_series(1, ${ENTRIES}::int) AS g`.execute(db);
  const generated = seconds(started);
  started = performance.now();
  const sealed = await sealer.sealNow();
  const sealing = seconds(started);
  console.log(
    `wrote ${ENTRIES} entries in one statement: ${generated.toFixed(1)} s (${Math.round(ENTRIES / generated)}/s); ` +
      `linked ${sealed}: ${sealing.toFixed(1)} s (${Math.round(sealed / sealing)}/s)`,
  );
  started = performance.now();
  const report = await verifyChain(db, big);
  const verified = seconds(started);
  if (report.broken || report.entries !== ENTRIES) throw new Error(`verification failed: ${JSON.stringify(report)}`);
  console.log(
    `verified ${report.entries} entries: ${verified.toFixed(2)} s (${Math.round(report.entries / verified)}/s)`,
  );
}

const write = (account: string) =>
  withTransaction(db, (tx) => recordSystemAudit(tx, account, actor, 'updated', resource));

/** The WAL a statement writes in this backend (its functions and triggers included): no other session's. */
async function walOf(statement: ReturnType<typeof sql>): Promise<number> {
  const { rows } = await sql<{ 'QUERY PLAN': unknown }>`EXPLAIN (ANALYZE, WAL, FORMAT JSON) ${statement}`.execute(db);
  const plan = rows[0]!['QUERY PLAN'];
  return Number((typeof plan === 'string' ? JSON.parse(plan) : plan)[0].Plan['WAL Bytes']);
}

/**
 * WAL bytes per audit entry: its insert (one statement, in a function so that the WAL of its
 * triggers is counted) and its share of the sealing, the least of three runs of WRITES. Measured
 * in the writing backend (EXPLAIN's WAL counters), so the other sessions of a shared server do not
 * count; the commit records (one per transaction, about 50 bytes) are not included.
 */
async function walPerEntry(account: string): Promise<string> {
  const runs: Array<{ write: number; seal: number }> = [];
  for (let run = 0; run < 3; run++) {
    await sealer.sealNow();
    let write = 0;
    for (let i = 0; i < WRITES; i++) write += await walOf(sql`SELECT bench_audit_entry(${account}, ${uuidv7()})`);
    const seal = await walOf(sql`SELECT svc_audit_seal(5000, true)`);
    runs.push({ write: write / WRITES, seal: seal / WRITES });
  }
  const best = runs.reduce((a, b) => (a.write + a.seal <= b.write + b.seal ? a : b));
  return `WAL per entry ${(best.write + best.seal).toFixed(0)} bytes (written ${best.write.toFixed(0)}, sealing ${best.seal.toFixed(0)})`;
}

const ROUNDS = 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const quantile = (xs: number[], q: number) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

interface Variant {
  label: string;
  chained: boolean;
  account: string;
  serialUs: number[];
  rates: number[];
  latenciesMs: number[];
}

/** One round of a variant: WRITES / ROUNDS transactions one after the other, then as many spread over WRITERS. */
async function round(v: Variant): Promise<void> {
  const n = Math.ceil(WRITES / ROUNDS);
  let t0 = performance.now();
  for (let i = 0; i < n; i++) await write(v.account);
  v.serialUs.push(((performance.now() - t0) * 1000) / n);
  if (!url) return;
  const per = Math.ceil(n / WRITERS);
  t0 = performance.now();
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      for (let i = 0; i < per; i++) {
        const started = performance.now();
        await write(v.account);
        v.latenciesMs.push(performance.now() - started);
      }
    }),
  );
  v.rates.push((per * WRITERS) / seconds(t0));
}

const toggle = (on: boolean) =>
  sql.raw(`ALTER TABLE audit_logs ${on ? 'ENABLE' : 'DISABLE'} TRIGGER audit_logs_queue`).execute(db);

/**
 * The chain on and off, round after round (ROUNDS each, interleaved: on a shared host the load
 * drifts within a run, and interleaving spreads the drift over both), with this process's sealer
 * running as in a server; medians of the rounds.
 */
async function appendCost(): Promise<void> {
  const variants: Variant[] = [];
  for (const [label, chained] of [
    ['with the chain', true],
    ['without it', false],
  ] as const)
    variants.push({
      label,
      chained,
      account: await createMerchantAccount(runtime.deps),
      serialUs: [],
      rates: [],
      latenciesMs: [],
    });
  for (const v of variants) for (let i = 0; i < 100; i++) await write(v.account);
  for (let r = 0; r < ROUNDS; r++)
    for (const v of variants) {
      await toggle(v.chained);
      await round(v);
    }
  for (const v of variants) {
    await toggle(v.chained);
    let line = `${v.label}: ${median(v.serialUs).toFixed(0)} µs per audited transaction, one writer`;
    if (url) {
      v.latenciesMs.sort((a, b) => a - b);
      const [p50, p99] = [quantile(v.latenciesMs, 0.5), quantile(v.latenciesMs, 0.99)];
      line += `; ${WRITERS} writers on one account: ${Math.round(median(v.rates))} transactions/s (p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms)`;
      sealer.stop();
      line += `; ${await walPerEntry(v.account)}`;
      sealer.start();
    }
    if (v.chained) {
      await sealer.sealNow();
      const report = await verifyChain(db, v.account);
      if (report.broken) throw new Error(`verification failed: ${JSON.stringify(report)}`);
    }
    console.log(line);
  }
}

try {
  if (url)
    await sql`CREATE FUNCTION bench_audit_entry(account text, entry uuid) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO audit_logs (merchant_account_id, id, action, resource_type, resource_id, resource_name, user_name,
          operation_id, request_id)
        VALUES (account, entry, 'updated', 'buyer', 'b-1', 'Bench buyer', 'System (bench)', 'bench', gen_random_uuid()::text);
      END $$`.execute(db);
  await generateSealVerify();
  await appendCost();
} finally {
  await runtime.close();
  if (admin && schema) {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}
