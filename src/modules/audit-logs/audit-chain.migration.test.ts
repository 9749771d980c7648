import { sql } from 'kysely';
import { migrationDatabases } from '../../../test/helpers/migration-database.ts';
import { afterAll, describe, expect, it } from 'vitest';
import type { DbHandle } from '../../db/client.ts';
import { migrate } from '../../db/migrate.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { insertMerchantAccount } from '../merchant-accounts/merchant-accounts.repo.ts';
import { chainHeadAnchors, verifyChain } from './audit-chain.service.ts';
import { listChainEntries } from './audit-chain.repo.ts';
import { AuditSealer } from './audit-sealer.ts';
import { readLinks } from '../../../test/helpers/audit-chain.ts';

/**
 * The chain's migrations on databases that already hold audit entries: 0069 chains the entries
 * written before it, in (created_at, id) order; 0072 moves that chain to audit_chain_links as it is;
 * 0079 moves the links into batch rows (audit_chain_batches) as they are.
 */
const databases = migrationDatabases('chain');
const databaseBefore = databases.before;

afterAll(() => databases.closeAll());

const entry = (db: DbHandle['db'], account: string, id: string, name: string, at: string) =>
  sql`INSERT INTO audit_logs (merchant_account_id, id, action, resource_type, resource_id, resource_name, user_name, created_at)
    VALUES (${account}, ${id}, 'created', 'buyer', ${name}, ${name}, 'API key old', ${at})`.execute(db);

describe('happy', () => {
  it('0069 chains the entries written before it, per account, in (created_at, id) order', {
    timeout: 120_000,
  }, async () => {
    const { db } = await databaseBefore('0069');
    for (const account of ['old-a', 'old-b']) await insertMerchantAccount(db, { id: account, display_name: account });
    await entry(db, 'old-a', '00000000-0000-7000-8000-000000000002', 'second', '2025-05-01T10:00:00.000Z');
    await entry(db, 'old-a', '00000000-0000-7000-8000-000000000001', 'first', '2025-05-01T10:00:00.000Z');
    await entry(db, 'old-a', '00000000-0000-7000-8000-000000000000', 'third', '2025-05-01T10:00:00.001Z');
    await entry(db, 'old-b', '00000000-0000-7000-8000-000000000009', 'only', '2025-05-02T00:00:00.000Z');
    expect(await migrate(db)).toEqual(expect.arrayContaining(['0069_audit_log_chain', '0072_audit_chain_sealer']));

    const a = await listChainEntries(db, 'old-a', 0, 10);
    expect(a.map((e) => [e.seq, e.resource_name])).toEqual([
      [1, 'first'],
      [2, 'second'],
      [3, 'third'],
    ]);
    expect(await verifyChain(db, 'old-a')).toMatchObject({ entries: 3, broken: null });
    expect(await verifyChain(db, 'old-b')).toMatchObject({ entries: 1, broken: null });
    // The sealer goes on from the migrated head.
    await entry(db, 'old-a', uuidv7(), 'fourth', '2025-01-01T00:00:00.000Z');
    await new AuditSealer(db).sealNow();
    expect(await verifyChain(db, 'old-a')).toMatchObject({ entries: 4, broken: null, last: { seq: 4 } });
  });

  it('0072 moves a chain built by the append trigger as it is: same places, same hashes, anchors still hold', {
    timeout: 120_000,
  }, async () => {
    const { db } = await databaseBefore('0072');
    for (const account of ['trig-a', 'trig-b']) await insertMerchantAccount(db, { id: account, display_name: account });
    for (let i = 0; i < 5; i++) await entry(db, 'trig-a', uuidv7(), `a${i}`, `2025-06-01T00:00:0${i}.000Z`);
    await entry(db, 'trig-b', uuidv7(), 'b0', '2025-06-01T00:00:00.000Z');
    const before = await sql<{ merchant_account_id: string; seq: number; id: string; prev: string; hash: string }>`
      SELECT merchant_account_id, seq, id, encode(prev_hash, 'hex') AS prev, encode(hash, 'hex') AS hash
      FROM audit_logs ORDER BY merchant_account_id, seq`.execute(db);
    expect(before.rows).toHaveLength(6);
    const anchors = await chainHeadAnchors(db, new Date());
    expect(anchors.map((x) => [x.merchant_account_id, x.seq])).toEqual([
      ['trig-a', 5],
      ['trig-b', 1],
    ]);

    // The migrations after it run too: 0072 is the first.
    expect((await migrate(db))[0]).toBe('0072_audit_chain_sealer');
    const after = [];
    for (const account of ['trig-a', 'trig-b'])
      for (const l of await readLinks(db, account))
        after.push({ merchant_account_id: account, seq: l.seq, id: l.id, prev: l.prev_hash, hash: l.hash });
    expect(after).toEqual(before.rows.map((r) => ({ ...r, seq: Number(r.seq) })));
    const columns = await sql<{ n: number }>`SELECT count(*)::int AS n FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = 'audit_logs' AND column_name IN ('seq', 'prev_hash', 'hash')`.execute(
      db,
    );
    expect(columns.rows[0]!.n).toBe(0);
    for (const anchor of anchors)
      expect(await verifyChain(db, anchor.merchant_account_id, [anchor])).toMatchObject({
        broken: null,
        anchorsChecked: 1,
      });

    // New entries are queued, not chained, until a sealer links them after the migrated head (one
    // written long ago and still queued shows as unsealed).
    const late = uuidv7();
    await entry(db, 'trig-a', late, 'a5', '2025-06-02T00:00:00.000Z');
    expect(await verifyChain(db, 'trig-a')).toMatchObject({
      entries: 5,
      last: { seq: 5 },
      broken: { kind: 'unsealed', seq: 6, id: late },
    });
    expect(await new AuditSealer(db).sealNow()).toBe(1);
    const report = await verifyChain(db, 'trig-a', anchors.slice(0, 1));
    expect(report).toMatchObject({ entries: 6, broken: null, last: { seq: 6 } });
  });

  it('0079 moves the links into batch rows as they are: same places, ids and hashes, anchors still hold', {
    timeout: 120_000,
  }, async () => {
    const { db } = await databaseBefore('0079');
    const accounts = ['links-a', 'links-b', 'links-c'];
    for (const account of accounts) await insertMerchantAccount(db, { id: account, display_name: account });
    // 1,005 entries of a (two sealings: 1,000 and 5), 3 of b, 4 of c, linked by 0072's sealer.
    // Written `day` days before the test (so in order), a millisecond apart.
    const many = (account: string, n: number, day: number) =>
      sql`INSERT INTO audit_logs (merchant_account_id, id, action, resource_type, resource_id, resource_name, user_name, created_at)
        SELECT ${account}, gen_random_uuid(), 'updated', 'buyer', g::text, 'e' || g, 'API key old',
          now() - ${day} * interval '1 day' + g * interval '1 millisecond'
        FROM generate_series(1, ${n}::int) AS g`.execute(db);
    await many('links-a', 1000, 9);
    await sql`SELECT svc_audit_seal(5000, true)`.execute(db);
    await many('links-a', 5, 8);
    await many('links-b', 3, 8);
    await many('links-c', 4, 8);
    await sql`SELECT svc_audit_seal(5000, true)`.execute(db);
    // c's link at seq 3 has its prev_hash changed (a tampered chain moves as it is, and still shows).
    await sql`ALTER TABLE audit_chain_links DISABLE TRIGGER audit_chain_links_append_only`.execute(db);
    await sql`UPDATE audit_chain_links SET prev_hash = sha256('x'::bytea) WHERE merchant_account_id = 'links-c' AND seq = 3`.execute(
      db,
    );
    await sql`ALTER TABLE audit_chain_links ENABLE TRIGGER audit_chain_links_append_only`.execute(db);
    const before = await sql<{ merchant_account_id: string; seq: string; id: string; prev: string; hash: string }>`
      SELECT merchant_account_id, seq, audit_log_id AS id, encode(prev_hash, 'hex') AS prev, encode(hash, 'hex') AS hash
      FROM audit_chain_links ORDER BY merchant_account_id, seq`.execute(db);
    expect(before.rows).toHaveLength(1012);
    const anchors = await chainHeadAnchors(db, new Date());
    // One entry queued across the migration (written by the old code, linked by the new).
    await many('links-b', 1, 0);

    expect((await migrate(db))[0]).toBe('0079_audit_chain_batches');
    const after = [];
    for (const account of accounts)
      for (const l of await readLinks(db, account))
        after.push({ merchant_account_id: account, seq: String(l.seq), id: l.id, prev: l.prev_hash, hash: l.hash });
    expect(after).toEqual(before.rows.map((r) => ({ ...r, seq: String(r.seq) })));
    // Runs of consecutive places that chain, cut every 1,000: a 1-1000, 1001-1005; b 1-3; c 1-2, 3-4.
    const batches = await sql<{ merchant_account_id: string; first_seq: string; n: number }>`
      SELECT merchant_account_id, first_seq, cardinality(audit_log_ids) AS n FROM audit_chain_batches
      ORDER BY merchant_account_id, first_seq`.execute(db);
    expect(batches.rows.map((b) => [b.merchant_account_id, Number(b.first_seq), b.n])).toEqual([
      ['links-a', 1, 1000],
      ['links-a', 1001, 5],
      ['links-b', 1, 3],
      ['links-c', 1, 2],
      ['links-c', 3, 2],
    ]);
    const tables = await sql<{ n: number }>`SELECT count(*)::int AS n FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_name = 'audit_chain_links'`.execute(db);
    expect(tables.rows[0]!.n).toBe(0);
    for (const anchor of anchors.filter((a) => a.merchant_account_id !== 'links-c'))
      expect(await verifyChain(db, anchor.merchant_account_id, [anchor])).toMatchObject({
        broken: null,
        anchorsChecked: 1,
      });
    expect((await verifyChain(db, 'links-c')).broken).toMatchObject({ kind: 'prev_hash_changed', seq: 3 });

    // The new sealer goes on from the migrated batches: b's queued entry at seq 4, in one batch row.
    expect(await new AuditSealer(db).sealNow()).toBe(1);
    expect(
      await verifyChain(
        db,
        'links-b',
        anchors.filter((a) => a.merchant_account_id === 'links-b'),
      ),
    ).toMatchObject({
      entries: 4,
      broken: null,
      last: { seq: 4 },
    });
    await many('links-a', 2, 0);
    expect(await new AuditSealer(db).sealNow()).toBe(2);
    expect(await verifyChain(db, 'links-a')).toMatchObject({ entries: 1007, broken: null });
    const rows = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM audit_chain_batches WHERE merchant_account_id = 'links-a'`.execute(db);
    expect(rows.rows[0]!.n).toBe(3);
  });
});
