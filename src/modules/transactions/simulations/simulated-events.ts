import type { SimulationRequest } from '../../../connectors/connector-simulations.ts';
import type { InboundWebhookEvent } from '../../../connectors/connector-webhooks.ts';
import type { PaymentConnector } from '../../../connectors/connector.ts';
import type { Deps } from '../../../context.ts';
import type { TransactionRow } from '../../../db/schema-transactions.ts';
import type { Executor, Tx } from '../../../db/transaction.ts';
import { isProduction } from '../../../errors/sandbox-only.ts';
import { paymentHint } from '../connector-call.ts';
import { definitionOf } from '../settlements/settlement-source.ts';
import * as repo from '../transactions.repo.ts';

/**
 * The sandbox simulators' later events (connector-simulations.ts): when a payment of a simulator
 * with `simulatedEvents` starts waiting (a PIX code, a direct debit collection), one
 * `deliver-simulated-event` job per event is enqueued with the write that made it wait, due
 * `SANDBOX_ASYNC_DELAY_SECONDS` times the event's `after`. The job recomputes the event from the
 * same inputs and applies it as the provider's webhook (inbound-webhooks/simulated-events.service.ts).
 */

type Waiting = SimulationRequest['status'];

/** The simulator of a transaction's payment service, when it has later events; null for every real connector. */
export function simulatorOf(deps: Deps, row: Pick<TransactionRow, 'payment_service'>): PaymentConnector | null {
  const definition = definitionOf(row);
  if (definition === null || isProduction(deps.config) || !deps.connectors.isSandbox(definition)) return null;
  const connector = deps.connectors.find(definition);
  return connector?.simulatedEvents ? connector : null;
}

/** What the simulator is told about the waiting payment (the same at scheduling and at delivery). */
export function simulationRequestOf(
  row: TransactionRow,
  status: Waiting,
  capture: { id: string; amount: number } | null,
): SimulationRequest | null {
  if (!row.payment_service_transaction_id) return null;
  return {
    status,
    providerTransactionId: row.payment_service_transaction_id,
    captureId: capture?.id ?? null,
    amount: capture?.amount ?? row.amount,
    currency: row.currency,
    payment: paymentHint(row),
  };
}

/**
 * The inserts of the jobs for `row` now waiting (none unless it waits at a simulator with later
 * events), for a caller that runs them with its other writes; poke the queue after. `capture`: the
 * capture attempt whose collection is pending, when a capture (not the authorization) started it.
 */
export function simulatedEventQueries(
  db: Executor,
  deps: Deps,
  row: TransactionRow,
  capture: { id: string; amount: number } | null = null,
) {
  if (row.status !== 'buyer_approval_pending' && row.status !== 'capture_pending') return [];
  const connector = simulatorOf(deps, row);
  const request = connector && simulationRequestOf(row, row.status, capture);
  if (!connector?.simulatedEvents || !request) return [];
  const delayMs = deps.config.sandboxAsyncDelaySeconds * 1000;
  return connector.simulatedEvents(request).map((simulated, index) =>
    deps.queue.enqueueQuery(
      db,
      'deliver-simulated-event',
      {
        merchant_account_id: row.merchant_account_id,
        transaction_id: row.id,
        status: request.status,
        ...(capture ? { capture_id: capture.id } : {}),
        index,
      },
      {
        jobKey: `simulated-event:${row.merchant_account_id}:${row.id}:${capture?.id ?? 'payment'}:${request.status}:${index}`,
        runAt: new Date(Date.now() + simulated.after * delayMs),
      },
    ),
  );
}

/** `simulatedEventQueries`, run in the caller's transaction. */
export async function scheduleSimulatedEvents(
  tx: Tx,
  deps: Deps,
  row: TransactionRow,
  capture: { id: string; amount: number } | null = null,
): Promise<void> {
  const queries = simulatedEventQueries(tx, deps, row, capture);
  for (const query of queries) await query.execute();
  if (queries.length > 0) deps.queue.pokeSoon();
}

/**
 * The event a `deliver-simulated-event` job delivers, recomputed from what it was scheduled with:
 * the payment service it is about and whether that connector over-captures; null when there is
 * nothing to deliver (the transaction gone, its service no longer a simulator, no such event).
 */
export async function simulatedEventOf(
  deps: Deps,
  job: {
    merchant_account_id: string;
    transaction_id: string;
    status: Waiting;
    capture_id?: string | undefined;
    index: number;
  },
): Promise<{ paymentServiceId: string; event: InboundWebhookEvent; overCapture: boolean; canVoid: boolean } | null> {
  const row = await repo.findTransaction(deps.db, job.merchant_account_id, job.transaction_id);
  const connector = row && simulatorOf(deps, row);
  if (!row?.payment_service_id || !connector?.simulatedEvents) return null;
  const attempt = job.capture_id ? await repo.findAttempt(deps.db, job.merchant_account_id, job.capture_id) : null;
  const request = simulationRequestOf(row, job.status, attempt ? { id: attempt.id, amount: attempt.amount } : null);
  const simulated = request ? connector.simulatedEvents(request)[job.index] : undefined;
  return simulated
    ? {
        paymentServiceId: row.payment_service_id,
        event: simulated.event,
        overCapture: connector.definition.capabilities.overCapture,
        canVoid: connector.definition.capabilities.void,
      }
    : null;
}
