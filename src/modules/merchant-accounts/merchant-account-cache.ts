import type { Executor } from '../../db/transaction.ts';

/**
 * Which merchant account ids exist, cached for a few seconds: every authenticated request checks
 * its merchant account, and accounts are created rarely and never deleted.
 */
export class MerchantAccountCache {
  private readonly known = new Map<string, number>();
  constructor(
    private readonly db: Executor,
    private readonly ttlMs = 5_000,
    private readonly maxEntries = 10_000,
  ) {}

  async exists(id: string): Promise<boolean> {
    const at = this.known.get(id);
    if (at !== undefined && Date.now() - at < this.ttlMs) return true;
    const row = await this.db.selectFrom('merchant_accounts').select('id').where('id', '=', id).executeTakeFirst();
    if (!row) return false;
    if (this.known.size >= this.maxEntries) this.known.clear();
    this.known.set(id, Date.now());
    return true;
  }
}
