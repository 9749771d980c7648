import fs from 'node:fs';

/**
 * Anchors: chain heads written outside the database (decision 0141), one JSON line each, so that a
 * rewrite of the chain behind an anchor is found even by someone who can recompute every hash.
 */
export interface Anchor {
  merchant_account_id: string;
  seq: number;
  /** SHA-256 of the entry at `seq`, hex. */
  hash: string;
  anchored_at: string;
}

/**
 * Appends `anchors` to `file` (created with mode 0600 if missing) and flushes it to disk before
 * returning. Append mode only: the process never rewrites what it wrote.
 */
export function appendAnchors(file: string, anchors: readonly Anchor[]): void {
  if (anchors.length === 0) return;
  const fd = fs.openSync(file, 'a', 0o600);
  try {
    fs.writeSync(fd, anchors.map((a) => `${JSON.stringify(a)}\n`).join(''));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

const isAnchor = (v: unknown): v is Anchor => {
  const a = v as Partial<Anchor> | null;
  return (
    typeof a?.merchant_account_id === 'string' &&
    Number.isSafeInteger(a.seq) &&
    (a.seq as number) >= 0 &&
    typeof a.hash === 'string' &&
    a.hash.length === 64 &&
    typeof a.anchored_at === 'string'
  );
};

/** The anchors of `file`, by merchant account, each account's in seq order; a bad line throws naming it. */
export function readAnchors(file: string): Map<string, Anchor[]> {
  const byAccount = new Map<string, Anchor[]>();
  fs.readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, index) => {
      if (line.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        value = null;
      }
      if (!isAnchor(value)) throw new Error(`${file} line ${index + 1} is not an audit chain anchor`);
      const list = byAccount.get(value.merchant_account_id) ?? [];
      list.push(value);
      byAccount.set(value.merchant_account_id, list);
    });
  for (const list of byAccount.values()) list.sort((a, b) => a.seq - b.seq);
  return byAccount;
}
