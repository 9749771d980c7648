import type {
  AntiFraudChargeback,
  AntiFraudDelivery,
  AntiFraudTransactionUpdate,
} from '../../../connectors/anti-fraud/anti-fraud-connector.ts';
import type { Deps } from '../../../context.ts';
import type { TransactionRow } from '../../../db/schema-transactions.ts';
import type { JobPayload } from '../../../jobs/payloads.ts';
import {
  reportToAntiFraudService,
  type AntiFraudReport,
} from '../../anti-fraud-services/anti-fraud-feedback.service.ts';
import { event } from '../transaction-events.ts';
import * as transactions from '../transactions.repo.ts';
import { updateKeyOf } from './anti-fraud-updates.ts';
import * as repo from './anti-fraud-updates.repo.ts';

type Payload = JobPayload<'send-anti-fraud-update'>;
type Log = { warn(obj: object, msg?: string): void };

/**
 * How one run of `send-anti-fraud-update` ended: `sent`; `done` (nothing to send: told already, a
 * transaction or refund gone, a service that takes no such report); `refused` (for good: no retry);
 * `failed` (worth another try, unless `last`).
 */
export type UpdateRun = { result: 'sent' | 'done' } | { result: 'refused' | 'failed'; message: string };

const at = (...times: Array<Date | null>): Date => times.find((t) => t !== null) ?? new Date();

async function chargebackOf(deps: Deps, row: TransactionRow): Promise<AntiFraudChargeback> {
  const line = await repo.latestChargeback(deps.db, row.merchant_account_id, row.id);
  const gateway = (row.payment_service?.payment_service_definition_id as string | undefined) ?? null;
  if (line)
    return {
      id: line.report_line_id,
      at: new Date(line.posted_at),
      amount: line.amount,
      currency: line.currency,
      reasonCode: null,
      reasonDescription: null,
      gateway,
    };
  // A dispute notification by webhook is no report line: the disputed amount is what was captured.
  const amount = row.captured_amount > 0 ? row.captured_amount : row.amount;
  return {
    id: row.id,
    at: row.updated_at,
    amount,
    currency: row.currency,
    reasonCode: null,
    reasonDescription: null,
    gateway,
  };
}

/** The report as the connector takes it, read now (after the change committed); null: nothing left to tell. */
async function reportOf(deps: Deps, row: TransactionRow, payload: Payload): Promise<AntiFraudReport | null> {
  let update: AntiFraudTransactionUpdate;
  switch (payload.update) {
    case 'approved':
      update = {
        kind: 'approved',
        at: at(row.authorized_at, row.captured_at, row.updated_at),
        amount: row.authorized_amount > 0 ? row.authorized_amount : row.amount,
        currency: row.currency,
        authorizationId: row.payment_service_transaction_id,
      };
      break;
    case 'declined':
      update = {
        kind: 'declined',
        at: row.updated_at,
        errorCode: row.error_code ?? 'declined',
        message: row.raw_response_description,
      };
      break;
    case 'canceled':
      update = { kind: 'canceled', at: at(row.voided_at, row.canceled_at, row.updated_at), reason: 'voided' };
      break;
    case 'refunded': {
      const refund = await transactions.findRefund(deps.db, row.merchant_account_id, payload.refund_id!, row.id);
      if (!refund) return null;
      update = {
        kind: 'refunded',
        at: refund.updated_at,
        refundId: refund.id,
        amount: refund.amount,
        currency: refund.currency,
        reason: refund.reason,
      };
      break;
    }
    case 'chargeback':
      return { chargeback: await chargebackOf(deps, row) };
  }
  return { update };
}

/**
 * A cancel, refund or chargeback is told after the authorization's outcome, or the service would
 * hear of a refund before the approval (jobs run side by side). An authorized transaction has an
 * authorization report; until a trace entry settles it, the later one is tried again after its
 * backoff, and on its last try it is sent anyway.
 */
async function authorizationUntold(deps: Deps, row: TransactionRow, update: Payload['update']): Promise<boolean> {
  if (update === 'approved' || update === 'declined') return false;
  if (row.authorized_at === null && row.captured_at === null) return false;
  const entries = await repo.listUpdateEntries(deps.db, row.merchant_account_id, row.id, 'authorization');
  return !entries.some((e) => e.name === repo.UPDATE_SENT || e.context.final === true);
}

/**
 * Tells the transaction's anti-fraud service one thing that followed its decision (decision 0143),
 * with no database transaction open while it waits on the service (STYLE D4), and writes the
 * attempt's trace entry on the transaction (`GET /transactions/{id}/events`). A report settled
 * before (sent, or refused for good) is not sent again: a second run of the job, or a second job
 * for the same report, sends nothing.
 */
export async function sendAntiFraudUpdate(
  deps: Deps,
  payload: Payload,
  run: { attempt: number; last: boolean; log: Log },
): Promise<UpdateRun> {
  const m = payload.merchant_account_id;
  const row = await transactions.findTransaction(deps.db, m, payload.transaction_id);
  if (!row?.anti_fraud_service_id) return { result: 'done' };
  const updateKey = updateKeyOf(payload.update, payload.refund_id);
  const entries = await repo.listUpdateEntries(deps.db, m, row.id, updateKey);
  if (entries.some((e) => e.name === repo.UPDATE_SENT || e.context.final === true)) return { result: 'done' };
  if (!run.last && (await authorizationUntold(deps, row, payload.update)))
    return { result: 'failed', message: 'the authorization outcome is not told yet: this report waits for it' };
  const report = await reportOf(deps, row, payload);
  if (!report) return { result: 'done' };
  const { delivery, definitionId } = await reportToAntiFraudService(
    deps.db,
    deps,
    m,
    row.anti_fraud_service_id,
    row.id,
    report,
  );
  if (!delivery) return { result: 'done' };
  const final = delivery.result !== 'failed' || run.last;
  await transactions.insertEvents(deps.db, [
    event(
      row,
      delivery.result === 'sent' ? repo.UPDATE_SENT : repo.UPDATE_FAILED,
      {
        anti_fraud_service_id: row.anti_fraud_service_id,
        anti_fraud_service_definition_id: definitionId,
        update: payload.update,
        update_key: updateKey,
        ...(payload.refund_id ? { refund_id: payload.refund_id } : {}),
        result: delivery.result,
        raw_status: delivery.status,
        raw_description: delivery.description,
        attempt: run.attempt,
        final,
      },
      new Date(),
    ),
  ]);
  return outcomeOf(delivery, payload, run.log);
}

function outcomeOf(delivery: AntiFraudDelivery, payload: Payload, log: Log): UpdateRun {
  if (delivery.result === 'sent') return { result: 'sent' };
  const message = `the anti-fraud service ${delivery.result === 'refused' ? 'refused' : 'did not take'} the ${payload.update} report (${delivery.status})`;
  log.warn({ transactionId: payload.transaction_id, update: payload.update, status: delivery.status }, message);
  return { result: delivery.result, message };
}
