import { SharedLoad } from '../../db/shared-load.ts';
import type { Executor } from '../../db/transaction.ts';
import type { FlowActionName, FlowName } from '../../db/schema-flow-rules.ts';
import type { FlowRule } from './flow-decisions.ts';
import { allFlowRules } from './flow-rules.repo.ts';
import { velocityNeedsOf, type VelocityNeeds } from './velocity-condition.ts';

interface RuleSet {
  lists: ReadonlyMap<string, readonly FlowRule[]>;
  /** What the enabled rules of every flow need counted; null: no velocity condition, nothing counted. */
  velocity: VelocityNeeds | null;
}

interface Entry {
  rules: SharedLoad<RuleSet>;
  loadedAt: number;
}

const listKey = (flow: FlowName, action: FlowActionName) => `${flow}/${action}`;

/**
 * Each merchant account's enabled rules, by flow and action, in position order, reloaded from
 * the database after `ttlMs` (documented: a change reaches every process within 5 s; the process
 * that made it forgets its copy at once). Rule evaluation thus adds no database round trip to an
 * authorization. Concurrent misses of one account share one load; the map is bounded.
 */
export class FlowRuleCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly db: Executor,
    private readonly ttlMs = 5_000,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The enabled rules of one flow action, first to evaluate first. `db`: where a miss loads from;
   * a caller inside a database transaction passes it (the embedded database has one connection,
   * which that transaction holds), and then waits only for a load that has ended (`SharedLoad`):
   * with one still under way on the pool it loads on its own transaction.
   */
  async rules(
    merchantAccountId: string,
    flow: FlowName,
    action: FlowActionName,
    db: Executor = this.db,
  ): Promise<readonly FlowRule[]> {
    return (await this.ruleSet(merchantAccountId, db)).lists.get(listKey(flow, action)) ?? [];
  }

  /** The keys and longest window the account's velocity conditions use (null: none), from the same cache. */
  async velocityNeeds(merchantAccountId: string, db: Executor = this.db): Promise<VelocityNeeds | null> {
    return (await this.ruleSet(merchantAccountId, db)).velocity;
  }

  private ruleSet(merchantAccountId: string, db: Executor): Promise<RuleSet> {
    const entry = this.entries.get(merchantAccountId);
    if (entry && this.now() - entry.loadedAt < this.ttlMs)
      return entry.rules.awaitableBy(db) ? entry.rules.promise : this.load(merchantAccountId, db);
    const rules = new SharedLoad(this.load(merchantAccountId, db));
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(merchantAccountId, { rules, loadedAt: this.now() });
    // A failed load is not kept: the next call tries again.
    rules.promise.catch(
      () => this.entries.get(merchantAccountId)?.rules === rules && this.entries.delete(merchantAccountId),
    );
    return rules.promise;
  }

  private async load(merchantAccountId: string, db: Executor): Promise<RuleSet> {
    const rows = await allFlowRules(db, merchantAccountId);
    const set = new Map<string, FlowRule[]>();
    for (const row of rows) {
      if (!row.enabled) continue;
      const key = listKey(row.flow, row.action);
      const list = set.get(key) ?? [];
      list.push({
        id: row.id,
        flow: row.flow,
        action: row.action,
        position: row.position,
        enabled: true,
        conditions: row.conditions,
        outcome: row.outcome,
      });
      set.set(key, list);
    }
    return { lists: set, velocity: velocityNeedsOf([...set.values()].flat().map((rule) => rule.conditions)) };
  }

  /** Forgets an account's rules at once in this process (after a local change). */
  invalidate(merchantAccountId: string): void {
    this.entries.delete(merchantAccountId);
  }
}
