import { sql } from 'kysely';
import type { EventRow, WebhookDeliveryRow } from '../../db/schema-webhooks.ts';
import type { Executor } from '../../db/transaction.ts';
import { uuidv7 } from '../../lib/ids.ts';

/** SQL of delivery attempts: claiming a due delivery, recording its outcome, waking the next one. */

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

export type Outcome = { status: 'succeeded' } | { status: 'failed' } | { status: 'pending'; nextAttemptAt: Date };

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

/** A delivery to claim (`claimDeliveries`): the job's own clock and the end of its lease. */
export interface ClaimWanted {
  merchantAccountId: string;
  id: string;
  now: Date;
  leaseUntil: Date;
}

/** A claimed delivery and its event (null when the event no longer exists). */
export interface ClaimedDelivery {
  delivery: WebhookDeliveryRow;
  event: EventRow | null;
}

type ClaimedRow = WebhookDeliveryRow & {
  ev_id: string | null;
  ev_kind: string | null;
  ev_resource_type: string | null;
  ev_payload: EventRow['payload'] | null;
  ev_created_at: Date | null;
};

/**
 * Takes due pending deliveries for one attempt each, in one statement (decision 0156), by moving
 * next_attempt_at to the end of each one's lease (its job's own clock), so another job for the same
 * delivery does nothing meanwhile; returns each one taken with its event. A delivery is not taken
 * while an earlier pending delivery of the same resource to the same subscription exists (order). Within the statement the order check sees
 * the rows as they were before it, so of two pending deliveries of one resource only the earlier
 * is taken, as two statements would.
 */
export async function claimDeliveries(
  db: Executor,
  wanted: readonly ClaimWanted[],
): Promise<Map<string, ClaimedDelivery>> {
  const claimed = new Map<string, ClaimedDelivery>();
  if (wanted.length === 0) return claimed;
  const result = await sql<ClaimedRow>`
    WITH w AS (
      SELECT * FROM unnest(${wanted.map((x) => x.merchantAccountId)}::text[], ${wanted.map((x) => x.id)}::uuid[],
        ${wanted.map((x) => x.now.toISOString())}::timestamptz[], ${wanted.map((x) => x.leaseUntil.toISOString())}::timestamptz[])
        AS w(merchant_account_id, id, now, lease_until)
    ), c AS (
      UPDATE webhook_deliveries d SET next_attempt_at = w.lease_until, updated_at = w.now
      FROM w
      WHERE d.merchant_account_id = w.merchant_account_id AND d.id = w.id AND d.status = 'pending' AND d.next_attempt_at <= w.now
        AND NOT EXISTS (
          SELECT 1 FROM webhook_deliveries e
          WHERE e.merchant_account_id = d.merchant_account_id AND e.subscription_id = d.subscription_id
            AND e.resource_id = d.resource_id AND e.status = 'pending' AND (e.created_at, e.id) < (d.created_at, d.id))
      RETURNING d.*
    )
    SELECT c.*, ev.id AS ev_id, ev.kind AS ev_kind, ev.resource_type AS ev_resource_type, ev.payload AS ev_payload,
      ev.created_at AS ev_created_at
    FROM c LEFT JOIN events ev ON ev.merchant_account_id = c.merchant_account_id AND ev.id = c.event_id`.execute(db);
  for (const row of result.rows) {
    const { ev_id, ev_kind, ev_resource_type, ev_payload, ev_created_at, ...delivery } = row;
    const event =
      ev_id === null
        ? null
        : {
            merchant_account_id: delivery.merchant_account_id,
            id: ev_id,
            kind: ev_kind!,
            resource_type: ev_resource_type!,
            resource_id: delivery.resource_id,
            payload: ev_payload!,
            created_at: ev_created_at!,
          };
    claimed.set(`${delivery.merchant_account_id}:${delivery.id}`, { delivery, event });
  }
  return claimed;
}

/** An attempt's outcome to write (`recordAttempts`). */
export interface AttemptWrite {
  delivery: WebhookDeliveryRow;
  attempt: AttemptRecord;
  outcome: Outcome;
  now: Date;
}

/**
 * Records attempts in one statement whatever their number (decision 0156): each attempt's row, and
 * its outcome on the delivery (status, attempts + 1, next attempt, last answer, delivered_at).
 */
export async function recordAttempts(db: Executor, writes: readonly AttemptWrite[]): Promise<void> {
  if (writes.length === 0) return;
  const iso = (d: Date | null) => (d === null ? null : d.toISOString());
  const column = <T>(f: (w: AttemptWrite) => T) => writes.map(f);
  await sql`
    WITH v AS (
      SELECT * FROM unnest(${column((w) => w.delivery.merchant_account_id)}::text[], ${column((w) => w.delivery.id)}::uuid[],
        ${column((w) => w.delivery.subscription_id)}::uuid[], ${column((w) => w.delivery.resource_id)}::text[],
        ${column((w) => new Date(w.delivery.created_at).toISOString())}::timestamptz[],
        ${column((w) => uuidv7(w.now.getTime()))}::uuid[], ${column((w) => w.outcome.status)}::text[],
        ${column((w) => iso(w.outcome.status === 'pending' ? w.outcome.nextAttemptAt : null))}::timestamptz[],
        ${column((w) => w.attempt.statusCode)}::integer[], ${column((w) => w.attempt.durationMs)}::integer[],
        ${column((w) => w.attempt.error)}::text[],
        ${column((w) => iso(w.outcome.status === 'succeeded' ? w.now : null))}::timestamptz[],
        ${column((w) => w.now.toISOString())}::timestamptz[])
        AS v(merchant_account_id, id, subscription_id, resource_id, created_at, attempt_id, status, next_attempt_at,
          status_code, duration_ms, error, delivered_at, now)
    ), attempts AS (
      INSERT INTO webhook_delivery_attempts (merchant_account_id, id, delivery_id, status_code, duration_ms, error, created_at)
      SELECT merchant_account_id, attempt_id, id, status_code, duration_ms, error, now FROM v
    )
    UPDATE webhook_deliveries d SET status = v.status, attempts = d.attempts + 1, next_attempt_at = v.next_attempt_at,
      last_status_code = v.status_code, last_error = v.error, delivered_at = v.delivered_at, updated_at = v.now
    FROM v WHERE d.merchant_account_id = v.merchant_account_id AND d.id = v.id`.execute(db);
}

/**
 * The next pending delivery of each finished one's resource and subscription, in one statement,
 * by the finished delivery's id. A statement of its own after the attempts' write: it must read the
 * rows as they are once that write got its locks (a delivery rescheduled meanwhile behind the
 * finished one, `waitForEarlier`, is then seen rescheduled and woken).
 */
export async function nextPendingOf(
  db: Executor,
  finished: readonly WebhookDeliveryRow[],
): Promise<Map<string, WebhookDeliveryRow>> {
  const next = new Map<string, WebhookDeliveryRow>();
  if (finished.length === 0) return next;
  const result = await sql<WebhookDeliveryRow & { after_id: string }>`
    SELECT n.*, f.id AS after_id
    FROM unnest(${finished.map((d) => d.merchant_account_id)}::text[], ${finished.map((d) => d.id)}::uuid[],
      ${finished.map((d) => d.subscription_id)}::uuid[], ${finished.map((d) => d.resource_id)}::text[],
      ${finished.map((d) => new Date(d.created_at).toISOString())}::timestamptz[])
      AS f(merchant_account_id, id, subscription_id, resource_id, created_at)
    CROSS JOIN LATERAL (
      SELECT * FROM webhook_deliveries e
      WHERE e.merchant_account_id = f.merchant_account_id AND e.subscription_id = f.subscription_id
        AND e.resource_id = f.resource_id AND e.status = 'pending' AND (e.created_at, e.id) > (f.created_at, f.id)
      ORDER BY e.created_at, e.id LIMIT 1) n`.execute(db);
  for (const { after_id, ...row } of result.rows) next.set(after_id, row);
  return next;
}
