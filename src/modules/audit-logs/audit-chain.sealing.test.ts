import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../test/helpers/factories.ts';
import { auditCommand } from '../../cli/audit.ts';
import { withTransaction } from '../../db/transaction.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { listChainEntries } from './audit-chain.repo.ts';
import { verifyChain } from './audit-chain.service.ts';
import { AuditSealer } from './audit-sealer.ts';

/** How committed entries get linked (decision 0145): by whom, in which order, and what shows when they are not. */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
  // This file seals on its own terms: the process's periodic sealer would race the counts below.
  t.deps.auditSealer.stop();
});
afterAll(async () => t.close());

/** Entries written in one statement, each `[name, created_at]`. */
async function insertEntries(account: string, entries: Array<[string, string]>): Promise<void> {
  await sql`INSERT INTO audit_logs (merchant_account_id, id, action, resource_type, resource_id, resource_name, user_name, created_at)
    SELECT ${account}, gen_random_uuid(), 'updated', 'buyer', x.name, x.name, 'System (test)', x.at::timestamptz
    FROM json_to_recordset(${JSON.stringify(entries.map(([name, at]) => ({ name, at })))}::json) AS x(name text, at text)`.execute(
    t.deps.db,
  );
}

const names = async (account: string) =>
  (await listChainEntries(t.deps.db, account, 0, 1000)).map((e) => [e.seq, e.resource_name]);

describe('happy', () => {
  it('links queued entries in (created_at, id) order, in batches, and the chain verifies', async () => {
    const account = await createMerchantAccount(t.deps);
    await insertEntries(account, [
      ['third', '2026-03-01T00:00:03Z'],
      ['first', '2026-03-01T00:00:01Z'],
      ['second', '2026-03-01T00:00:02Z'],
    ]);
    await insertEntries(
      account,
      Array.from({ length: 7 }, (_, i): [string, string] => [`later-${i}`, `2026-03-02T00:00:0${i}Z`]),
    );
    // Only this account's entries are queued in this file's database (accounts are sealed one after another).
    expect(await new AuditSealer(t.deps.db, { batch: 3 }).sealNow()).toBe(10);
    expect((await names(account)).slice(0, 4)).toEqual([
      [1, 'first'],
      [2, 'second'],
      [3, 'third'],
      [4, 'later-0'],
    ]);
    expect(await verifyChain(t.deps.db, account)).toMatchObject({ entries: 10, broken: null, last: { seq: 10 } });
    // One row per account and sealing transaction (decision 0157), not one per entry.
    const batches = await sql<{ first_seq: string; n: number }>`SELECT first_seq, cardinality(audit_log_ids) AS n
      FROM audit_chain_batches WHERE merchant_account_id = ${account} ORDER BY first_seq`.execute(t.deps.db);
    expect(batches.rows.map((r) => [Number(r.first_seq), r.n])).toEqual([
      [1, 3],
      [4, 3],
      [7, 3],
      [10, 1],
    ]);
    const queued = await sql<{ n: number }>`SELECT count(*)::int AS n FROM audit_chain_pending`.execute(t.deps.db);
    expect(queued.rows[0]!.n).toBe(0);
  });

  it('links an entry that commits after later ones were linked at the next place, whatever its created_at', async () => {
    const account = await createMerchantAccount(t.deps);
    await insertEntries(account, [['sealed', '2026-04-01T00:00:10Z']]);
    await t.deps.auditSealer.sealNow();
    // As a transaction that began (and stamped its entry) before the first and committed after its sealing.
    await insertEntries(account, [['late', '2026-04-01T00:00:00Z']]);
    await t.deps.auditSealer.sealNow();
    expect(await names(account)).toEqual([
      [1, 'sealed'],
      [2, 'late'],
    ]);
    expect((await verifyChain(t.deps.db, account)).broken).toBeNull();
  });

  it('verifies a chain whose ids run against its order, page by page (entries matched to links by id)', async () => {
    const account = await createMerchantAccount(t.deps);
    // Ids descending while created_at ascends: every link's entry is the last one read so far.
    await sql`INSERT INTO audit_logs (merchant_account_id, id, action, resource_type, resource_id, resource_name, user_name, created_at)
      SELECT ${account}, ('00000000-0000-7000-8000-' || lpad(to_hex(100 - g), 12, '0'))::uuid, 'updated', 'buyer',
        g::text, 'n' || g, 'System (test)', timestamptz '2026-06-01T00:00:00Z' + g * interval '1 second'
      FROM generate_series(1, 11) AS g`.execute(t.deps.db);
    await t.deps.auditSealer.sealNow();
    for (const pageSize of [2, 3, 5000])
      expect(await verifyChain(t.deps.db, account, [], pageSize)).toMatchObject({ entries: 11, broken: null });
  });

  it('links what is queued when a sealer closes, and svc audit verify seals before it checks', async () => {
    const account = await createMerchantAccount(t.deps);
    await insertEntries(account, [['before close', new Date().toISOString()]]);
    // Vacuuming its queue as on PGlite, each time it links something.
    await new AuditSealer(t.deps.db, { vacuumQueueMs: 0 }).close();
    expect(await names(account)).toEqual([[1, 'before close']]);
    await insertEntries(account, [['before verify', new Date().toISOString()]]);
    const out: string[] = [];
    expect(await auditCommand(t.deps, ['verify', '--merchant-account', account], (l) => void out.push(l))).toBe(0);
    expect(out[0]).toMatch(new RegExp(`^${account}: ok, 2 entries, head seq 2 `));
  });
});

describe('errors', () => {
  it('names an entry queued for longer than the sealer ever takes: unsealed', async () => {
    const account = await createMerchantAccount(t.deps);
    await insertEntries(account, [['linked', '2026-05-01T00:00:00Z']]);
    await t.deps.auditSealer.sealNow();
    const stale = new Date(Date.now() - 3600_000).toISOString();
    await insertEntries(account, [['waiting', stale]]);
    const { broken } = await verifyChain(t.deps.db, account);
    expect(broken).toMatchObject({ kind: 'unsealed', seq: 2 });
    expect(broken!.detail).toContain('still waiting to be linked');
    // `--no-seal` reports it as it is; the default seals it first.
    const out: string[] = [];
    const cli = (...args: string[]) =>
      auditCommand(t.deps, ['verify', '--merchant-account', account, ...args], (l) => void out.push(l));
    expect(await cli('--no-seal')).toBe(1);
    expect(out[0]).toContain('unsealed');
    expect(await cli()).toBe(0);
    expect(await names(account)).toEqual([
      [1, 'linked'],
      [2, 'waiting'],
    ]);
  });

  it('names an entry with no link and no queue row (inserted with the trigger off, or its row removed): unsealed', async () => {
    const account = await createMerchantAccount(t.deps);
    await insertEntries(account, [['linked', '2026-05-01T00:00:00Z']]);
    await t.deps.auditSealer.sealNow();
    const id = uuidv7();
    await withTransaction(t.deps.db, async (tx) => {
      await sql`INSERT INTO audit_logs (merchant_account_id, id, action, resource_type, resource_id, resource_name, user_name)
        VALUES (${account}, ${id}, 'updated', 'buyer', 'b', 'hidden', 'someone')`.execute(tx);
      await sql`DELETE FROM audit_chain_pending WHERE merchant_account_id = ${account} AND audit_log_id = ${id}`.execute(
        tx,
      );
    });
    await t.deps.auditSealer.sealNow();
    const { broken } = await verifyChain(t.deps.db, account);
    expect(broken).toMatchObject({ kind: 'unsealed', seq: 2, id });
    expect(broken!.detail).toContain('not queued');
  });
});
