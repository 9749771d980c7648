import type { Executor } from '../../db/transaction.ts';
import type { Anchor } from './audit-anchors.ts';
import { ChainChecker, hex, type BrokenLink, type ChainEntry } from './audit-chain.ts';
import { ChainReader } from './audit-chain.reader.ts';
import * as repo from './audit-chain.repo.ts';

/** What `svc audit verify` found for one merchant account's chain. */
export interface ChainReport {
  merchantAccountId: string;
  entries: number;
  /** The last entry that checked out: its place and hash (seq 0 for an empty chain). */
  last: { seq: number; hash: string };
  /** Anchors of this account that were checked against the chain. */
  anchorsChecked: number;
  broken: BrokenLink | null;
}

/** Entries read per query: large enough that the round trips do not dominate, small enough for memory. */
const PAGE = 5000;

/**
 * How long an entry may stay queued, unlinked, before a verification calls it `unsealed`: far
 * beyond the sealer's second, so only a sealer that has stopped (or a transaction that stayed open
 * that long and just committed, with verify run without sealing first) shows.
 */
export const UNSEALED_AFTER_S = 300;

/** An anchored place the chain must still hold with the anchored hash. */
function checkAnchor(checker: ChainChecker, e: ChainEntry, anchor: Anchor): void {
  if (e.hash !== anchor.hash)
    checker.fail({
      kind: 'anchor_mismatch',
      seq: e.seq,
      id: e.id,
      detail: `the anchor of ${anchor.anchored_at} says seq ${anchor.seq} has hash ${anchor.hash}: the chain was rewritten at or before seq ${anchor.seq}`,
    });
}

type Head = { seq: number; hash: Uint8Array } | undefined;

/** The anchors beyond the last entry, and the head row read before the first, once every entry checked out. */
function endLink(last: { seq: number; hash: string }, head: Head, end: number, anchors: Anchor[]): BrokenLink | null {
  const missing = (detail: string): BrokenLink => ({ kind: 'missing', seq: last.seq + 1, id: null, detail });
  const beyond = anchors.find((a) => a.seq > last.seq);
  if (beyond)
    return missing(
      `the anchor of ${beyond.anchored_at} holds seq ${beyond.seq}, the chain ends at seq ${last.seq}: entries were removed from its end`,
    );
  if (end > last.seq)
    return missing(`the head says seq ${end}, the chain ends at seq ${last.seq}: entries were removed from its end`);
  if (!head && last.seq > 0)
    return { kind: 'head_mismatch', seq: last.seq, id: null, detail: 'the head row is missing' };
  if (head && hex(head.hash) !== last.hash)
    return {
      kind: 'head_mismatch',
      seq: last.seq,
      id: null,
      detail: `the head row's hash for seq ${head.seq} is not the entry's`,
    };
  return null;
}

/** An entry with no link: removed from the sealer's queue, or queued too long (no sealer running). */
function unsealedLink(entry: repo.UnlinkedEntry, end: number): BrokenLink {
  const written = entry.created_at.toISOString();
  return {
    kind: 'unsealed',
    seq: end + 1,
    id: entry.id,
    detail: entry.queued
      ? `the entry of ${written} is still waiting to be linked into the chain (more than ${UNSEALED_AFTER_S} s): no sealer has run`
      : `the entry of ${written} is in no link and not queued for one: it was inserted with the queue trigger off, or its queue row was removed`,
  };
}

/**
 * Recomputes one account's chain from its first link, in seq order, page by page, up to the head
 * read first (entries linked meanwhile are left for the next run), and stops at the first broken
 * link. `anchors` (in seq order) must each still be in the chain. Then every entry of the account
 * must have a link, or be queued for one for less than UNSEALED_AFTER_S (seal first, with
 * `AuditSealer.sealNow`, for a verdict on everything committed so far).
 */
export async function verifyChain(
  db: Executor,
  merchantAccountId: string,
  anchors: Anchor[] = [],
  pageSize = PAGE,
): Promise<ChainReport> {
  const head = await repo.findChainHead(db, merchantAccountId);
  // Without a head row, the links there are (which the end check then reports).
  const end = head?.seq ?? (await repo.maxChainSeq(db, merchantAccountId));
  const checker = new ChainChecker();
  const entries = new ChainReader(db, merchantAccountId, pageSize);
  let next = 0;
  let anchorsChecked = 0;
  // Pages of whole batches (first places after `after`, up to `after` + pageSize), each batch read
  // once; places beyond the head read first are left for the next run.
  const read = (after: number) => {
    const page = repo
      .listBatchLinks(db, merchantAccountId, after, Math.min(after + pageSize, end))
      .then((links) => entries.resolve(links.filter((l) => l.seq <= end)));
    // Handled where it is awaited; until then a failure must not count as unhandled.
    page.catch(() => undefined);
    return page;
  };
  // The next page is read while this one is checked (on PostgreSQL the server works meanwhile).
  let after = 0;
  let pending: Promise<ChainEntry[]> = end > 0 ? read(0) : Promise.resolve([]);
  try {
    while (after < end && !checker.broken) {
      const page = await pending;
      after = Math.min(after + pageSize, end);
      pending = after < end ? read(after) : Promise.resolve([]);
      for (const e of page) {
        if (!checker.check(e)) break;
        while (next < anchors.length && anchors[next]!.seq <= e.seq) {
          const anchor = anchors[next++]!;
          anchorsChecked++;
          if (anchor.seq === e.seq) checkAnchor(checker, e, anchor);
        }
        if (checker.broken) break;
      }
    }
    if (!checker.broken) {
      const link = endLink(checker.last, head, end, anchors.slice(next));
      if (link) checker.fail(link);
    }
    if (!checker.broken) {
      // The entries no link claimed: linked since the head was read, queued, or never to be linked.
      const unclaimed = await entries.unclaimed();
      const orphan =
        unclaimed?.length === 0
          ? undefined
          : await repo.firstUnlinkedEntry(db, merchantAccountId, UNSEALED_AFTER_S, unclaimed, end);
      if (orphan) checker.fail(unsealedLink(orphan, end));
    }
    const twice = checker.broken;
    if (twice?.kind === 'linked_twice' && twice.id) {
      const first = await repo.findLinkedSeq(db, merchantAccountId, twice.id);
      if (first !== null && first < twice.seq)
        twice.detail = `the entry is linked a second time (seq ${first} holds it already): an entry is linked once`;
    }
  } finally {
    // A read started for nothing is still awaited: no query outlives the verification.
    await pending.catch(() => undefined);
  }
  return {
    merchantAccountId,
    entries: checker.entries,
    last: checker.last,
    anchorsChecked,
    broken: checker.broken,
  };
}

/** Every account's chain (or one), each with its anchors. */
export async function verifyAuditChains(
  db: Executor,
  options: { merchantAccountId?: string | undefined; anchors?: Map<string, Anchor[]> | undefined } = {},
): Promise<ChainReport[]> {
  const accounts = options.merchantAccountId
    ? [options.merchantAccountId]
    : [...new Set([...(await repo.listChainAccounts(db)), ...(options.anchors?.keys() ?? [])])].sort();
  const reports: ChainReport[] = [];
  for (const account of accounts) reports.push(await verifyChain(db, account, options.anchors?.get(account) ?? []));
  return reports;
}

/** Every account's chain head, as anchors stamped `now`. */
export async function chainHeadAnchors(db: Executor, now: Date): Promise<Anchor[]> {
  const heads = await repo.listChainHeads(db);
  return heads.map((h) => ({
    merchant_account_id: h.merchant_account_id,
    seq: h.seq,
    hash: hex(h.hash),
    anchored_at: now.toISOString(),
  }));
}
