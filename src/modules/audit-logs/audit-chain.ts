import { hash } from 'node:crypto';

/**
 * The audit log's hash chain (decisions 0141, 0145, 0157), recomputed outside the database. The
 * database's sealer links entries with the same encoding (migrations 0072, 0079, `svc_audit_canonical`):
 * keep the two in step.
 */

/** The `prev_hash` of an account's first entry (hashes are handled as lowercase hex). */
export const GENESIS_HASH = '0'.repeat(64);

/** A link of the chain: a place, the entry it holds, the previous entry's hash and this one's (hex). */
export interface ChainLink {
  seq: number;
  id: string;
  prev_hash: string;
  hash: string;
}

/** An entry as the verifier reads it: its content, its place and the two hashes (its link's). */
export interface ChainEntry extends ChainLink {
  merchant_account_id: string;
  /** The link names an entry that is not in audit_logs (its content fields are then empty). */
  absent?: boolean;
  /** An earlier link of the chain names the same entry (decision 0157: an entry is linked once). */
  linkedBefore?: boolean;
  action: string;
  resource_type: string;
  resource_id: string;
  resource_name: string;
  user_id: string | null;
  user_name: string;
  user_email_address: string | null;
  user_is_staff: boolean;
  operation_id: string | null;
  request_id: string | null;
  /** `created_at` in whole microseconds since the epoch, as decimal text (read exactly on both databases). */
  created_us: string;
}

const field = (v: string | null): string => (v === null ? '-' : `${Buffer.byteLength(v)}:${v}`);

/** Version 1: each field length-prefixed (`<bytes>:<text>`, NULL as `-`), in a fixed order. */
export function canonicalEntry(e: ChainEntry, seq = e.seq): string {
  return `svc-audit-v1${field(e.merchant_account_id)}${field(String(seq))}${field(e.id)}${field(e.action)}${field(
    e.resource_type,
  )}${field(e.resource_id)}${field(e.resource_name)}${field(e.user_id)}${field(e.user_name)}${field(
    e.user_email_address,
  )}${field(e.user_is_staff ? 'true' : 'false')}${field(e.operation_id)}${field(e.request_id)}${field(e.created_us)}`;
}

// One buffer for prev_hash and the encoding, reused: the verifier hashes 100,000s of entries a second.
let scratch = Buffer.alloc(16 * 1024);

/** SHA-256(prev_hash || canonical encoding), hex; `prev` is hex. */
export function entryHash(prev: string, e: ChainEntry, seq = e.seq): string {
  const text = canonicalEntry(e, seq);
  if (32 + text.length * 3 > scratch.length) scratch = Buffer.alloc(2 * (32 + text.length * 3));
  if (scratch.write(prev, 0, 'hex') !== 32) throw new Error(`not a SHA-256 hash: ${prev}`);
  const end = 32 + scratch.write(text, 32, 'utf8');
  return hash('sha256', scratch.subarray(0, end), 'hex');
}

/** Bytes (bytea as either driver reads it) to lowercase hex. */
export const hex = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');

export type BrokenKind =
  | 'missing'
  | 'duplicate'
  | 'content_changed'
  | 'reordered'
  | 'prev_hash_changed'
  | 'unlinked'
  | 'head_mismatch'
  | 'anchor_mismatch'
  | 'unsealed'
  | 'linked_twice';

/** The first place where the chain is not what was appended. */
export interface BrokenLink {
  kind: BrokenKind;
  seq: number;
  /** The entry found at (or, for `missing`, next after) that place; null when there is none. */
  id: string | null;
  detail: string;
}

/** How far from its place a moved entry is looked for (only once the chain is found broken). */
const REORDER_WINDOW = 10_000;

function movedFrom(e: ChainEntry): number | null {
  for (let d = 1; d <= REORDER_WINDOW; d++) {
    for (const seq of [e.seq - d, e.seq + d]) if (seq >= 1 && entryHash(e.prev_hash, e, seq) === e.hash) return seq;
  }
  return null;
}

/** What is wrong with entry `e` found where place `seq` with predecessor hash `prev` was expected. */
function diagnose(e: ChainEntry, seq: number): BrokenLink {
  const at = { seq, id: e.id };
  if (e.seq > seq)
    return {
      kind: 'missing',
      ...at,
      detail: `entries ${seq}${e.seq - 1 > seq ? `..${e.seq - 1}` : ''} are missing (the next one present is seq ${e.seq})`,
    };
  if (e.seq < seq) return { kind: 'duplicate', ...at, detail: `a second entry at seq ${e.seq}: the chain forked` };
  if (e.absent)
    return { kind: 'missing', ...at, detail: `the entry linked at seq ${seq} is missing (its link remains)` };
  if (entryHash(e.prev_hash, e) === e.hash)
    return {
      kind: 'unlinked',
      ...at,
      detail: `the entry is intact but does not follow seq ${seq - 1}: an entry before it was removed and later ones renumbered, or seq ${seq - 1} was rewritten together with its hash`,
    };
  const original = movedFrom(e);
  if (original !== null)
    return { kind: 'reordered', ...at, detail: `the entry was appended at seq ${original} and now sits at seq ${seq}` };
  return { kind: 'content_changed', ...at, detail: 'its content does not match its hash (a column was changed)' };
}

/** Checks one account's entries in seq order and keeps the first broken link. */
export class ChainChecker {
  private nextSeq = 1;
  private prev = GENESIS_HASH;
  broken: BrokenLink | null = null;
  entries = 0;

  /** The place and hash of the last entry checked (seq 0 and the genesis hash before the first). */
  get last(): { seq: number; hash: string } {
    return { seq: this.nextSeq - 1, hash: this.prev };
  }

  /** False once the chain is broken (the rest is not read). */
  check(e: ChainEntry): boolean {
    if (this.broken) return false;
    this.entries++;
    if (e.seq !== this.nextSeq || e.absent || entryHash(this.prev, e) !== e.hash) {
      this.broken = diagnose(e, this.nextSeq);
      return false;
    }
    if (e.linkedBefore) {
      this.broken = {
        kind: 'linked_twice',
        seq: e.seq,
        id: e.id,
        detail: 'the entry is linked a second time (an earlier seq holds it already): an entry is linked once',
      };
      return false;
    }
    if (e.prev_hash !== this.prev) {
      this.broken = {
        kind: 'prev_hash_changed',
        seq: e.seq,
        id: e.id,
        detail: `its prev_hash column was changed (its content and hash still follow seq ${e.seq - 1})`,
      };
      return false;
    }
    this.prev = e.hash;
    this.nextSeq++;
    return true;
  }

  fail(link: BrokenLink): void {
    this.broken ??= link;
  }
}
