import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, usesPostgres, type TestApp } from '../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../test/helpers/factories.ts';
import { withTransaction } from '../../db/transaction.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { verifyChain } from './audit-chain.service.ts';
import { recordSystemAudit } from './audit-logs.service.ts';

/**
 * Many writers append to one account's chain at once (decision 0141): on PostgreSQL each has its
 * own connection, so their transactions truly overlap; PGlite runs them one after the other.
 */
const WRITERS = usesPostgres() ? 20 : 4;
const WRITES = usesPostgres() ? 50 : 10;

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ DATABASE_POOL_SIZE: String(WRITERS + 2) });
});
afterAll(async () => t.close());

async function expectOneUnbrokenChain(account: string, entries: number): Promise<void> {
  const seqs = await sql<{ seq: number; n: number }>`
    SELECT count(*)::int AS n, count(DISTINCT seq)::int AS seq FROM audit_logs WHERE merchant_account_id = ${account}`.execute(
    t.deps.db,
  );
  expect(seqs.rows[0]).toEqual({ n: entries, seq: entries });
  expect(await verifyChain(t.deps.db, account)).toMatchObject({
    entries,
    broken: null,
    last: { seq: entries },
  });
}

describe('happy', () => {
  it(`keeps one unbroken chain under ${WRITERS} concurrent writers × ${WRITES} audited API writes`, {
    timeout: 120_000,
  }, async () => {
    const account = await createMerchantAccount(t.deps);
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        for (let i = 0; i < WRITES; i++) {
          const res = await t.request({
            method: 'POST',
            url: '/buyers',
            merchantAccountId: account,
            payload: { display_name: `w${w}-${i}` },
          });
          expect(res.statusCode, res.body).toBe(201);
        }
      }),
    );
    await expectOneUnbrokenChain(account, WRITERS * WRITES);
  });

  it('keeps one chain when transactions hold their append while others wait, some rolling back', {
    timeout: 120_000,
  }, async () => {
    const account = await createMerchantAccount(t.deps);
    const actor = { name: 'System (test)', jobName: 'test', jobId: uuidv7() };
    let kept = 0;
    await Promise.all(
      Array.from({ length: WRITERS }, async (_, w) => {
        for (let i = 0; i < 5; i++) {
          const rollBack = (w + i) % 4 === 0;
          await withTransaction(t.deps.db, async (tx) => {
            await recordSystemAudit(tx, account, actor, 'updated', { type: 'buyer', id: `${w}`, name: `${w}-${i}` });
            // The append's place is taken until commit: the others wait here, in the lock.
            await sql`SELECT pg_sleep(0.002)`.execute(tx);
            if (rollBack) throw new Error('rolled back');
          }).catch((error: Error) => {
            if (error.message !== 'rolled back') throw error;
          });
          if (!rollBack) kept++;
        }
      }),
    );
    await expectOneUnbrokenChain(account, kept);
  });
});
