import type { Deps } from '../../context.ts';
import type { EventRow, WebhookDeliveryRow, WebhookSubscriptionRow } from '../../db/schema-webhooks.ts';
import { withTransaction, type Executor } from '../../db/transaction.ts';
import { privateTargetsPolicy, resolveDeliveryAddress } from '../../lib/url-safety.ts';
import type { WebhookAttemptOutcome } from '../../observability/metrics.ts';
import {
  basicAuthOf,
  findSubscription,
  signingSecrets,
} from '../webhook-subscriptions/webhook-subscriptions.service.ts';
import * as repo from './deliveries.repo.ts';
import { findEvent } from './events.repo.ts';
import { signatures } from './signatures.ts';
import { postWebhook } from './webhook-http.ts';

/** A claimed delivery is left alone by other jobs this long: above the 10 s total HTTP timeout. */
const LEASE_MS = 60_000;
/** A delivery waiting for an earlier one of its resource looks again this long after that one's next attempt. */
const ORDER_WAIT_MS = 1_000;
const HOUR_MS = 3_600_000;
const USER_AGENT = 'svc-payments-webhooks/1';

/**
 * Delay before the retry that follows `attempts` failed attempts: 30 s doubling up to one hour,
 * ±20 % jitter so deliveries that failed together (a receiver outage) do not retry together.
 * Attempts go on until give_up_at (24 h after the event): about 30 attempts.
 */
export function retryDelayMs(attempts: number, random: () => number = Math.random): number {
  const base = Math.min(HOUR_MS, 30_000 * 2 ** Math.max(0, attempts - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** Enqueues the job of a delivery's next attempt (the key names the time, so a reschedule is not deduplicated away). */
export async function scheduleAttempt(
  db: Executor,
  deps: Deps,
  d: { merchant_account_id: string; id: string },
  at: Date,
): Promise<void> {
  await deps.queue.enqueue(
    db,
    'deliver-webhook',
    { merchant_account_id: d.merchant_account_id, delivery_id: d.id },
    { jobKey: `deliver-webhook:${d.id}:${at.getTime()}`, runAt: at },
  );
}

/** The JSON body sent to receivers (docs/webhooks.md, "Envelope"). */
export function envelope(event: EventRow): Record<string, unknown> {
  return {
    id: event.id,
    type: 'event',
    kind: event.kind,
    created_at: new Date(event.created_at).toISOString(),
    merchant_account_id: event.merchant_account_id,
    resource: { type: event.resource_type, id: event.resource_id },
    payload: event.payload,
  };
}

type SendResult = repo.AttemptRecord | { stop: string };

/**
 * One attempt of the job `deliver-webhook`. Idempotent: a delivery that is not pending, not due, or
 * being attempted by another job is left alone; one blocked by an earlier delivery of its resource
 * waits for it.
 */
export async function attemptDelivery(
  deps: Deps,
  merchantAccountId: string,
  deliveryId: string,
  now: Date,
): Promise<void> {
  const claimed = await repo.claimDelivery(
    deps.db,
    merchantAccountId,
    deliveryId,
    now,
    new Date(now.getTime() + LEASE_MS),
  );
  if (!claimed) return waitForEarlier(deps, merchantAccountId, deliveryId, now);
  const result = await send(deps, claimed, now);
  const finishedAt = new Date(now.getTime() + ('stop' in result ? 0 : result.durationMs));
  const outcome = await withTransaction(deps.db, (tx) => record(tx, deps, claimed, result, finishedAt));
  deps.metrics.webhookAttempt(outcome);
}

async function waitForEarlier(deps: Deps, merchantAccountId: string, deliveryId: string, now: Date): Promise<void> {
  const d = await repo.findDeliveryRow(deps.db, merchantAccountId, deliveryId);
  if (!d || d.status !== 'pending' || !d.next_attempt_at || d.next_attempt_at > now) return;
  await withTransaction(deps.db, async (tx) => {
    // Locking the earlier delivery waits for an attempt of it that is being recorded: once it has
    // finished, this one goes at once. Without the lock, its wake-up of this delivery could come
    // before this reschedule and be lost, leaving this delivery a needless second behind.
    const earlier = await repo.earlierPending(tx, d, { forUpdate: true });
    const after = earlier?.next_attempt_at && earlier.next_attempt_at > now ? earlier.next_attempt_at : now;
    // Later than the current job's time: its job key (delivery id + time) must not be that job's own.
    const at = earlier
      ? new Date(after.getTime() + ORDER_WAIT_MS)
      : new Date(Math.max(now.getTime(), d.next_attempt_at!.getTime() + 1));
    if (await repo.reschedule(tx, d, d.next_attempt_at, at, now)) await scheduleAttempt(tx, deps, d, at);
  });
}

async function send(deps: Deps, d: WebhookDeliveryRow, now: Date): Promise<SendResult> {
  const sub = await findSubscription(deps.db, d.merchant_account_id, d.subscription_id);
  if (!sub) return { stop: 'the subscription was deleted' };
  if (!sub.active) return { stop: 'the subscription is inactive' };
  const event = await findEvent(deps.db, d.merchant_account_id, d.event_id);
  if (!event) return { stop: 'the event no longer exists' };
  const policy = privateTargetsPolicy(
    deps.config.environment === 'production',
    deps.config.webhookAllowPrivateUrls,
    'WEBHOOK_ALLOW_PRIVATE_URLS',
  );
  const target = await resolveDeliveryAddress(sub.url, policy);
  if (!target.ok) return { statusCode: null, durationMs: 0, error: `refused: ${target.problem}` };
  const body = JSON.stringify(envelope(event));
  const headers = await requestHeaders(deps, sub, body, now);
  const outcome = await postWebhook({
    url: new URL(sub.url),
    address: target.address,
    family: target.family,
    headers,
    body,
  });
  return { ...outcome, error: outcome.error ?? (isSuccess(outcome.statusCode) ? null : `HTTP ${outcome.statusCode}`) };
}

async function requestHeaders(
  deps: Deps,
  sub: WebhookSubscriptionRow,
  body: string,
  now: Date,
): Promise<Record<string, string>> {
  const timestamp = Math.floor(now.getTime() / 1000);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-svc-webhook-timestamp': String(timestamp),
    'x-svc-webhook-signatures': signatures(await signingSecrets(deps.db, deps, sub, now), timestamp, body),
  };
  const auth = await basicAuthOf(deps.db, deps, sub);
  if (auth) headers.authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
  return headers;
}

function isSuccess(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}

/** Records the attempt and its outcome; a finished delivery lets the next one of its resource go at once. */
async function record(
  tx: Executor,
  deps: Deps,
  d: WebhookDeliveryRow,
  result: SendResult,
  now: Date,
): Promise<WebhookAttemptOutcome> {
  if ('stop' in result) {
    await repo.setStopped(tx, d, result.stop, now);
    await wakeNext(tx, deps, d, now);
    return 'stopped';
  }
  await repo.insertAttempt(tx, d, result, now);
  if (isSuccess(result.statusCode) || now >= d.give_up_at) {
    const status = isSuccess(result.statusCode) ? 'succeeded' : 'failed';
    await repo.finishAttempt(tx, d, result, { status }, now);
    await wakeNext(tx, deps, d, now);
    return status;
  }
  const giveUpAt = new Date(d.give_up_at);
  const next = new Date(Math.min(now.getTime() + retryDelayMs(d.attempts + 1), giveUpAt.getTime()));
  await repo.finishAttempt(tx, d, result, { status: 'pending', nextAttemptAt: next }, now);
  await scheduleAttempt(tx, deps, d, next);
  return 'retrying';
}

async function wakeNext(tx: Executor, deps: Deps, d: WebhookDeliveryRow, now: Date): Promise<void> {
  const next = await repo.nextPending(tx, d);
  if (!next || (next.next_attempt_at && next.next_attempt_at <= now)) return;
  if (await repo.reschedule(tx, next, next.next_attempt_at, now, now)) await scheduleAttempt(tx, deps, next, now);
}
