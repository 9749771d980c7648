import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type DbHandle } from '../../db/client.ts';
import { listMigrations, migrate } from '../../db/migrate.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { insertMerchantAccount } from '../merchant-accounts/merchant-accounts.repo.ts';
import { verifyChain } from './audit-chain.service.ts';
import { listChainEntries } from './audit-logs.repo.ts';

/** Migration 0069 on a database that already holds audit entries: they join the chain in (created_at, id) order. */
const url = process.env.TEST_DATABASE_URL;
const schema = `t_${uuidv7().replace(/-/g, '').slice(-16)}`;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-chain-migration-'));
let handle: DbHandle;

beforeAll(async () => {
  if (url) {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
  }
  handle = await openDb(url ? { databaseUrl: url, dataDir, schema } : { databaseUrl: null, dataDir, inMemory: true });
}, 120_000);

afterAll(async () => {
  await handle.close();
  if (url) {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('happy', () => {
  it('chains the entries written before it, per account, in (created_at, id) order', { timeout: 120_000 }, async () => {
    const db = handle.db;
    await migrate(
      db,
      listMigrations().filter((m) => m.version < '0069'),
    );
    const entry = (account: string, id: string, name: string, at: string) =>
      sql`INSERT INTO audit_logs (merchant_account_id, id, action, resource_type, resource_id, resource_name, user_name, created_at)
        VALUES (${account}, ${id}, 'created', 'buyer', ${name}, ${name}, 'API key old', ${at})`.execute(db);
    for (const account of ['old-a', 'old-b']) await insertMerchantAccount(db, { id: account, display_name: account });
    await entry('old-a', '00000000-0000-7000-8000-000000000002', 'second', '2025-05-01T10:00:00.000Z');
    await entry('old-a', '00000000-0000-7000-8000-000000000001', 'first', '2025-05-01T10:00:00.000Z');
    await entry('old-a', '00000000-0000-7000-8000-000000000000', 'third', '2025-05-01T10:00:00.001Z');
    await entry('old-b', '00000000-0000-7000-8000-000000000009', 'only', '2025-05-02T00:00:00.000Z');
    expect(await migrate(db)).toContain('0069_audit_log_chain');

    const a = await listChainEntries(db, 'old-a', 0, 10);
    expect(a.map((e) => [e.seq, e.resource_name])).toEqual([
      [1, 'first'],
      [2, 'second'],
      [3, 'third'],
    ]);
    expect(await verifyChain(db, 'old-a')).toMatchObject({ entries: 3, broken: null });
    expect(await verifyChain(db, 'old-b')).toMatchObject({ entries: 1, broken: null });
    // The trigger goes on from the migrated head.
    await entry('old-a', uuidv7(), 'fourth', '2025-01-01T00:00:00.000Z');
    expect(await verifyChain(db, 'old-a')).toMatchObject({ entries: 4, broken: null, last: { seq: 4 } });
  });
});
