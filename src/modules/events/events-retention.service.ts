import type { Deps } from '../../context.ts';
import { nextTurn } from '../../db/session-lanes.ts';
import { withTransaction } from '../../db/transaction.ts';
import { uuidv7Floor } from '../../lib/ids.ts';
import * as repo from './events-retention.repo.ts';

const DAY_MS = 24 * 3600 * 1000;
/** Events purged per transaction: a backlog goes in short transactions, not one long one. */
export const PURGE_BATCH = 1_000;
/**
 * On PGlite each batch holds the process's only session, and every request waits behind it: 200
 * events a batch, and a turn of the event loop between batches (decision 0160's rule for upkeep).
 */
export const EMBEDDED_PURGE_BATCH = 200;

export interface PurgedEvents {
  events: number;
  deliveries: number;
}

/**
 * Forgets the webhook events made more than WEBHOOK_EVENT_RETENTION_DAYS ago, with their ended
 * deliveries and those deliveries' attempts (decision 0161). An event one of whose deliveries is
 * still pending stays until that delivery ends (a worker stopped for longer than the retention),
 * and so does a delivery sent again (`POST …/retry`) while the purge ran. Batch by batch, each in
 * its own transaction, until a batch finds nothing more.
 */
export async function purgeOldWebhookEvents(
  deps: Deps,
  now: Date,
  batch = deps.dbKind === 'pglite' ? EMBEDDED_PURGE_BATCH : PURGE_BATCH,
): Promise<PurgedEvents> {
  const floorId = uuidv7Floor(now.getTime() - deps.config.webhookEventRetentionDays * DAY_MS);
  const total: PurgedEvents = { events: 0, deliveries: 0 };
  for (;;) {
    const done = await withTransaction(deps.db, async (tx) => {
      const events = await repo.findFinishedEventsBefore(tx, floorId, batch);
      if (events.length === 0) return null;
      const deliveries = await repo.deleteEndedDeliveries(tx, events);
      return { events: await repo.deleteEventsWithoutDeliveries(tx, events), deliveries };
    });
    if (done === null) return total;
    total.events += done.events;
    total.deliveries += done.deliveries;
    // Every event found was kept (all sent again meanwhile): the next batch would find them again.
    if (done.events === 0) return total;
    await nextTurn();
  }
}
