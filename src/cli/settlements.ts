import { parseArgs } from 'node:util';
import type { Deps } from '../context.ts';
import {
  ingestSettlements,
  type IngestionSummary,
} from '../modules/settlements-ingestion/settlement-ingestion.service.ts';

export const SETTLEMENTS_HELP = `Usage: svc settlements ingest --payment-service ID [--since DATE] [--merchant-account ID] [--report NAME]

Reads the settlement reports of one payment service from its provider now (what the daily
ingest-settlements job does), writes each line once and prints what it did: lines written
(settlements, refund settlements, chargebacks and reversals), lines skipped because they were
ingested before, and lines that match no transaction or refund of the merchant account (not written).
  --payment-service ID    the payment service (a real connector that reports settlements: stripe-card, ...)
  --since DATE            read the provider's report from this day (YYYY-MM-DD, UTC) or ISO 8601 time;
                          the listing starts over from there (lines seen before are skipped).
                          Without it: on from where the last run stopped (first run: the service's creation)
  --merchant-account ID   the payment service's merchant account (default: default)
  --report NAME           one report the provider announced (Stripe: a payout id), instead of the listing
Sandbox connectors (mock-card, ...) have no reports: their settlements are simulated.
With the embedded database, stop the server first: PGlite allows one process at a time.`;

/** `--since`: a day (UTC midnight) or a full ISO 8601 time. */
export function parseSince(value: string): Date {
  const date = new Date(value.length === 10 ? `${value}T00:00:00Z` : value);
  if (value.length < 10 || Number.isNaN(date.getTime()))
    throw new Error('--since must be a day (YYYY-MM-DD) or an ISO 8601 time');
  return date;
}

function print(summary: IngestionSummary, out: (line: string) => void): void {
  out(
    `payment service ${summary.paymentServiceId}: ${summary.report ? `report ${summary.report}` : `listing since ${summary.since.toISOString()}`}, ${summary.pages} page(s) read`,
  );
  out(`  lines written:             ${summary.written}`);
  out(`  skipped (ingested before): ${summary.duplicate}`);
  out(`  unmatched (not written):   ${summary.unmatched}`);
  out(`  more to read:              ${summary.done ? 'no' : 'yes (the next run goes on from here)'}`);
}

/** `svc settlements ingest ...` with the process's dependencies; returns the exit code. */
export async function settlementsCommand(deps: Deps, args: string[], out: (line: string) => void): Promise<number> {
  const [action, ...rest] = args;
  if (action !== 'ingest') {
    out(SETTLEMENTS_HELP);
    return 2;
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      'payment-service': { type: 'string' },
      since: { type: 'string' },
      'merchant-account': { type: 'string', default: 'default' },
      report: { type: 'string' },
    },
  });
  const paymentServiceId = values['payment-service'];
  if (!paymentServiceId) throw new Error('--payment-service is required');
  const summary = await ingestSettlements(deps, {
    merchantAccountId: values['merchant-account'],
    paymentServiceId,
    since: values.since ? parseSince(values.since) : null,
    report: values.report ?? null,
  });
  print(summary, out);
  return 0;
}
