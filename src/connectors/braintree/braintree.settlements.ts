import type { SettlementFetchRequest, SettlementLine, SettlementPage } from '../connector.ts';
import type { BraintreeClient } from './braintree.client.ts';
import { graphQlError } from './braintree.mapping.ts';
import {
  daysOf,
  decodeCursor,
  encodeCursor,
  firstCursor,
  nextPhase,
  timestampOf,
  type SettlementCursor,
} from './braintree.settlement-cursor.ts';
import {
  disputeLines,
  paymentLine,
  type BraintreeDispute,
  type SettledPayment,
  type Window,
} from './braintree.settlement-lines.ts';
import { DISPUTES_BY_EFFECTIVE_DATE, SETTLED_REFUNDS, SETTLED_TRANSACTIONS } from './braintree.settlement-queries.ts';

export interface BraintreeSettlementOptions {
  /** Nodes per search page (`first`). */
  pageSize?: number;
  /**
   * How long after settling a line is read. Braintree disburses card payments 2 to 5 business days
   * after they settle; reading a line once its disbursement is known gives it the disbursement as
   * its report. Seven days covers five business days and a weekend.
   */
  lagMs?: number;
  now?: () => number;
}

export const BRAINTREE_SETTLEMENT_PAGE_SIZE = 50;
export const BRAINTREE_SETTLEMENT_LAG_MS = 7 * 86_400_000;

interface Connection<T> {
  pageInfo: { hasNextPage: boolean; endCursor?: string | null };
  edges?: Array<{ node: T | null } | null> | null;
}

type Search = 'transactions' | 'refunds' | 'disputes';

async function searchPage<T>(
  client: BraintreeClient,
  credentials: Record<string, string>,
  query: string,
  field: Search,
  input: Record<string, unknown>,
  first: number,
  after: string | null,
): Promise<{ nodes: T[]; next: string | null }> {
  const answer = await client.call<{ search: Record<Search, Connection<T> | null> }>(credentials, query, {
    input,
    first,
    after,
  });
  const connection = answer.data?.search?.[field];
  if (!connection || answer.errors.length > 0) throw graphQlError(answer.status, answer.errors);
  const nodes = (connection.edges ?? []).flatMap((edge) => (edge?.node ? [edge.node] : []));
  return {
    nodes,
    next: connection.pageInfo.hasNextPage && connection.pageInfo.endCursor ? connection.pageInfo.endCursor : null,
  };
}

/** One page of the cursor's phase: its lines, and Braintree's cursor of the next page (null: the phase is done). */
async function readPhase(
  client: BraintreeClient,
  credentials: Record<string, string>,
  cursor: SettlementCursor,
  window: Window,
  first: number,
): Promise<{ lines: SettlementLine[]; next: string | null }> {
  // Inclusive bounds in Braintree's terms: the first microsecond after `lower`, and `upper`.
  const settledAt = {
    settledAt: { greaterThanOrEqualTo: timestampOf(window.lower + 1), lessThanOrEqualTo: timestampOf(window.upper) },
  };
  switch (cursor.phase) {
    case 'transactions': {
      const page = await searchPage<SettledPayment>(
        client,
        credentials,
        SETTLED_TRANSACTIONS,
        'transactions',
        { statusTransition: settledAt },
        first,
        cursor.after,
      );
      return { lines: page.nodes.flatMap((node) => paymentLine('capture', node, window) ?? []), next: page.next };
    }
    case 'refunds': {
      const page = await searchPage<SettledPayment>(
        client,
        credentials,
        SETTLED_REFUNDS,
        'refunds',
        { statusTransition: settledAt },
        first,
        cursor.after,
      );
      return { lines: page.nodes.flatMap((node) => paymentLine('refund', node, window) ?? []), next: page.next };
    }
    case 'disputes': {
      const days = daysOf(window.lower, window.upper);
      if (!days) return { lines: [], next: null };
      const input = { effectiveDate: { greaterThanOrEqualTo: days.from, lessThanOrEqualTo: days.to } };
      const page = await searchPage<BraintreeDispute>(
        client,
        credentials,
        DISPUTES_BY_EFFECTIVE_DATE,
        'disputes',
        input,
        first,
        cursor.after,
      );
      return { lines: page.nodes.flatMap((node) => disputeLines(node, window)), next: page.next };
    }
  }
}

/**
 * `settlements` of the Braintree connector: one page of what Braintree reports settled, refunded
 * and charged back, read from its GraphQL searches (docs/settlements.md, "Braintree"). A round
 * reads the window from the previous round's end to `now - lagMs`; `done` when its three searches
 * are read (the cursor then holds the next round's start). `report` is ignored: Braintree
 * announces no report this reader could fetch by name.
 */
export async function fetchBraintreeSettlements(
  client: BraintreeClient,
  request: SettlementFetchRequest,
  options: BraintreeSettlementOptions = {},
): Promise<SettlementPage> {
  const now = options.now ?? Date.now;
  const lag = options.lagMs ?? BRAINTREE_SETTLEMENT_LAG_MS;
  const first = options.pageSize ?? BRAINTREE_SETTLEMENT_PAGE_SIZE;
  const cursor = request.cursor ? decodeCursor(request.cursor) : firstCursor(request.since);
  const upper = cursor.upper ?? (now() - lag) * 1000;
  if (upper <= cursor.lower)
    return { lines: [], cursor: encodeCursor({ ...cursor, upper: null, after: null }), done: true };
  const window = { lower: cursor.lower, upper };
  const { lines, next } = await readPhase(client, request.credentials, cursor, window, first);
  if (next) return { lines, cursor: encodeCursor({ ...cursor, upper, after: next }), done: false };
  const following = nextPhase({ ...cursor, upper });
  if (following) return { lines, cursor: encodeCursor(following), done: false };
  return { lines, cursor: encodeCursor({ phase: 'transactions', lower: upper, upper: null, after: null }), done: true };
}
