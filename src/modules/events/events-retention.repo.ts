import { sql } from 'kysely';
import type { Executor } from '../../db/transaction.ts';

/** SQL of the webhook events' retention purge (events-retention.service.ts). */

export interface EventKey {
  merchant_account_id: string;
  id: string;
}

/**
 * Up to `batch` events of every merchant account whose id is below `floorId` (their ids are
 * UUIDv7 of their creation: older than the floor's moment) and that have no pending delivery.
 * Each account's events are found by their primary key, from its oldest.
 */
export function finishedEventsBeforeQuery(floorId: string, batch: number) {
  return sql<EventKey>`
    SELECT e.merchant_account_id, e.id
    FROM merchant_accounts m
    CROSS JOIN LATERAL (
      SELECT e.merchant_account_id, e.id FROM events e
      WHERE e.merchant_account_id = m.id AND e.id < ${floorId}::uuid
        AND NOT EXISTS (
          SELECT 1 FROM webhook_deliveries d
          WHERE d.merchant_account_id = e.merchant_account_id AND d.event_id = e.id AND d.status = 'pending'
        )
      ORDER BY e.id
      LIMIT ${batch}
    ) e
    LIMIT ${batch}`;
}

export async function findFinishedEventsBefore(db: Executor, floorId: string, batch: number): Promise<EventKey[]> {
  return (await finishedEventsBeforeQuery(floorId, batch).execute(db)).rows;
}

const keys = (events: readonly EventKey[]) => sql`unnest(${events.map((e) => e.merchant_account_id)}::text[],
  ${events.map((e) => e.id)}::uuid[]) AS k(merchant_account_id, id)`;

/**
 * Deletes the ended deliveries of `events` (their attempts go with them: ON DELETE CASCADE). A
 * delivery sent again meanwhile is pending and stays; its event then stays too.
 */
export function deleteEndedDeliveriesQuery(events: readonly EventKey[]) {
  return sql`
    DELETE FROM webhook_deliveries d USING ${keys(events)}
    WHERE d.merchant_account_id = k.merchant_account_id AND d.event_id = k.id AND d.status <> 'pending'`;
}

export async function deleteEndedDeliveries(db: Executor, events: readonly EventKey[]): Promise<number> {
  return Number((await deleteEndedDeliveriesQuery(events).execute(db)).numAffectedRows ?? 0);
}

/** Deletes those of `events` that no delivery refers to any more; returns how many. */
export function deleteEventsWithoutDeliveriesQuery(events: readonly EventKey[]) {
  return sql`
    DELETE FROM events e USING ${keys(events)}
    WHERE e.merchant_account_id = k.merchant_account_id AND e.id = k.id
      AND NOT EXISTS (
        SELECT 1 FROM webhook_deliveries d WHERE d.merchant_account_id = e.merchant_account_id AND d.event_id = e.id
      )`;
}

export async function deleteEventsWithoutDeliveries(db: Executor, events: readonly EventKey[]): Promise<number> {
  return Number((await deleteEventsWithoutDeliveriesQuery(events).execute(db)).numAffectedRows ?? 0);
}
