import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../test/helpers/factories.ts';
import { withTransaction } from '../../db/transaction.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { tamperLinks, readLinks } from '../../../test/helpers/audit-chain.ts';
import { entryHash, type ChainLink } from './audit-chain.ts';
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
  (await readLinks(t.deps.db, account)).find((l) => l.seq === seq)!.id;

/** Runs `statement` on audit_logs as someone who can bypass its append-only trigger (the table's owner, a DBA). */
async function tamper(statement: ReturnType<typeof sql>): Promise<void> {
  await withTransaction(t.deps.db, async (tx) => {
    await sql`ALTER TABLE audit_logs DISABLE TRIGGER audit_logs_append_only`.execute(tx);
    await statement.execute(tx);
    await sql`ALTER TABLE audit_logs ENABLE TRIGGER audit_logs_append_only`.execute(tx);
  });
}

/** Rewrites the account's links (its batch rows, decision 0157) as `edit` returns them. */
const tamperWith = (account: string, edit: (links: ChainLink[]) => ChainLink[]) =>
  tamperLinks(t.deps.db, account, edit);

/** The hash of entry `e` (as it now reads) after `prev` at its place. */
const rehash = async (account: string, seq: number, prev: string) => {
  const [e] = await listChainEntries(t.deps.db, account, seq - 1, seq);
  return entryHash(prev, e!);
};

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
      sql`UPDATE audit_logs SET resource_name = 'innocent' WHERE merchant_account_id = ${account} AND id = ${await idAt(account, 3)}`,
    );
    const { broken } = await verifyChain(t.deps.db, account);
    expect(broken).toMatchObject({ kind: 'content_changed', seq: 3, id: await idAt(account, 3) });
  });

  it('finds a removed entry and its link: missing at its seq, naming the next one present', async () => {
    const account = await auditedAccount();
    const third = await idAt(account, 3);
    await tamperWith(account, (links) => links.filter((l) => l.seq !== 3));
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
    const tail = [await idAt(account, 5), await idAt(account, 6)];
    await tamper(
      sql`DELETE FROM audit_logs WHERE merchant_account_id = ${account} AND id = ANY (${`{${tail}}`}::uuid[])`,
    );
    await tamperWith(account, (links) => links.filter((l) => l.seq < 5));
    expect((await verifyChain(t.deps.db, account)).broken).toMatchObject({ kind: 'missing', seq: 5, id: null });
  });

  it('finds two entries swapped: reordered, naming where the entry was appended', async () => {
    const account = await auditedAccount();
    const [third, fourth] = [await idAt(account, 3), await idAt(account, 4)];
    await tamperWith(account, (links) =>
      links.map((l) => (l.seq === 3 ? { ...l, seq: 4 } : l.seq === 4 ? { ...l, seq: 3 } : l)),
    );
    expect(await idAt(account, 4)).toBe(third);
    const { broken } = await verifyChain(t.deps.db, account);
    expect(broken).toMatchObject({ kind: 'reordered', seq: 3, id: fourth });
    expect(broken!.detail).toBe('the entry was appended at seq 4 and now sits at seq 3');
  });

  it('finds a changed prev_hash: prev_hash_changed at its seq', async () => {
    const account = await auditedAccount();
    await tamperWith(account, (links) => links.map((l) => (l.seq === 4 ? { ...l, prev_hash: 'ab'.repeat(32) } : l)));
    expect((await verifyChain(t.deps.db, account)).broken).toMatchObject({
      kind: 'prev_hash_changed',
      seq: 4,
      id: await idAt(account, 4),
    });
  });

  it('finds an entry removed and the later ones renumbered: the first moved entry is reordered', async () => {
    const account = await auditedAccount();
    const third = await idAt(account, 3);
    await tamperWith(account, (links) =>
      links.filter((l) => l.seq !== 3).map((l) => (l.seq > 3 ? { ...l, seq: l.seq - 1 } : l)),
    );
    await tamper(sql`DELETE FROM audit_logs WHERE merchant_account_id = ${account} AND id = ${third}`);
    const { broken } = await verifyChain(t.deps.db, account);
    expect(broken).toMatchObject({ kind: 'reordered', seq: 3 });
    expect(broken!.detail).toBe('the entry was appended at seq 4 and now sits at seq 3');
  });

  it('finds an entry rewritten with a fresh hash of its own: the next entry is unlinked', async () => {
    const account = await auditedAccount();
    await tamper(
      sql`UPDATE audit_logs SET resource_name = 'innocent' WHERE merchant_account_id = ${account} AND id = ${await idAt(account, 3)}`,
    );
    const fresh = await rehash(account, 3, (await readLinks(t.deps.db, account))[2]!.prev_hash);
    await tamperWith(account, (links) => links.map((l) => (l.seq === 3 ? { ...l, hash: fresh } : l)));
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
      sql`UPDATE audit_logs SET resource_name = 'innocent' WHERE merchant_account_id = ${account} AND id = ${await idAt(account, 2)}`,
    );
    const links = await readLinks(t.deps.db, account);
    for (let i = 1; i < links.length; i++) {
      links[i]!.prev_hash = links[i - 1]!.hash;
      links[i]!.hash = await rehash(account, links[i]!.seq, links[i]!.prev_hash);
    }
    await tamperWith(account, () => links);
    await sql`UPDATE audit_chain_heads SET hash = decode(${links[5]!.hash}, 'hex')
      WHERE merchant_account_id = ${account}`.execute(t.deps.db);
    expect((await verifyChain(t.deps.db, account)).broken).toBeNull();
    const { broken } = await verifyChain(t.deps.db, account, [anchor]);
    expect(broken).toMatchObject({ kind: 'anchor_mismatch', seq: 6 });
  });

  it('refuses to update, delete or truncate entries or batches of links (both tables are append-only)', async () => {
    const account = await auditedAccount(0);
    for (const [statement, table] of [
      [sql`UPDATE audit_logs SET resource_name = 'x' WHERE merchant_account_id = ${account}`, 'audit_logs'],
      [sql`DELETE FROM audit_logs WHERE merchant_account_id = ${account}`, 'audit_logs'],
      [sql`TRUNCATE audit_logs`, 'audit_logs'],
      [sql`UPDATE audit_chain_batches SET first_seq = 7 WHERE merchant_account_id = ${account}`, 'audit_chain_batches'],
      [sql`DELETE FROM audit_chain_batches WHERE merchant_account_id = ${account}`, 'audit_chain_batches'],
      [sql`TRUNCATE audit_chain_batches`, 'audit_chain_batches'],
    ] as const)
      await expect(statement.execute(t.deps.db)).rejects.toThrow(`${table} is append-only`);
    expect((await verifyChain(t.deps.db, account)).entries).toBe(1);
  });

  it("finds a hash changed inside a batch row at that entry's seq (decision 0157 keeps a hash per entry)", async () => {
    const account = await auditedAccount();
    const rows = await sql<{ first_seq: string; n: number }>`SELECT first_seq, cardinality(audit_log_ids) AS n
      FROM audit_chain_batches WHERE merchant_account_id = ${account}`.execute(t.deps.db);
    // The six entries were sealed together: one row, no row or index entry per entry.
    expect(rows.rows.map((r) => [Number(r.first_seq), r.n])).toEqual([[1, 6]]);
    await withTransaction(t.deps.db, async (tx) => {
      await sql`ALTER TABLE audit_chain_batches DISABLE TRIGGER audit_chain_batches_append_only`.execute(tx);
      await sql`UPDATE audit_chain_batches SET hashes = overlay(hashes PLACING sha256('x'::bytea) FROM 3 * 32 + 1 FOR 32)
        WHERE merchant_account_id = ${account}`.execute(tx);
      await sql`ALTER TABLE audit_chain_batches ENABLE TRIGGER audit_chain_batches_append_only`.execute(tx);
    });
    const { broken } = await verifyChain(t.deps.db, account);
    expect(broken).toMatchObject({ kind: 'content_changed', seq: 4, id: await idAt(account, 4) });
  });

  it('finds an entry rewritten with its hash inside one batch row: content_changed at the next seq', async () => {
    const account = await auditedAccount();
    await tamper(
      sql`UPDATE audit_logs SET resource_name = 'innocent' WHERE merchant_account_id = ${account} AND id = ${await idAt(account, 3)}`,
    );
    const fresh = await rehash(account, 3, (await readLinks(t.deps.db, account))[2]!.prev_hash);
    await withTransaction(t.deps.db, async (tx) => {
      await sql`ALTER TABLE audit_chain_batches DISABLE TRIGGER audit_chain_batches_append_only`.execute(tx);
      await sql`UPDATE audit_chain_batches SET hashes = overlay(hashes PLACING decode(${fresh}, 'hex') FROM 2 * 32 + 1 FOR 32)
        WHERE merchant_account_id = ${account}`.execute(tx);
      await sql`ALTER TABLE audit_chain_batches ENABLE TRIGGER audit_chain_batches_append_only`.execute(tx);
    });
    // Seq 4's predecessor hash is seq 3's stored one: nothing tells that seq 4 itself is intact.
    expect((await verifyChain(t.deps.db, account)).broken).toMatchObject({
      kind: 'content_changed',
      seq: 4,
      id: await idAt(account, 4),
    });
  });

  it('finds an entry linked a second time, with a valid hash at its second place: linked_twice there', async () => {
    for (const pageSize of [5000, 2]) {
      const account = await auditedAccount(5);
      const links = await readLinks(t.deps.db, account);
      const second = links[1]!;
      // What a sealer that failed to remove a queue row would write: the entry again at seq 7,
      // hashed correctly, and the head moved. The batch continues the chain: no constraint refuses it.
      const [entry] = await listChainEntries(t.deps.db, account, 1, 2);
      const hash = entryHash(links[5]!.hash, entry!, 7);
      await sql`INSERT INTO audit_chain_batches (merchant_account_id, first_seq, prev_hash, audit_log_ids, hashes)
        VALUES (${account}, 7, decode(${links[5]!.hash}, 'hex'), ${`{${second.id}}`}::uuid[], decode(${hash}, 'hex'))`.execute(
        t.deps.db,
      );
      await sql`UPDATE audit_chain_heads SET seq = 7, hash = decode(${hash}, 'hex') WHERE merchant_account_id = ${account}`.execute(
        t.deps.db,
      );
      const { broken } = await verifyChain(t.deps.db, account, [], pageSize);
      expect(broken).toMatchObject({ kind: 'linked_twice', seq: 7, id: second.id });
      expect(broken!.detail).toContain('seq 2 holds it already');
    }
  });

  it('finds an entry linked twice when both links are looked up by key (ids out of time order)', async () => {
    const account = await createMerchantAccount(t.deps);
    // Random ids (entries written by SQL): the reader looks entries up by key.
    await sql`INSERT INTO audit_logs (merchant_account_id, id, action, resource_type, resource_id, resource_name, user_name, created_at)
      SELECT ${account}, gen_random_uuid(), 'updated', 'buyer', g::text, g::text, 'System (test)',
        timestamptz '2026-05-01T00:00:00Z' + g * interval '1 second'
      FROM generate_series(1, 8) AS g`.execute(t.deps.db);
    await t.deps.auditSealer.sealNow();
    const links = await readLinks(t.deps.db, account);
    await tamperWith(account, (all) => all.map((l) => (l.seq === 6 ? { ...l, id: links[2]!.id } : l)));
    // Its hash no longer matches (the place is in it): content_changed; rehashed, linked_twice.
    expect((await verifyChain(t.deps.db, account, [], 2)).broken).toMatchObject({ kind: 'content_changed', seq: 6 });
    const fresh = await rehash(account, 6, links[4]!.hash);
    await tamperWith(account, (all) => all.map((l) => (l.seq === 6 ? { ...l, hash: fresh } : l)));
    for (const pageSize of [5000, 3, 1])
      expect((await verifyChain(t.deps.db, account, [], pageSize)).broken).toMatchObject({
        kind: 'linked_twice',
        seq: 6,
        id: links[2]!.id,
      });
  });
});
