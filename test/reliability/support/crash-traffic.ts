import { randomUUID } from 'node:crypto';

/** An operation the server answered with a 2xx: what it said, to check after the crashes. */
export interface Answered {
  op: 'authorize' | 'capture' | 'refund' | 'payout';
  /** The resource the answer is about (a transaction, refund or payout). */
  id: string;
  transactionId: string | null;
  status: string;
  amount: number;
}

export interface TrafficTarget {
  /** The current server's base URL (it changes when the server restarts). */
  baseUrl(): string;
  token: string;
  merchantAccountId: string;
  paymentServiceId: string;
}

export interface TrafficCounts {
  sent: number;
  answered: number;
  /** Connection refused or reset: the server was down or died mid-request. */
  unanswered: number;
  /** 4xx answers by status (e.g. 425 for a key whose first request is still recorded as in flight). */
  refused: Record<string, number>;
  /** 5xx answers other than 503 while closing. */
  serverErrors: string[];
}

const card = { method: 'card', number: '4111111111111111', expiration_date: '12/40', security_code: '123' };

/**
 * One client: authorize → capture → partial refund → payout, again and again, each request with an
 * idempotency key, retried with the same key while the server is down (as a careful client does),
 * until `stop()` is true. Every 2xx answer is recorded.
 */
export async function runClient(
  target: TrafficTarget,
  answered: Answered[],
  counts: TrafficCounts,
  stop: () => boolean,
): Promise<void> {
  while (!stop()) {
    const auth = await call(target, counts, stop, 'POST', '/transactions', {
      amount: 1000,
      currency: 'USD',
      payment_method: card,
    });
    if (!auth) continue;
    answered.push({ op: 'authorize', id: auth.id, transactionId: auth.id, status: auth.status, amount: 1000 });
    if (auth.status !== 'authorization_succeeded') continue;
    const captured = await call(target, counts, stop, 'POST', `/transactions/${auth.id}/capture`, {});
    if (!captured) continue;
    answered.push({
      op: 'capture',
      id: auth.id,
      transactionId: auth.id,
      status: captured.transaction.status,
      amount: captured.transaction.captured_amount,
    });
    const refund = await call(target, counts, stop, 'POST', `/transactions/${auth.id}/refunds`, { amount: 300 });
    if (refund)
      answered.push({ op: 'refund', id: refund.id, transactionId: auth.id, status: refund.status, amount: 300 });
    const payout = await call(target, counts, stop, 'POST', '/payouts', {
      amount: 500,
      currency: 'USD',
      payment_service_id: target.paymentServiceId,
      payment_method: { method: 'card', number: '4111111111111111', expiration_date: '12/40' },
    });
    if (payout) answered.push({ op: 'payout', id: payout.id, transactionId: null, status: payout.status, amount: 500 });
  }
}

async function call(
  target: TrafficTarget,
  counts: TrafficCounts,
  stop: () => boolean,
  method: string,
  path: string,
  body: unknown,
): Promise<any | null> {
  const key = randomUUID();
  counts.sent += 1;
  for (;;) {
    try {
      const res = await fetch(`${target.baseUrl()}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${target.token}`,
          'content-type': 'application/json',
          'idempotency-key': key,
          'x-svc-merchant-account-id': target.merchantAccountId,
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      if (res.status >= 200 && res.status < 300) {
        counts.answered += 1;
        return JSON.parse(text);
      }
      if (res.status === 503) throw new Error('closing');
      if (res.status >= 500) counts.serverErrors.push(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
      else counts.refused[res.status] = (counts.refused[res.status] ?? 0) + 1;
      return null;
    } catch {
      // Down or killed mid-request: the same key again once it is back, unless the run is over.
      if (stop()) {
        counts.unanswered += 1;
        return null;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}
