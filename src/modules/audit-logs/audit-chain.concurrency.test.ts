import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, usesPostgres, type TestApp } from '../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../test/helpers/factories.ts';
import { type Executor, withTransaction } from '../../db/transaction.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { readLinks } from '../../../test/helpers/audit-chain.ts';
import { listChainEntries } from './audit-chain.repo.ts';
import { verifyChain } from './audit-chain.service.ts';
import { recordSystemAudit } from './audit-logs.service.ts';
import { AuditSealer } from './audit-sealer.ts';

/**
 * Many writers append to one account's log while sealers link it (decision 0145): on PostgreSQL
 * each writer has its own connection and a second app plays a second server process, so writes,
 * commits and sealings truly overlap; PGlite runs them one after the other.
 */
const WRITERS = usesPostgres() ? 20 : 4;
const WRITES = usesPostgres() ? 50 : 10;

let t: TestApp;
let peer: TestApp | null = null;
beforeAll(async () => {
  t = await buildTestApp({ DATABASE_POOL_SIZE: String(WRITERS + 4) });
  if (usesPostgres()) peer = await buildTestApp({ DATABASE_POOL_SIZE: String(WRITERS + 4) }, { peerOf: t });
}, 60_000);
afterAll(async () => {
  await peer?.close();
  await t.close();
});

/** Seals over and over with two sealers of each process (periodic and waiting ones) until `done`. */
async function racingSealers(done: Promise<unknown>): Promise<void> {
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  const apps = peer ? [t, peer] : [t];
  await Promise.all(
    apps.flatMap((app) =>
      [new AuditSealer(app.deps.db, { batch: 7 }), new AuditSealer(app.deps.db)].map(async (sealer) => {
        while (!finished) {
          await sealer.sealNow();
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      }),
    ),
  );
}

async function expectOneUnbrokenChain(account: string, entries: number): Promise<void> {
  await t.deps.auditSealer.sealNow();
  const counts = await sql<{ n: number; links: number; seqs: number; queued: number }>`
    SELECT (SELECT count(*)::int FROM audit_logs WHERE merchant_account_id = ${account}) AS n,
      (SELECT count(*)::int FROM audit_chain_batches b, unnest(b.audit_log_ids) WHERE b.merchant_account_id = ${account}) AS links,
      (SELECT count(DISTINCT b.first_seq + t.k)::int FROM audit_chain_batches b, unnest(b.audit_log_ids) WITH ORDINALITY AS t(id, k)
        WHERE b.merchant_account_id = ${account}) AS seqs,
      (SELECT count(*)::int FROM audit_chain_pending WHERE merchant_account_id = ${account}) AS queued`.execute(
    t.deps.db,
  );
  expect(counts.rows[0]).toEqual({ n: entries, links: entries, seqs: entries, queued: 0 });
  expect(await verifyChain(t.deps.db, account)).toMatchObject({ entries, broken: null, last: { seq: entries } });
}

describe('happy', () => {
  it(`keeps one unbroken chain under ${WRITERS} concurrent writers × ${WRITES} audited API writes, sealers racing`, {
    timeout: 180_000,
  }, async () => {
    const account = await createMerchantAccount(t.deps);
    const writes = Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        // Half the writers go through the second process, when there is one.
        const app = peer && w % 2 ? peer : t;
        for (let i = 0; i < WRITES; i++) {
          const res = await app.request({
            method: 'POST',
            url: '/buyers',
            merchantAccountId: account,
            payload: { display_name: `w${w}-${i}` },
          });
          expect(res.statusCode, res.body).toBe(201);
        }
      }),
    );
    await Promise.all([writes, racingSealers(writes)]);
    await expectOneUnbrokenChain(account, WRITERS * WRITES);
  });

  it('keeps one chain when transactions hold their entry open while others seal, some rolling back', {
    timeout: 120_000,
  }, async () => {
    const account = await createMerchantAccount(t.deps);
    const actor = { name: 'System (test)', jobName: 'test', jobId: uuidv7() };
    let kept = 0;
    const writes = Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        for (let i = 0; i < 5; i++) {
          const rollBack = (w + i) % 4 === 0;
          await withTransaction(t.deps.db, async (tx) => {
            await recordSystemAudit(tx, account, actor, 'updated', { type: 'buyer', id: `${w}`, name: `${w}-${i}` });
            await sql`SELECT pg_sleep(0.002)`.execute(tx);
            if (rollBack) throw new Error('rolled back');
          }).catch((error: Error) => {
            if (error.message !== 'rolled back') throw error;
          });
          if (!rollBack) kept++;
        }
      }),
    );
    await Promise.all([writes, racingSealers(writes)]);
    await expectOneUnbrokenChain(account, kept);
  });

  it.skipIf(!usesPostgres())(
    'links an entry whose transaction stays open while later ones are sealed, after them, once it commits',
    { timeout: 60_000 },
    async () => {
      const account = await createMerchantAccount(t.deps);
      const actor = { name: 'System (test)', jobName: 'test', jobId: uuidv7() };
      const write = (tx: Parameters<typeof recordSystemAudit>[0], name: string) =>
        recordSystemAudit(tx, account, actor, 'updated', { type: 'buyer', id: 'b', name });
      let commit!: () => void;
      const gate = new Promise<void>((resolve) => {
        commit = resolve;
      });
      let written!: () => void;
      const entryWritten = new Promise<void>((resolve) => {
        written = resolve;
      });
      const late = withTransaction(t.deps.db, async (tx) => {
        await write(tx, 'late');
        written();
        await gate;
      });
      await entryWritten;
      // The others begin a few milliseconds later (created_at has millisecond precision).
      await new Promise((resolve) => setTimeout(resolve, 5));
      for (const name of ['one', 'two']) await withTransaction(t.deps.db, (tx) => write(tx, name));
      // Two processes seal while the late entry is written but not committed: it is not theirs to see.
      await Promise.all([t.deps.auditSealer.sealNow(), peer!.deps.auditSealer.sealNow()]);
      expect((await listChainEntries(t.deps.db, account, 0, 10)).map((e) => e.resource_name)).toEqual(['one', 'two']);
      commit();
      await late;
      await peer!.deps.auditSealer.sealNow();
      const entries = await listChainEntries(t.deps.db, account, 0, 10);
      expect(entries.map((e) => [e.seq, e.resource_name])).toEqual([
        [1, 'one'],
        [2, 'two'],
        [3, 'late'],
      ]);
      // Its created_at is the earliest (its transaction began first): the chain's order is the sealing's.
      expect(Number(entries[2]!.created_us)).toBeLessThan(Number(entries[0]!.created_us));
      expect((await verifyChain(t.deps.db, account)).broken).toBeNull();
    },
  );
});

describe('errors', () => {
  /** Three sealed entries of a new account, and a batch row for the place after them (valid or not). */
  async function sealedThree() {
    const account = await createMerchantAccount(t.deps);
    const actor = { name: 'System (test)', jobName: 'test', jobId: uuidv7() };
    for (let i = 0; i < 3; i++)
      await withTransaction(t.deps.db, (tx) =>
        recordSystemAudit(tx, account, actor, 'updated', { type: 'buyer', id: 'b', name: `${i}` }),
      );
    await t.deps.auditSealer.sealNow();
    const links = await readLinks(t.deps.db, account);
    const insert = (db: Executor, firstSeq: number, prev: string) =>
      sql`INSERT INTO audit_chain_batches (merchant_account_id, first_seq, prev_hash, audit_log_ids, hashes)
        VALUES (${account}, ${firstSeq}, decode(${prev}, 'hex'), ${`{${uuidv7()}}`}::uuid[], sha256('x'::bytea))`.execute(
        db,
      );
    return { account, links, insert };
  }

  it('refuses a batch that overlaps the chain, leaves a gap or starts from another hash (SV004)', async () => {
    const { account, links, insert } = await sealedThree();
    expect(links.map((l) => l.seq)).toEqual([1, 2, 3]);
    await expect(insert(t.deps.db, 2, links[0]!.hash)).rejects.toThrow(`a batch of ${account} must start at seq 4`);
    await expect(insert(t.deps.db, 3, links[1]!.hash)).rejects.toThrow('must start at seq 4');
    await expect(insert(t.deps.db, 5, links[2]!.hash)).rejects.toThrow('must start at seq 4');
    await expect(insert(t.deps.db, 4, links[1]!.hash)).rejects.toThrow('must start at seq 4');
    // The same first place twice: the second follows nothing any more.
    await insert(t.deps.db, 4, links[2]!.hash);
    await expect(insert(t.deps.db, 4, links[2]!.hash)).rejects.toThrow('must start at seq 5');
  });

  it.skipIf(!usesPostgres())(
    'of two writers inserting the next batch at once without the lock, the second fails on the key: no fork',
    { timeout: 30_000 },
    async () => {
      const { account, links, insert } = await sealedThree();
      let commit!: () => void;
      const gate = new Promise<void>((resolve) => {
        commit = resolve;
      });
      let inserted!: () => void;
      const first = new Promise<void>((resolve) => {
        inserted = resolve;
      });
      const a = withTransaction(t.deps.db, async (tx) => {
        await insert(tx, 4, links[2]!.hash);
        inserted();
        await gate;
      });
      await first;
      // Its trigger sees only committed batches, so it passes; the key then waits for the first.
      const b = withTransaction(t.deps.db, (tx) => insert(tx, 4, links[2]!.hash));
      b.catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 100));
      commit();
      await a;
      await expect(b).rejects.toThrow(/duplicate|audit_chain_batches_pkey|already exists/);
      const rows = await sql<{ n: number }>`SELECT count(*)::int AS n FROM audit_chain_batches
        WHERE merchant_account_id = ${account} AND first_seq = 4`.execute(t.deps.db);
      expect(rows.rows[0]!.n).toBe(1);
    },
  );
});
