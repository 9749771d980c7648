/**
 * A transaction's attempts per payment service, read from its history events: each connector call
 * is an event whose context names the attempt (`attempt_id`), the operation, the outcome and the
 * payment service it went to (src/modules/transactions/transaction-events.ts). A refund's event
 * names no service: it went to the transaction's own.
 */

export interface HistoryEvent {
  id: string;
  name: string;
  created_at: string;
  context: Record<string, unknown>;
}

export interface Attempt {
  attemptId: string;
  operation: string;
  amount: number | null;
  outcome: string;
  errorCode: string | null;
  durationMs: number | null;
  at: string;
}

export interface ServiceAttempts {
  paymentServiceId: string | null;
  attempts: Attempt[];
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
const num = (value: unknown): number | null => (typeof value === 'number' ? value : null);

/**
 * The connector calls of `events` grouped by payment service, in the order each service was first
 * called, each group oldest first; a call seen twice (its answer came later) keeps its last state.
 */
export function attemptsByService(
  events: readonly HistoryEvent[],
  fallbackServiceId: string | null,
): ServiceAttempts[] {
  const sorted = [...events].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  const groups = new Map<string | null, Map<string, Attempt>>();
  for (const event of sorted) {
    const attemptId = text(event.context.attempt_id);
    const operation = text(event.context.operation);
    if (!attemptId || !operation) continue;
    const service = text(event.context.payment_service_id) ?? fallbackServiceId;
    let group = groups.get(service);
    if (!group) groups.set(service, (group = new Map()));
    const earlier = group.get(attemptId);
    group.set(attemptId, {
      attemptId,
      operation,
      amount: num(event.context.amount) ?? earlier?.amount ?? null,
      outcome: text(event.context.outcome) ?? 'unknown',
      errorCode: text(event.context.error_code),
      durationMs: num(event.context.duration_ms),
      at: earlier?.at ?? event.created_at,
    });
  }
  return [...groups].map(([paymentServiceId, attempts]) => ({ paymentServiceId, attempts: [...attempts.values()] }));
}

export interface SettlementLine {
  id: string;
  posted_at: string;
  currency: string;
  amount: number;
  commission: number;
  interchange: number | null;
  scheme_fee: number | null;
  payment_service_report_id: string;
}

/**
 * The transaction's settlement lines, oldest first: `GET .../settlements` lists them all (a refund's
 * with a negative amount), `GET .../refund-settlements` says which refund each refund line settles.
 */
export function settlementLines(
  settlements: readonly SettlementLine[],
  refundSettlements: ReadonlyArray<{ id: string; refund_id: string }>,
): Array<SettlementLine & { refundId: string | null }> {
  const refunds = new Map(refundSettlements.map((r) => [r.id, r.refund_id]));
  return [...settlements]
    .sort((a, b) => a.posted_at.localeCompare(b.posted_at) || a.id.localeCompare(b.id))
    .map((s) => ({ ...s, refundId: refunds.get(s.id) ?? null }));
}
