import { sql } from 'kysely';
import type { WebhookDeliveryRow } from '../../db/schema-webhooks.ts';
import type { Executor } from '../../db/transaction.ts';
import { uuidv7 } from '../../lib/ids.ts';

/** SQL of delivery attempts: claiming a due delivery, recording its outcome, waking the next one. */

/**
 * Takes a due pending delivery for one attempt by moving next_attempt_at to the end of a lease, so
 * another job for the same delivery does nothing meanwhile. A delivery is not taken while an
 * earlier pending delivery of the same resource to the same subscription exists (order).
 */
export async function claimDelivery(
  db: Executor,
  merchantAccountId: string,
  id: string,
  now: Date,
  leaseUntil: Date,
): Promise<WebhookDeliveryRow | undefined> {
  const result = await sql<WebhookDeliveryRow>`
    UPDATE webhook_deliveries d SET next_attempt_at = ${leaseUntil}, updated_at = ${now}
    WHERE d.merchant_account_id = ${merchantAccountId} AND d.id = ${id} AND d.status = 'pending' AND d.next_attempt_at <= ${now}
      AND NOT EXISTS (
        SELECT 1 FROM webhook_deliveries e
        WHERE e.merchant_account_id = d.merchant_account_id AND e.subscription_id = d.subscription_id
          AND e.resource_id = d.resource_id AND e.status = 'pending' AND (e.created_at, e.id) < (d.created_at, d.id))
    RETURNING *`.execute(db);
  return result.rows[0];
}

/** The earliest pending delivery that comes before `d` for its resource and subscription. */
export async function earlierPending(
  db: Executor,
  d: WebhookDeliveryRow,
  options: { forUpdate?: boolean } = {},
): Promise<WebhookDeliveryRow | undefined> {
  let query = db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('merchant_account_id', '=', d.merchant_account_id)
    .where('subscription_id', '=', d.subscription_id)
    .where('resource_id', '=', d.resource_id)
    .where('status', '=', 'pending')
    .where(sql<boolean>`(created_at, id) < (${d.created_at}, ${d.id})`)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1);
  if (options.forUpdate) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The next pending delivery after `d` for its resource and subscription. */
export async function nextPending(db: Executor, d: WebhookDeliveryRow): Promise<WebhookDeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('merchant_account_id', '=', d.merchant_account_id)
    .where('subscription_id', '=', d.subscription_id)
    .where('resource_id', '=', d.resource_id)
    .where('status', '=', 'pending')
    .where(sql<boolean>`(created_at, id) > (${d.created_at}, ${d.id})`)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}

/** Moves next_attempt_at if it still holds `expected` (nobody else rescheduled it meanwhile). */
export async function reschedule(
  db: Executor,
  d: WebhookDeliveryRow,
  expected: Date | null,
  at: Date,
  now: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: at, updated_at: now })
    .where('merchant_account_id', '=', d.merchant_account_id)
    .where('id', '=', d.id)
    .where('status', '=', 'pending')
    .where('next_attempt_at', expected === null ? 'is' : '=', expected)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export interface AttemptRecord {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

export async function insertAttempt(
  db: Executor,
  d: WebhookDeliveryRow,
  attempt: AttemptRecord,
  now: Date,
): Promise<void> {
  await db
    .insertInto('webhook_delivery_attempts')
    .values({
      merchant_account_id: d.merchant_account_id,
      id: uuidv7(now.getTime()),
      delivery_id: d.id,
      status_code: attempt.statusCode,
      duration_ms: attempt.durationMs,
      error: attempt.error,
      created_at: now,
    })
    .execute();
}

export type Outcome = { status: 'succeeded' } | { status: 'failed' } | { status: 'pending'; nextAttemptAt: Date };

/** Writes the outcome of an attempt on the delivery. */
export async function finishAttempt(
  db: Executor,
  d: WebhookDeliveryRow,
  attempt: AttemptRecord,
  outcome: Outcome,
  now: Date,
): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({
      status: outcome.status,
      attempts: sql<number>`attempts + 1`,
      next_attempt_at: outcome.status === 'pending' ? outcome.nextAttemptAt : null,
      last_status_code: attempt.statusCode,
      last_error: attempt.error,
      delivered_at: outcome.status === 'succeeded' ? now : null,
      updated_at: now,
    })
    .where('merchant_account_id', '=', d.merchant_account_id)
    .where('id', '=', d.id)
    .execute();
}

export async function setStopped(db: Executor, d: WebhookDeliveryRow, reason: string, now: Date): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', next_attempt_at: null, last_error: reason, updated_at: now })
    .where('merchant_account_id', '=', d.merchant_account_id)
    .where('id', '=', d.id)
    .where('status', '=', 'pending')
    .execute();
}

export async function findDeliveryRow(
  db: Executor,
  merchantAccountId: string,
  id: string,
): Promise<WebhookDeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .executeTakeFirst();
}
