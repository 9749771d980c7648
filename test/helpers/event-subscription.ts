import { expect } from 'vitest';
import type { TestApp } from './build-test-app.ts';

/** A receiver nobody answers (the discard port): its deliveries fail and wait for their retry. */
export const UNANSWERED_RECEIVER = 'http://127.0.0.1:9/hooks';

/**
 * An active webhook subscription of the merchant account, made through `POST /webhook-subscriptions`.
 * Events are written only for a merchant account with one (docs/webhooks.md, "Outbox"): a test that
 * reads the `events` table subscribes first. The test app runs no queue worker; a test that drains
 * the queue and wants the deliveries passes a receiver's URL (test/helpers/webhook-receiver.ts).
 */
export async function subscribeToEvents(
  t: Pick<TestApp, 'request'>,
  merchantAccountId: string,
  url = UNANSWERED_RECEIVER,
): Promise<{ id: string }> {
  const res = await t.request({ method: 'POST', url: '/webhook-subscriptions', merchantAccountId, payload: { url } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}
