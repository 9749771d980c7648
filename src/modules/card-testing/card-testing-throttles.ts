/**
 * The throttled sources this process knows of (merchant account and source MAC → end, epoch ms):
 * a throttled source's attempts are stopped from memory. Learnt when this process claims a throttle
 * or finds another process's (card-testing.service.ts). Bounded and safe to lose: a source still
 * attacking stays over the threshold in the shared counts, which brings its throttle back here.
 */
const MAX_ENTRIES = 100_000;

export class CardTestingThrottles {
  private readonly until = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The end of the source's throttle, or null when it is not throttled now. */
  throttledUntil(merchantAccountId: string, sourceMac: string): number | null {
    // Nothing throttled (the usual case): no key to build.
    if (this.until.size === 0) return null;
    const key = `${merchantAccountId}\n${sourceMac}`;
    const end = this.until.get(key);
    if (end === undefined) return null;
    if (end > this.now()) return end;
    this.until.delete(key);
    return null;
  }

  remember(merchantAccountId: string, sourceMac: string, end: number): void {
    const key = `${merchantAccountId}\n${sourceMac}`;
    this.until.delete(key);
    this.until.set(key, end);
    // The oldest entry goes first (a Map iterates in insertion order).
    if (this.until.size > MAX_ENTRIES) this.until.delete(this.until.keys().next().value!);
  }
}
