/**
 * `node --import tsx bench/audit-chain.ts`: the audit log's hash chain (decision 0141), in process,
 * on an in-memory PGlite (or on PostgreSQL with DATABASE_URL, in a fresh schema dropped at the end).
 * 1. Generates AUDIT_BENCH_ENTRIES (default 200000) entries of one account through the append
 *    trigger in one statement, then verifies the chain as `svc audit verify` does: entries/s.
 * 2. The cost of an audited write: AUDIT_BENCH_WRITES (default 2000) transactions, one after the
 *    other, each writing one entry (BEGIN, insert, COMMIT), and on PostgreSQL the same spread over
 *    AUDIT_BENCH_WRITERS (default 16) concurrent writers on one account; then again with the chain
 *    switched off (its triggers disabled, its columns nullable, its unique index dropped), as before
 *    migration 0069.
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
const actor = { name: 'System (bench)', jobName: 'bench', jobId: uuidv7() };
const resource = { type: 'buyer', id: 'b-1', name: 'Bench buyer' };

try {
  const big = await createMerchantAccount(runtime.deps);
  let started = performance.now();
  await sql`INSERT INTO audit_logs (merchant_account_id, id, action, resource_type, resource_id, resource_name, user_name, created_at)
    SELECT ${big}, gen_random_uuid(), 'updated', 'transaction', g::text, 'tx ' || g, 'bulk', now() - g * interval '1 second'
    FROM generate_series(1, ${ENTRIES}::int) AS g`.execute(db);
  const generated = (performance.now() - started) / 1000;
  console.log(
    `generated ${ENTRIES} entries in one statement: ${generated.toFixed(1)} s (${Math.round(ENTRIES / generated)}/s)`,
  );
  started = performance.now();
  const report = await verifyChain(db, big);
  const verified = (performance.now() - started) / 1000;
  if (report.broken || report.entries !== ENTRIES) throw new Error(`verification failed: ${JSON.stringify(report)}`);
  console.log(
    `verified ${report.entries} entries: ${verified.toFixed(2)} s (${Math.round(report.entries / verified)}/s)`,
  );

  const write = (account: string) =>
    withTransaction(db, (tx) => recordSystemAudit(tx, account, actor, 'updated', resource));
  async function appendCost(label: string): Promise<void> {
    const account = await createMerchantAccount(runtime.deps);
    for (let i = 0; i < 100; i++) await write(account);
    let t0 = performance.now();
    for (let i = 0; i < WRITES; i++) await write(account);
    const serial = ((performance.now() - t0) * 1000) / WRITES;
    let line = `${label}: ${serial.toFixed(0)} µs per audited transaction, one writer`;
    if (url) {
      t0 = performance.now();
      const per = Math.ceil(WRITES / WRITERS);
      await Promise.all(
        Array.from({ length: WRITERS }, async () => {
          for (let i = 0; i < per; i++) await write(account);
        }),
      );
      const rate = (per * WRITERS) / ((performance.now() - t0) / 1000);
      line += `; ${WRITERS} writers on one account: ${Math.round(rate)} transactions/s`;
    }
    console.log(line);
  }
  await appendCost('with the chain');
  await sql`ALTER TABLE audit_logs DISABLE TRIGGER audit_logs_chain`.execute(db);
  await sql`ALTER TABLE audit_logs DISABLE TRIGGER audit_logs_heads`.execute(db);
  await sql`ALTER TABLE audit_logs ALTER COLUMN seq DROP NOT NULL, ALTER COLUMN prev_hash DROP NOT NULL, ALTER COLUMN hash DROP NOT NULL`.execute(
    db,
  );
  await sql`DROP INDEX audit_logs_seq_key`.execute(db);
  await appendCost('without it');
} finally {
  await runtime.close();
  if (admin && schema) {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}
