import { sql } from 'kysely';
import type { DbHandle } from '../../src/db/client.ts';
import { withTransaction } from '../../src/db/transaction.ts';
import type { ChainLink } from '../../src/modules/audit-logs/audit-chain.ts';
import { listChainLinks } from '../../src/modules/audit-logs/audit-chain.repo.ts';

type Db = DbHandle['db'];

/** Every link of an account's chain, expanded from its batches (decision 0157), in seq order. */
export const readLinks = (db: Db, account: string): Promise<ChainLink[]> =>
  listChainLinks(db, account, 0, Number.MAX_SAFE_INTEGER);

/**
 * Batch rows for links as they are: a batch is a run of consecutive places in which each link's
 * prev_hash is the previous link's hash (migration 0079's rule), so every link's values survive.
 * `startAt`: places that start a batch in any case.
 */
export function toBatches(links: ChainLink[], startAt: number[] = []) {
  const batches: Array<{ first_seq: number; prev_hash: string; ids: string[]; hashes: string }> = [];
  let last: ChainLink | undefined;
  for (const link of links) {
    const batch = batches.at(-1);
    if (!batch || !last || link.seq !== last.seq + 1 || link.prev_hash !== last.hash || startAt.includes(link.seq))
      batches.push({ first_seq: link.seq, prev_hash: link.prev_hash, ids: [link.id], hashes: link.hash });
    else {
      batch.ids.push(link.id);
      batch.hashes += link.hash;
    }
    last = link;
  }
  return batches;
}

/**
 * Rewrites an account's links as someone who can switch the batches' triggers off (the tables'
 * owner, a DBA): `edit` gets the links in seq order and returns the links to store (in any order;
 * stored by seq, as batches by `toBatches`).
 */
export async function tamperLinks(
  db: Db,
  account: string,
  edit: (links: ChainLink[]) => ChainLink[],
  startAt: number[] = [],
): Promise<void> {
  const links = edit(await readLinks(db, account)).sort((a, b) => a.seq - b.seq);
  await withTransaction(db, async (tx) => {
    await sql`ALTER TABLE audit_chain_batches DISABLE TRIGGER audit_chain_batches_append_only`.execute(tx);
    await sql`ALTER TABLE audit_chain_batches DISABLE TRIGGER audit_chain_batches_follow`.execute(tx);
    await sql`DELETE FROM audit_chain_batches WHERE merchant_account_id = ${account}`.execute(tx);
    for (const b of toBatches(links, startAt))
      await sql`INSERT INTO audit_chain_batches (merchant_account_id, first_seq, prev_hash, audit_log_ids, hashes)
        VALUES (${account}, ${b.first_seq}, decode(${b.prev_hash}, 'hex'), ${`{${b.ids.join(',')}}`}::uuid[],
          decode(${b.hashes}, 'hex'))`.execute(tx);
    await sql`ALTER TABLE audit_chain_batches ENABLE TRIGGER audit_chain_batches_follow`.execute(tx);
    await sql`ALTER TABLE audit_chain_batches ENABLE TRIGGER audit_chain_batches_append_only`.execute(tx);
  });
}
