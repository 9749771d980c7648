import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../../test/helpers/factories.ts';
import { withTransaction, type Executor } from '../../db/transaction.ts';
import { verifyChain } from './audit-chain.service.ts';
import { AuditSealer } from './audit-sealer.ts';

/**
 * The sealer reads each queued entry by audit_logs' primary key (migration 0082), whatever the
 * statistics: before, a plan chosen without them read every entry of the account to seal a few,
 * each call costing more as the log grew (on PGlite, holding the only session meanwhile).
 */
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
  // This file seals on its own terms: the process's periodic sealer would seal the entries first.
  t.deps.auditSealer.stop();
});
afterAll(async () => t.close());

const insertEntries = (account: string, n: number) =>
  sql`INSERT INTO audit_logs (merchant_account_id, id, action, resource_type, resource_id, resource_name, user_id, user_name)
    SELECT ${account}, gen_random_uuid(), 'updated', 'buyer', 'b-' || i, 'b-' || i, 'key-1', 'API key (test)'
    FROM generate_series(1, ${n}) AS i`.execute(t.deps.db);

/** Index entries of audit_logs read so far by this backend (its statistics not yet flushed included). */
const auditIndexReads = async (tx: Executor) =>
  Number(
    (
      await sql<{ n: string }>`SELECT coalesce(sum(pg_stat_get_xact_tuples_returned(indexrelid)), 0)::text AS n
        FROM pg_index WHERE indrelid = 'audit_logs'::regclass`.execute(tx)
    ).rows[0]!.n,
  );

describe('happy', () => {
  it('links 5 queued entries of an account with 3,000 linked ones by reading 5 of them', {
    timeout: 60_000,
  }, async () => {
    const account = await createMerchantAccount(t.deps);
    await insertEntries(account, 3000);
    expect(await new AuditSealer(t.deps.db).sealNow()).toBe(3000);
    await insertEntries(account, 5);

    const { sealed, reads } = await withTransaction(t.deps.db, async (tx) => {
      const before = await auditIndexReads(tx);
      const result = await sql<{ sealed: number }>`SELECT svc_audit_seal_account(${account}, 200) AS sealed`.execute(
        tx,
      );
      return { sealed: Number(result.rows[0]!.sealed), reads: (await auditIndexReads(tx)) - before };
    });
    expect(sealed).toBe(5);
    // One primary-key probe an entry (the plan before read all 3,005 through audit_logs_user_idx).
    expect(reads).toBe(5);
    expect(await verifyChain(t.deps.db, account)).toMatchObject({ entries: 3005, broken: null, last: { seq: 3005 } });
  });
});
