import type { Deps } from '../../context.ts';
import type { EventRow, WebhookDeliveryRow, WebhookSubscriptionRow } from '../../db/schema-webhooks.ts';
import { withTransaction, type Executor } from '../../db/transaction.ts';
import { privateTargetsPolicy, resolveDeliveryAddress } from '../../lib/url-safety.ts';
import type { WebhookAttemptOutcome } from '../../observability/metrics.ts';
import {
  activeSubscriptions,
  basicAuthOf,
  findSubscription,
  signingSecrets,
} from '../webhook-subscriptions/webhook-subscriptions.service.ts';
import * as repo from './deliveries.repo.ts';
import { GroupedCalls } from '../../lib/grouped-calls.ts';
import { signatures } from './signatures.ts';
import { postWebhook } from './webhook-http.ts';

/** A claimed delivery is left alone by other jobs this long: above the 10 s total HTTP timeout. */
export const LEASE_MS = 60_000;
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

/** A sent attempt to record (`recordGroup`). */
export interface AttemptToRecord {
  delivery: WebhookDeliveryRow;
  result: SendResult;
  now: Date;
}

/**
 * Deliveries' statements grouped across the jobs running at once in this process (decision 0156):
 * their claims (with their events) in one statement, their outcomes in one transaction. Each job
 * still sends its own request and waits until its outcome is committed before it succeeds.
 */
interface Groups {
  claims: GroupedCalls<repo.ClaimWanted, repo.ClaimedDelivery | undefined>;
  records: GroupedCalls<AttemptToRecord, WebhookAttemptOutcome>;
}

/** Deliveries grouped in one statement at most: above the network slots of one worker (JOB_NETWORK_CONCURRENCY, default 128). */
const GROUP_SIZE = 200;
const groups = new WeakMap<Deps, Groups>();

function groupsOf(deps: Deps): Groups {
  let g = groups.get(deps);
  if (!g) {
    g = {
      claims: new GroupedCalls(async (wanted) => {
        const claimed = await repo.claimDeliveries(deps.db, wanted);
        // Two jobs of one delivery in one group: the delivery is taken once, by the first (the
        // other finds it leased, as it would after the first's own statement).
        return wanted.map((w) => {
          const key = `${w.merchantAccountId}:${w.id}`;
          const value = claimed.get(key);
          claimed.delete(key);
          return { status: 'fulfilled', value };
        });
      }, GROUP_SIZE),
      records: new GroupedCalls((items) => recordGroup(deps, items), GROUP_SIZE),
    };
    groups.set(deps, g);
  }
  return g;
}

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
  const { claims, records } = groupsOf(deps);
  const claimed = await claims.call({
    merchantAccountId,
    id: deliveryId,
    now,
    leaseUntil: new Date(now.getTime() + LEASE_MS),
  });
  if (!claimed) return waitForEarlier(deps, merchantAccountId, deliveryId, now);
  const result = await send(deps, claimed.delivery, claimed.event, now);
  const finishedAt = new Date(now.getTime() + ('stop' in result ? 0 : result.durationMs));
  const outcome = await records.call({ delivery: claimed.delivery, result, now: finishedAt });
  deps.metrics.webhookAttempt(outcome);
}

/**
 * Records the attempts of a group (decision 0156). When every attempt of it finished its delivery
 * (the common case: sent and answered 2xx), that is one statement (`repo.recordAttempts`), then
 * one that looks for the deliveries waiting for them, woken if any. Otherwise (a retry to enqueue, a stop) one
 * transaction holds it all (`recordMany`). When the group's write fails (it wrote nothing), each
 * attempt is recorded alone in a transaction of its own, one after the other, so only an attempt
 * that fails alone fails (its job is retried after the delivery's lease and attempts it again).
 */
export async function recordGroup(
  deps: Deps,
  items: readonly AttemptToRecord[],
): Promise<Array<PromiseSettledResult<WebhookAttemptOutcome>>> {
  const plan = planOf(items);
  try {
    if (plan.retries.length > 0 || plan.stops.length > 0) {
      await withTransaction(deps.db, (tx) => recordMany(tx, deps, plan));
    } else {
      await repo.recordAttempts(deps.db, plan.writes);
      await wakeFollowing(deps, plan).catch(() => {
        // Recorded: not to be recorded again. A delivery left unwoken still has its own job, due
        // at most a lease (60 s) after the attempt it waited for.
      });
    }
    return plan.outcomes.map((value) => ({ status: 'fulfilled', value }));
  } catch (error) {
    if (items.length === 1) return [{ status: 'rejected', reason: error }];
  }
  const settled: Array<PromiseSettledResult<WebhookAttemptOutcome>> = [];
  for (const item of items) {
    try {
      settled.push({
        status: 'fulfilled',
        value: await withTransaction(deps.db, async (tx) => {
          const plan = planOf([item]);
          await recordMany(tx, deps, plan);
          return plan.outcomes[0]!;
        }),
      });
    } catch (reason) {
      settled.push({ status: 'rejected', reason });
    }
  }
  return settled;
}

/** What recording a group writes: each attempt's outcome, as `record` works it out for one. */
interface RecordPlan {
  outcomes: WebhookAttemptOutcome[];
  writes: repo.AttemptWrite[];
  retries: Array<{ delivery: WebhookDeliveryRow; at: Date }>;
  stops: Array<{ delivery: WebhookDeliveryRow; reason: string; now: Date }>;
}

function planOf(items: readonly AttemptToRecord[]): RecordPlan {
  const plan: RecordPlan = { outcomes: [], writes: [], retries: [], stops: [] };
  for (const { delivery: d, result, now } of items) {
    if ('stop' in result) {
      plan.stops.push({ delivery: d, reason: result.stop, now });
      plan.outcomes.push('stopped');
    } else if (isSuccess(result.statusCode) || now >= d.give_up_at) {
      const status = isSuccess(result.statusCode) ? 'succeeded' : 'failed';
      plan.writes.push({ delivery: d, attempt: result, outcome: { status }, now });
      plan.outcomes.push(status);
    } else {
      const next = new Date(Math.min(now.getTime() + retryDelayMs(d.attempts + 1), new Date(d.give_up_at).getTime()));
      plan.writes.push({ delivery: d, attempt: result, outcome: { status: 'pending', nextAttemptAt: next }, now });
      plan.retries.push({ delivery: d, at: next });
      plan.outcomes.push('retrying');
    }
  }
  return plan;
}

/** A group in one transaction: its attempts in one statement, then each retry's job, each stop and each wake-up. */
async function recordMany(tx: Executor, deps: Deps, plan: RecordPlan): Promise<void> {
  await repo.recordAttempts(tx, plan.writes);
  for (const { delivery, at } of plan.retries) await scheduleAttempt(tx, deps, delivery, at);
  for (const { delivery, reason, now } of plan.stops) await recordStop(tx, deps, delivery, reason, now);
  await wakeAll(tx, deps, plan, await repo.nextPendingOf(tx, finishedOf(plan)));
}

/** The deliveries the group's attempts finished (succeeded, or failed for good). */
const finishedOf = (plan: RecordPlan) =>
  plan.writes.filter((w) => w.outcome.status !== 'pending').map((w) => w.delivery);

/** The deliveries that waited for the group's finished ones go now (one transaction, when there are any). */
async function wakeFollowing(deps: Deps, plan: RecordPlan): Promise<void> {
  const following = await repo.nextPendingOf(deps.db, finishedOf(plan));
  if (following.size > 0) await withTransaction(deps.db, (tx) => wakeAll(tx, deps, plan, following));
}

async function wakeAll(
  tx: Executor,
  deps: Deps,
  plan: RecordPlan,
  following: Map<string, WebhookDeliveryRow>,
): Promise<void> {
  for (const { delivery, now } of plan.writes) {
    const next = following.get(delivery.id);
    if (next) await wake(tx, deps, next, now);
  }
}

async function waitForEarlier(deps: Deps, merchantAccountId: string, deliveryId: string, now: Date): Promise<void> {
  const d = await repo.findDeliveryRow(deps.db, merchantAccountId, deliveryId);
  if (d?.status !== 'pending' || !d.next_attempt_at || d.next_attempt_at > now) return;
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

/**
 * The delivery's subscription: from this process's cache of the account's active subscriptions
 * (`activeSubscriptions`, invalidated on every change, here at once and elsewhere through the
 * change feed), read from the database only when it is not among them (deleted or inactive).
 */
async function subscriptionOf(deps: Deps, d: WebhookDeliveryRow): Promise<WebhookSubscriptionRow | null> {
  const active = await activeSubscriptions(deps.db, deps, d.merchant_account_id);
  return (
    active.find((s) => s.id === d.subscription_id) ??
    findSubscription(deps.db, d.merchant_account_id, d.subscription_id)
  );
}

async function send(deps: Deps, d: WebhookDeliveryRow, event: EventRow | null, now: Date): Promise<SendResult> {
  const sub = await subscriptionOf(deps, d);
  if (!sub) return { stop: 'the subscription was deleted' };
  if (!sub.active) return { stop: 'the subscription is inactive' };
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

/** Records a stop (the subscription or event is gone): the delivery fails, and the next one of its resource goes at once. */
async function recordStop(tx: Executor, deps: Deps, d: WebhookDeliveryRow, reason: string, now: Date): Promise<void> {
  await repo.setStopped(tx, d, reason, now);
  const next = (await repo.nextPendingOf(tx, [d])).get(d.id);
  if (next) await wake(tx, deps, next, now);
}

/** Lets `next`, the delivery after a finished one, go now unless it already may. */
async function wake(tx: Executor, deps: Deps, next: WebhookDeliveryRow, now: Date): Promise<void> {
  if (next.next_attempt_at && next.next_attempt_at <= now) return;
  if (await repo.reschedule(tx, next, next.next_attempt_at, now, now)) await scheduleAttempt(tx, deps, next, now);
}
