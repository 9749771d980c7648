import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../test/helpers/factories.ts';
import { withTransaction } from '../../db/transaction.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { entryHash } from './audit-chain.ts';
import { chainHeadAnchors, verifyChain } from './audit-chain.service.ts';
import { listChainEntries } from './audit-chain.repo.ts';
import { recordSystemAudit } from './audit-logs.service.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

/** A merchant account created through the API, renamed `renames` times: 1 + renames audited writes, sealed. */
async function auditedAccount(renames = 5): Promise<string> {
  const id = `chain-${uuidv7().slice(-12)}`;
  const created = await t.request({ method: 'POST', url: '/merchant-accounts', payload: { id, display_name: 'A' } });
  expect(created.statusCode, created.body).toBe(201);
  for (let i = 0; i < renames; i++) {
    const res = await t.request({ method: 'PUT', url: `/merchant-accounts/${id}`, payload: { display_name: `n${i}` } });
    expect(res.statusCode, res.body).toBe(200);
  }
  await t.deps.auditSealer.sealNow();
  return id;
}

const idAt = async (account: string, seq: number) =>
  (
    await t.deps.db
      .selectFrom('audit_chain_links')
      .select('audit_log_id')
      .where('merchant_account_id', '=', account)
      .where('seq', '=', seq)
      .executeTakeFirstOrThrow()
  ).audit_log_id;

/** Runs `statement` as someone who can bypass the append-only triggers (the tables' owner, a DBA). */
async function tamper(statement: ReturnType<typeof sql>): Promise<void> {
  await withTransaction(t.deps.db, async (tx) => {
    await sql`ALTER TABLE audit_logs DISABLE TRIGGER audit_logs_append_only`.execute(tx);
    await sql`ALTER TABLE audit_chain_links DISABLE TRIGGER audit_chain_links_append_only`.execute(tx);
    await statement.execute(tx);
    await sql`ALTER TABLE audit_chain_links ENABLE TRIGGER audit_chain_links_append_only`.execute(tx);
    await sql`ALTER TABLE audit_logs ENABLE TRIGGER audit_logs_append_only`.execute(tx);
  });
}

/** The link at `seq` and its entry, for a statement on either. */
const at = (account: string, seq: number) =>
  sql`(SELECT audit_log_id FROM audit_chain_links WHERE merchant_account_id = ${account} AND seq = ${seq})`;

describe('happy', () => {
  it('chains every audited write of an account, in order, and verifies it', async () => {
    const account = await auditedAccount(5);
    const entries = await listChainEntries(t.deps.db, account, 0, 100);
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(entries[0]!.prev_hash).toBe('0'.repeat(64));
    for (let i = 1; i < entries.length; i++) expect(entries[i]!.prev_hash).toBe(entries[i - 1]!.hash);
    // The database's hash is the verifier's: one encoding on both sides.
    for (const e of entries) expect(entryHash(e.prev_hash, e)).toBe(e.hash);
    const report = await verifyChain(t.deps.db, account);
    expect(report).toMatchObject({ entries: 6, broken: null, last: { seq: 6, hash: entries[5]!.hash } });
  });

  it('hashes an entry to the same bytes on PGlite and PostgreSQL (a fixed vector)', async () => {
    const account = await createMerchantAccount(t.deps, { id: 'chain-vector-account' });
    await sql`INSERT INTO audit_logs (merchant_account_id, id, action, resource_type, resource_id, resource_name,
        user_id, user_name, user_email_address, user_is_staff, operation_id, request_id, created_at)
      VALUES (${account}, '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', 'updated', 'buyer', 'b-1', 'Zoë « Ünïcode » 東京',
        NULL, 'API key test', 'zoe@example.com', true, 'updateBuyer', NULL, '2026-01-02T03:04:05.678Z')`.execute(
      t.deps.db,
    );
    await t.deps.auditSealer.sealNow();
    const [entry] = await listChainEntries(t.deps.db, account, 0, 10);
    expect(entry!.created_us).toBe('1767323045678000');
    expect(entry!.hash).toBe('1538a16e3dce47cc58dd9822dc4b4f1ca87b94fc3c6adebab4d3d435d754ab2d');
    expect(entryHash(entry!.prev_hash, entry!)).toBe(entry!.hash);
  });

  it('rolls an append back with the change it records: no entry, nothing queued, the next write takes the place', async () => {
    const account = await auditedAccount(1);
    const system = { name: 'System (test)', jobName: 'test', jobId: uuidv7() };
    await expect(
      withTransaction(t.deps.db, async (tx) => {
        await recordSystemAudit(tx, account, system, 'updated', { type: 'buyer', id: 'b', name: 'rolled back' });
        throw new Error('the change fails after its audit entry');
      }),
    ).rejects.toThrow('the change fails');
    const traces = await sql<{ n: number }>`SELECT
        (SELECT count(*)::int FROM audit_logs WHERE merchant_account_id = ${account} AND resource_name = 'rolled back')
      + (SELECT count(*)::int FROM audit_chain_pending WHERE merchant_account_id = ${account}) AS n`.execute(t.deps.db);
    expect(traces.rows[0]!.n).toBe(0);
    await withTransaction(t.deps.db, (tx) =>
      recordSystemAudit(tx, account, system, 'updated', { type: 'buyer', id: 'b', name: 'kept' }),
    );
    await t.deps.auditSealer.sealNow();
    const entries = await listChainEntries(t.deps.db, account, 0, 100);
    expect(entries.map((e) => [e.seq, e.resource_name])).toEqual([
      [1, 'A'],
      [2, 'n0'],
      [3, 'kept'],
    ]);
    expect((await verifyChain(t.deps.db, account)).broken).toBeNull();
  });

  it('pages through a chain longer than a page', async () => {
    const account = await auditedAccount(6);
    expect(await verifyChain(t.deps.db, account, [], 2)).toMatchObject({ entries: 7, broken: null });
  });
});

describe('errors', () => {
  it('finds a changed entry: content_changed at its seq', async () => {
    const account = await auditedAccount();
    await tamper(
      sql`UPDATE audit_logs SET resource_name = 'innocent' WHERE merchant_account_id = ${account} AND id = ${at(account, 3)}`,
    );
    const { broken } = await verifyChain(t.deps.db, account);
    expect(broken).toMatchObject({ kind: 'content_changed', seq: 3, id: await idAt(account, 3) });
  });

  it('finds a removed entry and its link: missing at its seq, naming the next one present', async () => {
    const account = await auditedAccount();
    const third = await idAt(account, 3);
    await tamper(sql`DELETE FROM audit_chain_links WHERE merchant_account_id = ${account} AND seq = 3`);
    await tamper(sql`DELETE FROM audit_logs WHERE merchant_account_id = ${account} AND id = ${third}`);
    const { broken } = await verifyChain(t.deps.db, account);
    expect(broken).toMatchObject({ kind: 'missing', seq: 3, id: await idAt(account, 4) });
    expect(broken!.detail).toContain('entries 3 are missing');
  });

  it('finds a removed entry whose link remains: missing at its seq, naming it', async () => {
    const account = await auditedAccount();
    const third = await idAt(account, 3);
    await tamper(sql`DELETE FROM audit_logs WHERE merchant_account_id = ${account} AND id = ${third}`);
    const { broken } = await verifyChain(t.deps.db, account);
    expect(broken).toMatchObject({ kind: 'missing', seq: 3, id: third });
    expect(broken!.detail).toContain('its link remains');
  });

  it('finds entries removed from the end by the head row', async () => {
    const account = await auditedAccount();
    await tamper(sql`DELETE FROM audit_logs WHERE merchant_account_id = ${account}
      AND id IN (SELECT audit_log_id FROM audit_chain_links WHERE merchant_account_id = ${account} AND seq >= 5)`);
    await tamper(sql`DELETE FROM audit_chain_links WHERE merchant_account_id = ${account} AND seq >= 5`);
    expect((await verifyChain(t.deps.db, account)).broken).toMatchObject({ kind: 'missing', seq: 5, id: null });
  });

  it('finds two entries swapped: reordered, naming where the entry was appended', async () => {
    const account = await auditedAccount();
    const [third, fourth] = [await idAt(account, 3), await idAt(account, 4)];
    await tamper(sql`UPDATE audit_chain_links SET seq = -1 WHERE merchant_account_id = ${account} AND seq = 3`);
    await tamper(sql`UPDATE audit_chain_links SET seq = 3 WHERE merchant_account_id = ${account} AND seq = 4`);
    await tamper(sql`UPDATE audit_chain_links SET seq = 4 WHERE merchant_account_id = ${account} AND seq = -1`);
    expect(await idAt(account, 4)).toBe(third);
    const { broken } = await verifyChain(t.deps.db, account);
    expect(broken).toMatchObject({ kind: 'reordered', seq: 3, id: fourth });
    expect(broken!.detail).toBe('the entry was appended at seq 4 and now sits at seq 3');
  });

  it('finds a changed prev_hash: prev_hash_changed at its seq', async () => {
    const account = await auditedAccount();
    await tamper(
      sql`UPDATE audit_chain_links SET prev_hash = sha256('x'::bytea) WHERE merchant_account_id = ${account} AND seq = 4`,
    );
    expect((await verifyChain(t.deps.db, account)).broken).toMatchObject({
      kind: 'prev_hash_changed',
      seq: 4,
      id: await idAt(account, 4),
    });
  });

  it('finds an entry removed and the later ones renumbered: the first moved entry is reordered', async () => {
    const account = await auditedAccount();
    const third = await idAt(account, 3);
    await tamper(sql`DELETE FROM audit_chain_links WHERE merchant_account_id = ${account} AND seq = 3`);
    await tamper(sql`DELETE FROM audit_logs WHERE merchant_account_id = ${account} AND id = ${third}`);
    for (const seq of [4, 5, 6])
      await tamper(
        sql`UPDATE audit_chain_links SET seq = ${seq - 1} WHERE merchant_account_id = ${account} AND seq = ${seq}`,
      );
    const { broken } = await verifyChain(t.deps.db, account);
    expect(broken).toMatchObject({ kind: 'reordered', seq: 3 });
    expect(broken!.detail).toBe('the entry was appended at seq 4 and now sits at seq 3');
  });

  it('finds an entry rewritten with a fresh hash of its own: the next entry is unlinked', async () => {
    const account = await auditedAccount();
    await tamper(
      sql`UPDATE audit_logs SET resource_name = 'innocent' WHERE merchant_account_id = ${account} AND id = ${at(account, 3)}`,
    );
    await tamper(sql`UPDATE audit_chain_links l SET hash = sha256(l.prev_hash || convert_to(svc_audit_canonical(a, l.seq), 'UTF8'))
      FROM audit_logs a WHERE l.merchant_account_id = ${account} AND l.seq = 3
        AND a.merchant_account_id = l.merchant_account_id AND a.id = l.audit_log_id`);
    expect((await verifyChain(t.deps.db, account)).broken).toMatchObject({
      kind: 'unlinked',
      seq: 4,
      id: await idAt(account, 4),
    });
  });

  it('cannot see a chain rewritten with fresh hashes, but its anchor can', async () => {
    const account = await auditedAccount();
    const anchors = await chainHeadAnchors(t.deps.db, new Date());
    const anchor = anchors.find((a) => a.merchant_account_id === account)!;
    expect(anchor).toMatchObject({ seq: 6 });
    // Someone with the database rewrites entry 2 and recomputes every hash after it, and the head.
    await tamper(
      sql`UPDATE audit_logs SET resource_name = 'innocent' WHERE merchant_account_id = ${account} AND id = ${at(account, 2)}`,
    );
    for (let seq = 2; seq <= 6; seq++)
      await tamper(sql`UPDATE audit_chain_links l SET
          prev_hash = (SELECT p.hash FROM audit_chain_links p WHERE p.merchant_account_id = l.merchant_account_id AND p.seq = l.seq - 1),
          hash = sha256((SELECT p.hash FROM audit_chain_links p WHERE p.merchant_account_id = l.merchant_account_id AND p.seq = l.seq - 1)
            || convert_to(svc_audit_canonical(a, l.seq), 'UTF8'))
        FROM audit_logs a
        WHERE l.merchant_account_id = ${account} AND l.seq = ${seq}
          AND a.merchant_account_id = l.merchant_account_id AND a.id = l.audit_log_id`);
    await sql`UPDATE audit_chain_heads SET hash = (SELECT hash FROM audit_chain_links WHERE merchant_account_id = ${account} AND seq = 6)
      WHERE merchant_account_id = ${account}`.execute(t.deps.db);
    expect((await verifyChain(t.deps.db, account)).broken).toBeNull();
    const { broken } = await verifyChain(t.deps.db, account, [anchor]);
    expect(broken).toMatchObject({ kind: 'anchor_mismatch', seq: 6 });
  });

  it('refuses to update, delete or truncate entries or links (both tables are append-only)', async () => {
    const account = await auditedAccount(0);
    for (const [statement, table] of [
      [sql`UPDATE audit_logs SET resource_name = 'x' WHERE merchant_account_id = ${account}`, 'audit_logs'],
      [sql`DELETE FROM audit_logs WHERE merchant_account_id = ${account}`, 'audit_logs'],
      [sql`TRUNCATE audit_logs`, 'audit_logs'],
      [sql`UPDATE audit_chain_links SET seq = 7 WHERE merchant_account_id = ${account}`, 'audit_chain_links'],
      [sql`DELETE FROM audit_chain_links WHERE merchant_account_id = ${account}`, 'audit_chain_links'],
      [sql`TRUNCATE audit_chain_links`, 'audit_chain_links'],
    ] as const)
      await expect(statement.execute(t.deps.db)).rejects.toThrow(`${table} is append-only`);
    expect((await verifyChain(t.deps.db, account)).entries).toBe(1);
  });
});
