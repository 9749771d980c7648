import type { Deps } from '../../context.ts';
import type { Executor } from '../../db/transaction.ts';
import { BlocklistMatcher, type BlocklistFacts, type BlocklistMatch } from './blocklist-matcher.ts';
import * as repo from './blocklist-entries.repo.ts';

export type { BlocklistFacts, BlocklistMatch } from './blocklist-matcher.ts';

/**
 * The merchant account's compiled blocklist, from the process's cache (decision 0135): loaded once
 * (one range read of the primary key), forgotten when any process writes the account's entries
 * (change feed), and rebuilt when its first entry expires. `db` loads on a miss: the request's
 * transaction when there is one (PGlite has one session, so the pool would wait for it), else the pool.
 */
export async function blocklistOf(db: Executor, deps: Deps, merchantAccountId: string): Promise<BlocklistMatcher> {
  const cache = deps.readCaches.blocklists;
  const load = async () =>
    new BlocklistMatcher(await repo.loadLiveEntries(db, merchantAccountId, new Date()), Date.now());
  let matcher = (await cache.get(merchantAccountId, load, db)) as unknown as BlocklistMatcher;
  if (matcher.validUntil <= Date.now()) {
    cache.invalidate(merchantAccountId);
    matcher = (await cache.get(merchantAccountId, load, db)) as unknown as BlocklistMatcher;
  }
  return matcher;
}

/** The live entry the transaction's facts hit first, or null: no database round trip once the cache is warm. */
export async function checkBlocklist(
  db: Executor,
  deps: Deps,
  merchantAccountId: string,
  facts: BlocklistFacts,
): Promise<BlocklistMatch | null> {
  return (await blocklistOf(db, deps, merchantAccountId)).match(facts);
}
