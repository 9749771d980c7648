import type { SimulatorCall, SimulatorLedger } from '../../connectors/simulator-ledger.ts';
import type { Executor } from '../../db/transaction.ts';
import { runWrites } from '../../db/write-batch.ts';
import { withoutRequest } from '../../observability/request-timing.ts';

/**
 * The simulators' ledger in `simulator_calls` (migration 0050): written by the simulated call
 * itself, before it answers, so a process killed right after the call still finds it. Always on
 * the pool, never inside one of our transactions (calls are made outside them: STYLE D4). Its
 * statements are the simulated provider's, not the request's: they are left out of the request's
 * database time and statement count (Server-Timing), as a real provider's storage would be.
 */
export function databaseLedger(db: Executor): SimulatorLedger {
  return {
    async received(call: SimulatorCall, answer: unknown) {
      const insert = db
        .insertInto('simulator_calls')
        .values({
          service: call.service,
          operation: call.operation,
          idempotency_key: call.idempotencyKey,
          answer: answer === undefined || answer === null ? null : JSON.stringify(answer),
        })
        .onConflict((oc) => oc.columns(['service', 'operation', 'idempotency_key']).doNothing());
      // Concurrent calls' entries go in one statement on a pool that groups (src/db/group-commit.ts).
      await withoutRequest(() => runWrites(db, [insert], { column: 'idempotency_key', value: call.idempotencyKey }));
    },
    async lookup(call: SimulatorCall) {
      const row = await withoutRequest(() =>
        db
          .selectFrom('simulator_calls')
          .select('answer')
          .where('service', '=', call.service)
          .where('operation', '=', call.operation)
          .where('idempotency_key', '=', call.idempotencyKey)
          .executeTakeFirst(),
      );
      return row ? { answer: row.answer } : null;
    },
  };
}
