import type { EventRow } from '../../db/schema-webhooks.ts';
import { insertQuery } from '../../db/insert-query.ts';
import type { Executor } from '../../db/transaction.ts';

/** SQL of the event outbox (events and their pending deliveries). */

export function insertEventQuery(db: Executor, row: Omit<EventRow, 'payload'> & { payload: Record<string, unknown> }) {
  return insertQuery(db, 'events', { ...row, payload: JSON.stringify(row.payload) });
}

export interface NewDelivery {
  merchant_account_id: string;
  id: string;
  subscription_id: string;
  event_id: string;
  resource_id: string;
  give_up_at: Date;
  next_attempt_at: Date;
  created_at: Date;
  updated_at: Date;
}

/** One statement for all the deliveries of an event. */
/** `rows` must not be empty. */
export function insertDeliveriesQuery(db: Executor, rows: NewDelivery[]) {
  return insertQuery(
    db,
    'webhook_deliveries',
    rows.map((r) => ({ ...r, status: 'pending' as const })),
  );
}

export async function findEvent(db: Executor, merchantAccountId: string, id: string): Promise<EventRow | undefined> {
  return db
    .selectFrom('events')
    .selectAll()
    .where('merchant_account_id', '=', merchantAccountId)
    .where('id', '=', id)
    .executeTakeFirst();
}
