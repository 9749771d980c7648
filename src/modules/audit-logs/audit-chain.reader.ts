import type { Executor } from '../../db/transaction.ts';
import type { ChainEntry, ChainLink } from './audit-chain.ts';
import { findEntries, joinLink, listEntriesBetween } from './audit-chain.repo.ts';

/** Entries held read ahead of their links at most; past it the reader looks entries up by key. */
const READ_AHEAD = 50_000;

/**
 * Gives the verifier each link of a chain with its entry (decision 0145). The entries are read in
 * id order, as ranges of the primary key beside the links' ranges in seq order, and matched here:
 * ids (UUIDv7) grow with time and entries are linked in (created_at, id) order, so the two orders
 * nearly agree, and an entry read before its link (one that committed late) waits in `buffer`. A
 * range costs far less than a lookup per entry, which cost the verification on PGlite a third of
 * its speed. Each page of links reads the ids up to its highest, in two reads at most; an id not
 * found (not read yet, so far from time order, or passed: a second link of an entry, or an entry
 * that is gone) is looked up by key. When most of a page is (ids written by SQL, random), or past
 * READ_AHEAD entries held, the reader looks every entry up by key. It also finds an entry linked
 * twice (decision 0157), keeping only the ids claimed out of range order (all of them once it looks
 * every entry up by key).
 */
export class ChainReader {
  private readonly buffer = new Map<string, ChainEntry>();
  /** Every entry with an id up to this one was read (ids compare as their lowercase text, as PostgreSQL orders uuids). */
  private lastId: string | null = null;
  /** Entries are looked up by key from here on (the read-ahead grew too large). */
  private probing = false;
  /**
   * Ids a link claimed while beyond `lastId` (looked up by key): a range that reaches one leaves
   * it out, as claimed. Once probing, every id claimed beyond `lastId`.
   */
  private readonly claimedAhead = new Set<string>();
  /** The ids read but not claimed when probing began (the buffer's, whose entries are dropped). */
  private readonly heldAtStop = new Set<string>();

  constructor(
    private readonly db: Executor,
    private readonly merchantAccountId: string,
    private readonly pageSize: number,
  ) {}

  /**
   * Each link with its entry, or marked `absent` when the log has no entry with its id, and
   * `linkedBefore` when an earlier link claimed the entry (decision 0157: nothing in the database
   * stops a second link of an entry any more). An entry read by range is claimed once, from the
   * buffer; a link that misses it and finds the entry by key names an entry claimed before when
   * its id was read already (up to `lastId`, and not held), or was claimed ahead.
   */
  async resolve(links: ChainLink[]): Promise<ChainEntry[]> {
    let needed = '';
    for (const link of links) if (link.id > needed) needed = link.id;
    for (let reads = 0; reads < 2 && !this.probing && (this.lastId === null || this.lastId < needed); reads++) {
      if (this.buffer.size >= READ_AHEAD) {
        this.stopReading();
        break;
      }
      const page = await listEntriesBetween(this.db, this.merchantAccountId, this.lastId, needed, this.pageSize);
      for (const e of page) if (!this.claimedAhead.delete(e.id)) this.buffer.set(e.id, e);
      this.lastId = page.length < this.pageSize ? needed : page.at(-1)!.id;
    }
    const fromBuffer: Array<ChainEntry | undefined> = [];
    const missed: string[] = [];
    for (const link of links) {
      const entry = this.buffer.get(link.id);
      fromBuffer.push(entry);
      if (entry) this.buffer.delete(link.id);
      else missed.push(link.id);
    }
    const byKey = new Map<string, ChainEntry>();
    if (missed.length > 0)
      for (const e of await findEntries(this.db, this.merchantAccountId, missed)) byKey.set(e.id, e);
    const resolved = links.map((link, i) => {
      const buffered = fromBuffer[i];
      if (buffered) return joinLink(link, buffered, this.merchantAccountId);
      const entry = byKey.get(link.id);
      const joined = joinLink(link, entry, this.merchantAccountId);
      if (entry && this.claimByKey(link.id)) joined.linkedBefore = true;
      return joined;
    });
    // Most of a page out of id order: the ids are not in time order, and reading ranges is wasted.
    if (missed.length * 2 > links.length) this.stopReading();
    return resolved;
  }

  /** Claims an entry found by key; true when an earlier link claimed it already. */
  private claimByKey(id: string): boolean {
    if (this.lastId !== null && id <= this.lastId) return !this.heldAtStop.delete(id);
    if (this.claimedAhead.has(id)) return true;
    this.claimedAhead.add(id);
    return false;
  }

  private stopReading(): void {
    this.probing = true;
    for (const id of this.buffer.keys()) this.heldAtStop.add(id);
    this.buffer.clear();
  }

  /**
   * The ids of the entries no link has claimed: those read ahead and the rest of the log's (some
   * may be linked after the chain's end was read). Null when they are too many to list: the
   * caller then asks the database for the first unlinked one.
   */
  async unclaimed(): Promise<string[] | null> {
    if (this.probing) return null;
    const rest = await listEntriesBetween(this.db, this.merchantAccountId, this.lastId, null, READ_AHEAD + 1);
    for (const e of rest) if (!this.claimedAhead.has(e.id)) this.buffer.set(e.id, e);
    return rest.length > READ_AHEAD || this.buffer.size > READ_AHEAD ? null : [...this.buffer.keys()];
  }
}
