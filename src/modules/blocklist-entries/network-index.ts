import { ipHex, PREFIX_MASKS, type IpBlock } from './ip-prefix.ts';

const ALL = (1n << 128n) - 1n;

/**
 * CIDR blocks indexed for "the most specific block holding this address" without a lookup per
 * prefix length. Two blocks are either disjoint or one holds the other, so sorted by first address
 * (the wider first on a tie) each block's parent is the nearest block before it that holds it. The
 * blocks holding an address are then the last block starting at or below it and its ancestors: a
 * bisection, then a walk up while a block ends below the address (at most 128 steps, a few in
 * practice). Addresses are compared as 32 hex digits (fixed width: text order is numeric order), so a
 * lookup allocates only the address's digits.
 */
export class NetworkIndex<T> {
  private readonly starts: string[] = [];
  private readonly ends: string[] = [];
  private readonly parents: number[] = [];
  private readonly owners: T[] = [];

  /** `blocks`: one owner per block (a block given twice keeps its last owner). */
  constructor(blocks: Iterable<{ block: IpBlock; owner: T }>) {
    const byBlock = new Map<string, { start: string; end: string; prefix: number; owner: T }>();
    for (const { block, owner } of blocks) {
      const start = ipHex(block.network);
      const end = ipHex(block.network | (~PREFIX_MASKS[block.prefix]! & ALL));
      byBlock.set(`${block.prefix}/${start}`, { start, end, prefix: block.prefix, owner });
    }
    const sorted = [...byBlock.values()].sort((a, b) =>
      a.start < b.start ? -1 : a.start > b.start ? 1 : a.prefix - b.prefix,
    );
    const open: number[] = [];
    for (const [i, block] of sorted.entries()) {
      while (open.length > 0 && this.ends[open.at(-1)!]! < block.start) open.pop();
      this.parents.push(open.length > 0 ? open.at(-1)! : -1);
      open.push(i);
      this.starts.push(block.start);
      this.ends.push(block.end);
      this.owners.push(block.owner);
    }
  }

  get size(): number {
    return this.owners.length;
  }

  /** The owner of the most specific block holding the address (32 hex digits, ipHex), if any. */
  find(hex: string): T | undefined {
    let lo = 0;
    let hi = this.starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.starts[mid]! <= hex) lo = mid + 1;
      else hi = mid;
    }
    let i = lo - 1;
    while (i >= 0 && this.ends[i]! < hex) i = this.parents[i]!;
    return i >= 0 ? this.owners[i] : undefined;
  }
}
