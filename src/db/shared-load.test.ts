import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestRuntime } from '../../test/helpers/build-test-app.ts';
import { createMerchantAccount } from '../../test/helpers/factories.ts';
import type { Deps, RequestContext } from '../context.ts';
import { uuidv7 } from '../lib/ids.ts';
import { activeAntiFraudService } from '../modules/anti-fraud-services/anti-fraud-decision.service.ts';
import { blocklistOf } from '../modules/blocklist-entries/blocklist-check.service.ts';
import { FlowRuleCache } from '../modules/flows/rule-cache.ts';
import { RoutingStats } from '../modules/routing-stats/stats-store.ts';
import { Vault } from '../vault/vault.ts';
import { SharedLoad } from './shared-load.ts';
import { withTransaction } from './transaction.ts';

/**
 * A cache whose concurrent misses share one load must not make a database transaction wait for a
 * load another caller started on the pool: on PGlite the transaction holds the only session, which
 * that load waits for, so neither ends (a server that answers /healthz and nothing else). Found by
 * the crash test: a payout's transaction opening the payment service's credentials waited for the
 * data key a webhook delivery was unwrapping on the pool. On PostgreSQL a pool has other
 * connections; the same holds there once every connection is taken by such a transaction.
 */
let env: Awaited<ReturnType<typeof openTestRuntime>>;
let deps: Deps;
beforeAll(async () => {
  env = await openTestRuntime();
  deps = env.runtime.deps;
});
afterAll(async () => env.dispose());

/** `promise`, or a rejection after `ms` (a deadlock fails the test instead of hanging it). */
function within<T>(promise: Promise<T>, ms = 5_000): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms).unref()),
  ]);
}

describe('security', () => {
  it('a transaction opens a sealed value while another caller unwraps the same data key on the pool', async () => {
    const merchant = await createMerchantAccount(deps);
    const where = { table: 'payment_methods', column: 'number', rowId: uuidv7() };
    const sealed = await deps.vault.encrypt(deps.db, merchant, '4111111111111111', where);
    const cold = new Vault(deps.keyring);
    let outside: Promise<string> | undefined;
    const inside = await withTransaction(deps.db, async (tx) => {
      outside = cold.decrypt(deps.db, merchant, sealed, where);
      return within(cold.decrypt(tx, merchant, sealed, where));
    });
    expect(inside).toBe('4111111111111111');
    expect(await outside).toBe('4111111111111111');
    // Kept for the callers after it: the pool's unwrapping, or the transaction's.
    expect(cold.cachedKeys).toBe(1);
  });

  it("a transaction reads an account's flow rules while another caller loads them on the pool", async () => {
    const merchant = await createMerchantAccount(deps);
    const cache = new FlowRuleCache(deps.db);
    let outside: Promise<unknown> | undefined;
    const inside = await withTransaction(deps.db, async (tx) => {
      outside = cache.rules(merchant, 'card-transaction', 'route-transaction');
      return within(cache.rules(merchant, 'card-transaction', 'route-transaction', tx));
    });
    expect(inside).toEqual([]);
    expect(await outside).toEqual([]);
  });

  it("a transaction reads an account's routing statistics while another caller loads them on the pool", async () => {
    const merchant = await createMerchantAccount(deps);
    const stats = new RoutingStats(deps.db);
    try {
      let outside: Promise<unknown> | undefined;
      const inside = await withTransaction(deps.db, async (tx) => {
        outside = stats.view(merchant, 60);
        return within(stats.view(merchant, 60, tx));
      });
      expect(inside(uuidv7(), 'any')).toBeUndefined();
      await outside;
    } finally {
      await stats.close();
    }
  });

  it("a transaction reads an account's blocklist while another caller loads it on the pool", async () => {
    const merchant = await createMerchantAccount(deps);
    let outside: Promise<unknown> | undefined;
    const inside = await withTransaction(deps.db, async (tx) => {
      outside = blocklistOf(deps.db, deps, merchant);
      return within(blocklistOf(tx, deps, merchant));
    });
    expect(
      inside.match({
        cardFingerprint: null,
        cardDigits: null,
        emailAddress: null,
        ipAddress: null,
        countries: [],
        buyerExternalIdentifier: null,
      }),
    ).toBeNull();
    await outside;
  });

  it("a transaction reads an account's anti-fraud service while another caller loads it on the pool", async () => {
    const merchant = await createMerchantAccount(deps);
    const ctx = { deps, merchantAccountId: merchant } as RequestContext;
    let outside: Promise<unknown> | undefined;
    const inside = await withTransaction(deps.db, async (tx) => {
      outside = activeAntiFraudService(deps.db, ctx);
      return within(activeAntiFraudService(tx, ctx));
    });
    expect(inside).toBeNull();
    expect(await outside).toBeNull();
  });
});

describe('happy', () => {
  it('tells a load that has ended from one under way, whether it succeeded or failed', async () => {
    let finish!: (value: number) => void;
    const load = new SharedLoad(new Promise<number>((resolve) => (finish = resolve)));
    expect(load.settled).toBe(false);
    finish(1);
    expect(await load.promise).toBe(1);
    expect(load.settled).toBe(true);
    const failed = new SharedLoad(Promise.reject(new Error('no')));
    await expect(failed.promise).rejects.toThrow('no');
    expect(failed.settled).toBe(true);
  });

  it('lets a caller outside a transaction wait for any load, one inside only for a load that has ended', async () => {
    let finish!: (value: number) => void;
    const load = new SharedLoad(new Promise<number>((resolve) => (finish = resolve)));
    expect(load.awaitableBy(deps.db)).toBe(true);
    await withTransaction(deps.db, async (tx) => {
      expect(load.awaitableBy(tx)).toBe(false);
      finish(2);
      await load.promise;
      expect(load.awaitableBy(tx)).toBe(true);
    });
  });
});
