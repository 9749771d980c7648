import type { Compilable } from 'kysely';
import type { Deps } from '../../context.ts';
import { runWrites } from '../../db/write-batch.ts';
import type { Executor, Tx } from '../../db/transaction.ts';
import type { WebhookSubscriptionRow } from '../../db/schema-webhooks.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { activeSubscriptions } from '../webhook-subscriptions/webhook-subscriptions.service.ts';
import { insertDeliveriesQuery, insertEventQuery, type NewDelivery } from './events.repo.ts';

export interface NewEvent {
  merchantAccountId: string;
  kind: string;
  resourceType: string;
  resourceId: string;
  /**
   * The resource as it is now, already masked like a response without PII scopes; a function is
   * called only when the event is written (a subscription is active).
   */
  payload: Record<string, unknown> | (() => Record<string, unknown> | Promise<Record<string, unknown>>);
}

/** Deliveries are retried for at least this long after the event (docs/webhooks.md). */
export const GIVE_UP_AFTER_MS = 24 * 3600 * 1000;

/**
 * Outbox: the event, one pending delivery per active subscription and their jobs, written in the
 * caller's transaction. No event exists without its change, nor a change without the deliveries
 * of its event. An event is written only for its deliveries: a merchant account without an active
 * subscription writes nothing (the event would never be read: no route lists events, and a
 * subscription made later receives the events after it), which was 1.9 kB of WAL per
 * authorization (decision 0148). The payload, when a function, is rendered only then.
 * `eventWrites` reads the subscriptions and returns the inserts, for a caller that runs them with
 * its own writes in one round trip (src/db/write-batch.ts; when there are any, call
 * `deps.queue.pokeSoon()` after); `emitEvent` runs them at once. Outside a database transaction (`tx` is `deps.db`) the select
 * comes from the process's cache.
 * A caller inside a transaction that wants the cached ones reads them before it begins
 * (`activeSubscriptions(deps.db, …)`) and passes them as `subscriptions`: a cache miss loads on
 * the pool, and a pool read inside a transaction can wait for ever for a connection the
 * transactions hold (PGlite's only one, or all of a pool's).
 */
export async function eventWrites(
  tx: Executor,
  deps: Deps,
  event: NewEvent,
  subscriptions?: readonly WebhookSubscriptionRow[],
): Promise<Array<Compilable<unknown>>> {
  // Times come from this process, not the database's now(): deliveries of a resource are ordered
  // by (created_at, id), and ids from uuidv7 are strictly increasing within the process.
  const active = subscriptions ?? (await activeSubscriptions(tx, deps, event.merchantAccountId));
  if (active.length === 0) return [];
  const now = new Date();
  const eventId = uuidv7(now.getTime());
  const payload = typeof event.payload === 'function' ? await event.payload() : event.payload;
  const writes: Array<Compilable<unknown>> = [
    insertEventQuery(tx, {
      merchant_account_id: event.merchantAccountId,
      id: eventId,
      kind: event.kind,
      resource_type: event.resourceType,
      resource_id: event.resourceId,
      payload,
      created_at: now,
    }),
  ];
  const giveUpAt = new Date(now.getTime() + GIVE_UP_AFTER_MS);
  const deliveries: NewDelivery[] = active.map((s) => ({
    merchant_account_id: event.merchantAccountId,
    id: uuidv7(now.getTime()),
    subscription_id: s.id,
    event_id: eventId,
    resource_id: event.resourceId,
    give_up_at: giveUpAt,
    next_attempt_at: now,
    created_at: now,
    updated_at: now,
  }));
  writes.push(insertDeliveriesQuery(tx, deliveries));
  for (const d of deliveries) {
    writes.push(
      deps.queue.enqueueQuery(
        tx,
        'deliver-webhook',
        { merchant_account_id: d.merchant_account_id, delivery_id: d.id },
        { jobKey: `deliver-webhook:${d.id}`, runAt: now },
      ),
    );
  }
  return writes;
}

export async function emitEvent(tx: Tx, deps: Deps, event: NewEvent): Promise<void> {
  const writes = await eventWrites(tx, deps, event);
  if (writes.length === 0) return;
  await runWrites(tx, writes);
  deps.queue.pokeSoon();
}
