import type { PaymentServiceCircuitRow } from '../../db/schema-circuits.ts';
import type { Executor } from '../../db/transaction.ts';

/** SQL of the circuit breakers (migration 0062). */

export interface CircuitKey {
  merchantAccountId: string;
  paymentServiceId: string;
}

/** A circuit with what its transitions name: the service's display name and definition. */
export type CircuitWithService = PaymentServiceCircuitRow & {
  display_name: string | null;
  payment_service_definition_id: string | null;
};

/** Creates the closed circuits of services that have none yet (their first authorizations). */
export async function ensureCircuits(tx: Executor, keys: readonly CircuitKey[], now: Date): Promise<void> {
  if (keys.length === 0) return;
  await tx
    .insertInto('payment_service_circuits')
    .values(
      keys.map((k) => ({
        merchant_account_id: k.merchantAccountId,
        payment_service_id: k.paymentServiceId,
        state: 'closed' as const,
        window_started_at: now,
        calls: 0,
        failures: 0,
        previous_calls: 0,
        previous_failures: 0,
        consecutive_failures: 0,
        opened_at: null,
        retry_at: null,
        reason: null,
        updated_at: now,
      })),
    )
    .onConflict((oc) => oc.columns(['merchant_account_id', 'payment_service_id']).doNothing())
    .execute();
}

const withService = (db: Executor) =>
  db
    .selectFrom('payment_service_circuits as c')
    .leftJoin('payment_services as s', (join) =>
      join.onRef('s.merchant_account_id', '=', 'c.merchant_account_id').onRef('s.id', '=', 'c.payment_service_id'),
    )
    .selectAll('c')
    .select(['s.display_name', 's.payment_service_definition_id']);

/**
 * The circuits of `keys`, locked until the end of the transaction (in key order, so two processes
 * flushing the same services wait for each other instead of deadlocking).
 */
export function lockCircuits(tx: Executor, keys: readonly CircuitKey[]): Promise<CircuitWithService[]> {
  return withService(tx)
    .where(({ eb, refTuple, tuple }) =>
      eb(
        refTuple('c.merchant_account_id', 'c.payment_service_id'),
        'in',
        keys.map((k) => tuple(k.merchantAccountId, k.paymentServiceId)),
      ),
    )
    .orderBy('c.merchant_account_id')
    .orderBy('c.payment_service_id')
    .forUpdate('c')
    .execute();
}

export async function updateCircuit(
  tx: Executor,
  key: CircuitKey,
  patch: Omit<PaymentServiceCircuitRow, 'merchant_account_id' | 'payment_service_id'>,
): Promise<void> {
  await tx
    .updateTable('payment_service_circuits')
    .set(patch)
    .where('merchant_account_id', '=', key.merchantAccountId)
    .where('payment_service_id', '=', key.paymentServiceId)
    .execute();
}

/** Every open circuit (half-open ones included): what each process keeps in its cache. */
export function openCircuits(db: Executor): Promise<CircuitWithService[]> {
  return withService(db).where('c.state', '=', 'open').execute();
}
