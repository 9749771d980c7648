import type { BlocklistValueType } from './blocklist-values.ts';
import { ipBits, ipHex, parseIpBlock, type IpBlock } from './ip-prefix.ts';
import { NetworkIndex } from './network-index.ts';

/** A live entry as the matcher keeps it: no value (the caller has it), only what a decision names. */
export interface MatchedEntry {
  id: string;
  valueType: BlocklistValueType;
}

/** An entry as loaded: stored (normalized) value, expiry in epoch milliseconds (null: never). */
export interface LoadedEntry {
  id: string;
  value_type: BlocklistValueType;
  value: string;
  expires_at: Date | null;
}

/** What a transaction is checked with; null where it has nothing of that kind. */
export interface BlocklistFacts {
  cardFingerprint: string | null;
  /** The card number's leading digits (up to 8), or its BIN when only that is known. */
  cardDigits: string | null;
  emailAddress: string | null;
  ipAddress: string | null;
  /** Each country of the transaction with where it comes from (`country`, `billing_address.country`). */
  countries: ReadonlyArray<{ field: string; code: string }>;
  buyerExternalIdentifier: string | null;
}

export interface BlocklistMatch extends MatchedEntry {
  /** Which fact matched: `card`, `bin`, `email_address`, `ip_address`, a country's field, `buyer_external_identifier`. */
  field: string;
}

/** BIN ranges of one length, sorted by start, with the running maximum end (and whose it is). */
interface RangeIndex {
  starts: number[];
  maxEnds: number[];
  owners: MatchedEntry[];
}

/**
 * One merchant account's live blocklist, compiled for lookups that cost no scan (decision 0135):
 * hash lookups for exact values; per BIN length a sorted array searched by bisection; CIDR blocks
 * sorted by first address, each with its enclosing block, so an IP costs one bisection and a short
 * walk up (network-index.ts), whatever the number of entries and prefix lengths. Immutable once
 * built; `validUntil` is the first expiry among its entries (the cache rebuilds it then).
 */
export class BlocklistMatcher {
  readonly validUntil: number;
  readonly size: number;
  private readonly exact = new Map<string, MatchedEntry>();
  private readonly ranges = new Map<number, RangeIndex>();
  /** CIDR entries (a single address is a block of its full length). */
  private readonly networks: NetworkIndex<MatchedEntry>;

  constructor(entries: readonly LoadedEntry[], now: number) {
    let validUntil = Number.POSITIVE_INFINITY;
    const ranges = new Map<number, Array<{ start: number; end: number; entry: MatchedEntry }>>();
    let size = 0;
    const blocks: Array<{ block: IpBlock; owner: MatchedEntry }> = [];
    for (const row of entries) {
      const expiry = row.expires_at?.getTime() ?? null;
      if (expiry !== null && expiry <= now) continue;
      if (expiry !== null) validUntil = Math.min(validUntil, expiry);
      size++;
      const entry: MatchedEntry = { id: row.id, valueType: row.value_type };
      if (row.value_type === 'bin_range') {
        const [start = '', end = ''] = row.value.split('-');
        const list = ranges.get(start.length) ?? [];
        list.push({ start: Number(start), end: Number(end), entry });
        ranges.set(start.length, list);
      } else if (row.value_type === 'ip_address') {
        const parsed = parseIpBlock(row.value);
        if (!parsed.ok) continue;
        blocks.push({ block: parsed.block, owner: entry });
      } else this.exact.set(`${row.value_type}\n${row.value}`, entry);
    }
    for (const [length, list] of ranges) this.ranges.set(length, rangeIndex(list));
    this.networks = new NetworkIndex(blocks);
    this.validUntil = validUntil;
    this.size = size;
  }

  private lookup(type: BlocklistValueType, value: string | null): MatchedEntry | undefined {
    return value === null ? undefined : this.exact.get(`${type}\n${value}`);
  }

  /** The BIN range containing the card's leading digits, if any. */
  matchBinRange(digits: string): MatchedEntry | undefined {
    for (const [length, index] of this.ranges) {
      if (digits.length < length) continue;
      const x = Number(digits.slice(0, length));
      // The last range starting at or below x; the widest-reaching range among those is whose max end it is.
      let lo = 0;
      let hi = index.starts.length - 1;
      let found = -1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (index.starts[mid]! <= x) {
          found = mid;
          lo = mid + 1;
        } else hi = mid - 1;
      }
      if (found >= 0 && index.maxEnds[found]! >= x) return index.owners[found];
    }
    return undefined;
  }

  /** The most specific CIDR entry containing the address, if any. */
  matchIp(address: string): MatchedEntry | undefined {
    if (this.networks.size === 0) return undefined;
    const bits = ipBits(address);
    return bits === null ? undefined : this.networks.find(ipHex(bits));
  }

  /** The first entry the facts hit, in a fixed order (card, BIN, e-mail, IP, country, buyer), or null. */
  match(facts: BlocklistFacts): BlocklistMatch | null {
    if (this.size === 0) return null;
    const hit = (entry: MatchedEntry | undefined, field: string) => (entry ? { ...entry, field } : null);
    const digits = facts.cardDigits;
    const bins = digits ? [8, 7, 6].filter((n) => digits.length >= n).map((n) => digits.slice(0, n)) : [];
    const byCountry = facts.countries.map((c) => hit(this.lookup('country', c.code), c.field)).find((m) => m !== null);
    return (
      hit(this.lookup('card_fingerprint', facts.cardFingerprint), 'card') ??
      bins.map((b) => hit(this.lookup('bin', b), 'bin')).find((m) => m !== null) ??
      hit(digits ? this.matchBinRange(digits) : undefined, 'bin') ??
      hit(this.lookup('email_address', facts.emailAddress), 'email_address') ??
      hit(facts.ipAddress ? this.matchIp(facts.ipAddress) : undefined, 'ip_address') ??
      byCountry ??
      hit(this.lookup('buyer_external_identifier', facts.buyerExternalIdentifier), 'buyer_external_identifier')
    );
  }
}

function rangeIndex(list: Array<{ start: number; end: number; entry: MatchedEntry }>): RangeIndex {
  list.sort((a, b) => a.start - b.start);
  const index: RangeIndex = { starts: [], maxEnds: [], owners: [] };
  let best: { end: number; entry: MatchedEntry } | null = null;
  for (const range of list) {
    if (!best || range.end > best.end) best = range;
    index.starts.push(range.start);
    index.maxEnds.push(best.end);
    index.owners.push(best.entry);
  }
  return index;
}
