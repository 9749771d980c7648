import type { Deps } from '../../context.ts';
import type { Tx } from '../../db/transaction.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { recordSystemAudit } from '../audit-logs/audit-logs.service.ts';
import { emitEvent } from '../events/events.service.ts';
import type { TransitionRecord } from './circuit-state.ts';

/** The webhook event kinds of a circuit opening and closing (docs/webhooks.md). */
export const CIRCUIT_OPENED = 'payment-service.circuit_opened';
export const CIRCUIT_CLOSED = 'payment-service.circuit_closed';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The event's payload: the circuit of the service after the transition. */
export function circuitPayload(t: TransitionRecord): Record<string, unknown> {
  return {
    type: 'payment-service-circuit',
    payment_service_id: t.paymentServiceId,
    payment_service_definition_id: t.definitionId,
    display_name: t.displayName,
    state: t.circuit.state,
    reason: t.transition === 'closed' ? 'a probe succeeded' : t.circuit.reason,
    opened_at: iso(t.circuit.openedAt),
    retry_at: iso(t.circuit.retryAt),
    changed_at: new Date(t.at).toISOString(),
  };
}

/**
 * In the transaction that makes it: the audit entry (the system as actor) and the webhook event of
 * a circuit opening or closing. A reopening (a half-open probe failed) has neither: the service has
 * been out all along, and merchants are not told again every cool-down; it is counted in the
 * metrics.
 */
export async function recordTransition(tx: Tx, deps: Deps, t: TransitionRecord): Promise<void> {
  if (t.transition === 'reopened') return;
  const opened = t.transition === 'opened';
  const reason = opened ? t.circuit.reason : 'a probe succeeded';
  await recordSystemAudit(
    tx,
    t.merchantAccountId,
    {
      name: `System (circuit breaker ${opened ? 'opened' : 'closed'}: ${reason})`,
      jobName: 'circuit-breaker',
      jobId: uuidv7(t.at),
    },
    'updated',
    { type: 'payment-service', id: t.paymentServiceId, name: t.displayName ?? t.paymentServiceId },
  );
  await emitEvent(tx, deps, {
    merchantAccountId: t.merchantAccountId,
    kind: opened ? CIRCUIT_OPENED : CIRCUIT_CLOSED,
    resourceType: 'payment-service',
    resourceId: t.paymentServiceId,
    payload: circuitPayload(t),
  });
}
