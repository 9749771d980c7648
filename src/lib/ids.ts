import { createHash, randomBytes } from 'node:crypto';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

let lastMs = 0;
let seq = 0;

// Random bytes drawn 4 KiB at a time (as crypto.randomUUID does): one call to the system's
// generator per 200-odd ids instead of two per id.
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let offset = POOL_SIZE;

/** `size` fresh random bytes (a view into the pool: copy before changing them). */
function random(size: number): Buffer {
  if (offset + size > pool.length) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + size);
  offset += size;
  return bytes;
}

/**
 * RFC 9562 UUIDv7: 48-bit Unix milliseconds, then random bits. Ids created in one process
 * are strictly increasing (a 12-bit counter in rand_a), which keeps B-tree inserts at the
 * right edge of the index.
 */
export function uuidv7(now: number = Date.now()): string {
  if (now <= lastMs) {
    seq += 1;
    if (seq > 0xfff) {
      lastMs += 1;
      seq = 0;
    }
    now = lastMs;
  } else {
    lastMs = now;
    seq = random(2).readUInt16BE(0) & 0x3ff;
  }
  const bytes = Buffer.from(random(16));
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | ((seq >> 8) & 0x0f);
  bytes[7] = seq & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The least UUIDv7 of millisecond `ms` (version 7, variant 10, every other bit 0): every UUIDv7
 * made at `ms` or later sorts at or above it, every one made earlier below it. A table keyed by
 * UUIDv7 ids can so find its rows older than a moment by its primary key.
 */
export function uuidv7Floor(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0').slice(-12);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
}

/**
 * RFC 9562 UUIDv5: SHA-1 of a namespace UUID and a name. The same name gives the same id in every
 * process and database (ids of fixed catalogues, such as roles).
 */
export function uuidv5(name: string, namespace: string): string {
  const hash = createHash('sha1')
    .update(Buffer.from(namespace.replace(/-/g, ''), 'hex'))
    .update(name, 'utf8')
    .digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
