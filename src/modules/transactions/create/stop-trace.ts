import type { TransactionActionJson } from '../../../db/schema-transactions.ts';
import type { FailoverPlan } from '../routing/failover.ts';
import { stopAction, type StopNote } from '../routing/stop-note.ts';

/** What the last write of a new transaction needs to add its stop note (routing/stop-note.ts) to the actions. */
export interface StopTraced {
  stop?: StopNote | null;
  prepared: { plan: FailoverPlan | null; flow: TransactionActionJson['flow'] | null };
}

/**
 * The `actions` column with the stop note appended, for the patch of the transaction's last write
 * (in the same statement as its answer, so the note exists exactly when the answer does); `{}`
 * without a note. `actions`: the row's actions as that write's row holds them.
 */
export function stopPatch(
  started: StopTraced,
  actions: readonly TransactionActionJson[],
  now: Date,
): { actions?: string } {
  const { stop, prepared } = started;
  if (!stop || !prepared.plan || !prepared.flow) return {};
  return { actions: JSON.stringify([...actions, stopAction(stop, prepared.flow, prepared.plan.ruleId, now)]) };
}
