import type { Answered } from './crash-traffic.ts';

export type Get = (path: string) => Promise<{ status: number; json: any }>;

/** Statuses a resource may have moved on to after the answered one (later operations, reconciliation). */
const LATER: Record<string, string[]> = {
  authorization_succeeded: ['authorization_succeeded', 'capture_pending', 'capture_succeeded'],
  capture_pending: ['capture_pending', 'capture_succeeded'],
  capture_succeeded: ['capture_succeeded'],
  processing: ['processing', 'succeeded', 'failed', 'declined'],
  pending: ['pending', 'processing', 'succeeded', 'failed', 'declined'],
  succeeded: ['succeeded'],
};

/** A transaction answered `processing` (a retry resumed it after a crash): reconciliation settles it. */
const LATER_TRANSACTION: Record<string, string[]> = {
  processing: [
    'processing',
    'authorization_succeeded',
    'capture_pending',
    'capture_succeeded',
    'authorization_declined',
    'authorization_failed',
  ],
};

const WEBHOOK_KIND: Record<Answered['op'], (a: Answered) => string> = {
  authorize: () => 'transaction.created',
  capture: () => 'transaction.captured',
  refund: () => 'refund.created',
  payout: (a) => `payout.${a.status}`,
};

const PATH: Record<Answered['op'], (a: Answered) => string> = {
  authorize: (a) => `/transactions/${a.id}`,
  capture: (a) => `/transactions/${a.id}`,
  refund: (a) => `/refunds/${a.id}`,
  payout: (a) => `/payouts/${a.id}`,
};

export interface Verdict {
  answered: number;
  missing: string[];
  mismatched: string[];
}

async function allAuditIds(get: Get): Promise<Set<string>> {
  const ids = new Set<string>();
  let cursor: string | null = null;
  do {
    const page: { json: { items: Array<{ resource: { id: string } }>; next_cursor: string | null } } = await get(
      `/audit-logs?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    for (const item of page.json.items) ids.add(item.resource.id);
    cursor = page.json.next_cursor;
  } while (cursor);
  return ids;
}

/**
 * Every answered operation: its resource exists (else missing), in the answered state or one it may
 * have moved on to, with history (transactions), an audit entry and its webhook event delivered
 * (else mismatched).
 */
export async function verifyAnswered(
  get: Get,
  answered: Answered[],
  delivered: Array<{ kind: string; resourceId: string }>,
): Promise<Verdict> {
  const verdict: Verdict = { answered: answered.length, missing: [], mismatched: [] };
  const audited = await allAuditIds(get);
  const kinds = new Set(delivered.map((d) => `${d.kind} ${d.resourceId}`));
  for (const a of answered) {
    const label = `${a.op} ${a.id} answered ${a.status}`;
    const res = await get(PATH[a.op](a));
    if (res.status === 404) {
      verdict.missing.push(label);
      continue;
    }
    const now = res.json.status as string;
    const problems: string[] = [];
    const later = (a.op === 'authorize' ? LATER_TRANSACTION[a.status] : undefined) ?? LATER[a.status] ?? [a.status];
    if (!later.includes(now)) problems.push(`is now ${now}`);
    // Each client refunds a transaction once: a second refund is a retry that ran again (issue 48).
    if (a.op === 'refund') {
      const refunds = await get(`/transactions/${a.transactionId}/refunds`);
      if (refunds.json.items.length !== 1) problems.push(`${refunds.json.items.length} refunds for one refund request`);
    }
    if (a.op === 'capture' && res.json.captured_amount < a.amount)
      problems.push(`captured ${res.json.captured_amount} < ${a.amount}`);
    if (a.transactionId && a.op !== 'refund') {
      const history = await get(`/transactions/${a.transactionId}/events?limit=100`);
      if (history.status !== 200 || history.json.items.length === 0) problems.push('no history');
    }
    if (!audited.has(a.id)) problems.push('no audit entry');
    if (!kinds.has(`${WEBHOOK_KIND[a.op](a)} ${a.id}`)) problems.push(`no ${WEBHOOK_KIND[a.op](a)} webhook delivered`);
    if (problems.length > 0) verdict.mismatched.push(`${label}: ${problems.join(', ')}`);
  }
  return verdict;
}
