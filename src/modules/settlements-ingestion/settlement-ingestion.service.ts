import { createHash } from 'node:crypto';
import { boundedCall } from '../../connectors/call.ts';
import { PROVIDER_FILE_TIMEOUT_MS } from '../../connectors/provider-download.ts';
import type { PaymentConnector, SettlementLine, SettlementPage } from '../../connectors/connector.ts';
import type { Deps } from '../../context.ts';
import type { PaymentServiceRow } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';
import { AppError, notFound } from '../../errors/app-error.ts';
import {
  findUsablePaymentService,
  listSettlementReportingServices,
  reportingCredentialsOf,
} from '../payment-services/payment-services.service.ts';
import { recordProviderLine, type LineResult } from '../transactions/settlements/provider-lines.service.ts';
import { activeSubscriptions } from '../webhook-subscriptions/webhook-subscriptions.service.ts';
import * as repo from './settlement-ingestion.repo.ts';

/**
 * Settlement ingestion (docs/settlements.md): a payment service's provider reports, read page by
 * page through its connector's `settlements`, each line written once (provider-lines.service.ts).
 * The cursor is stored after each page is written, so a run that dies (a crash, a provider error:
 * the job retries) resumes after the last page it wrote; a page written twice adds nothing.
 */

type Log = { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
const quiet: Log = { info: () => undefined, warn: () => undefined };

/** Pages one run reads at most: the next run (the daily one) goes on from the cursor. */
const MAX_PAGES = 1000;

export interface IngestionRequest {
  merchantAccountId: string;
  paymentServiceId: string;
  /** Read from this instant (a new start: the cursor starts over); without it, or the same start again, on from the stored cursor. */
  since?: Date | null;
  /** One report the provider announced (its webhook): read that report only; the stored cursor is left alone. */
  report?: string | null;
}

export interface IngestionSummary {
  paymentServiceId: string;
  since: Date;
  report: string | null;
  pages: number;
  written: number;
  duplicate: number;
  unmatched: number;
  /** The provider has nothing more to read now. */
  done: boolean;
}

/** The service and its connector, when the connector reads its provider's settlements. */
async function reportingService(
  deps: Deps,
  merchantAccountId: string,
  paymentServiceId: string,
): Promise<{
  service: PaymentServiceRow;
  connector: PaymentConnector & Required<Pick<PaymentConnector, 'settlements'>>;
}> {
  const service = await findUsablePaymentService(deps.db, merchantAccountId, paymentServiceId);
  if (!service) throw notFound('payment service', paymentServiceId);
  const connector = deps.connectors.find(service.payment_service_definition_id);
  if (!connector?.settlements)
    throw new AppError(
      'bad_request',
      `The payment service definition ${service.payment_service_definition_id} has no settlement reports to ingest`,
    );
  return { service, connector: connector as PaymentConnector & Required<Pick<PaymentConnector, 'settlements'>> };
}

/** Where this run starts: the stored state, made on a first run (`since`: the request's, or the service's creation). */
/**
 * Where a payment service's first run starts without `--since`: the UTC day it was created. Not the
 * instant: providers date their lines in seconds or days (Adyen's Creation Date, Stripe's `created`),
 * so a line of the service's first payment may read earlier than the service's creation in
 * milliseconds, and would be dropped as before the start.
 */
export const defaultSince = (createdAt: Date): Date =>
  new Date(Date.UTC(createdAt.getUTCFullYear(), createdAt.getUTCMonth(), createdAt.getUTCDate()));

async function startOf(
  deps: Deps,
  request: IngestionRequest,
  service: PaymentServiceRow,
  now: Date,
): Promise<{ since: Date; cursor: string | null }> {
  const { merchantAccountId: m, paymentServiceId: id } = request;
  await repo.insertStateOnce(deps.db, m, id, request.since ?? defaultSince(new Date(service.created_at)));
  const state = (await repo.findState(deps.db, m, id))!;
  if (request.report) return { since: request.since ?? state.since, cursor: null };
  // A new start only: the retry of a job with `since` (the same start) resumes at the cursor.
  if (!request.since || request.since.getTime() === state.since.getTime())
    return { since: state.since, cursor: state.cursor };
  await repo.restartState(deps.db, m, id, request.since, now);
  return { since: request.since, cursor: null };
}

/**
 * How long one page may take: a page can be a whole report file (Adyen's Settlement details report,
 * tens of megabytes, downloaded within PROVIDER_FILE_TIMEOUT_MS), so the 30 s bound of the payment
 * calls (CONNECTOR_TIMEOUT_MS) would cut it short. The download's own limit ends first.
 */
export const SETTLEMENT_PAGE_TIMEOUT_MS = PROVIDER_FILE_TIMEOUT_MS + 30_000;

/**
 * One page of the provider's lines, or a thrown error, recorded on the state: a 502 (`unavailable`,
 * `timeout`: the job retries) or, when the provider refused the request (`invalid_request`: bad
 * report credentials, a malformed report, a report not ours), a 400 no retry can fix (the job fails).
 */
async function fetchPage(
  deps: Deps,
  connector: PaymentConnector & Required<Pick<PaymentConnector, 'settlements'>>,
  request: IngestionRequest,
  args: { credentials: Record<string, string>; since: Date; cursor: string | null },
): Promise<SettlementPage> {
  const fetch = connector.settlements.bind(connector);
  const result = await boundedCall(() => fetch({ ...args, report: request.report ?? null }), {
    timeoutMs: SETTLEMENT_PAGE_TIMEOUT_MS,
  });
  if (result.ok) return result.value;
  const message = `the provider's settlement report could not be read (${result.kind}): ${result.message}`;
  await repo.recordRun(deps.db, request.merchantAccountId, request.paymentServiceId, message, new Date());
  throw new AppError(result.kind === 'invalid_request' ? 'bad_request' : 'bad_gateway', message);
}

/** Writes a page's lines; unmatched ones are logged by their ids (no card data is in a report line). */
async function writePage(
  deps: Deps,
  lines: SettlementLine[],
  scope: { merchantAccountId: string; paymentServiceId: string },
  log: Log,
): Promise<repo.LineCounts> {
  const counts: repo.LineCounts = { written: 0, duplicate: 0, unmatched: 0 };
  const subscriptions = await activeSubscriptions(deps.db, deps, scope.merchantAccountId);
  for (const line of lines) {
    const result: LineResult = await recordProviderLine(
      deps,
      subscriptions,
      { ...scope, ingestedAt: new Date() },
      line,
    );
    counts[result]++;
    if (result === 'unmatched')
      log.warn(
        {
          paymentServiceId: scope.paymentServiceId,
          kind: line.kind,
          reportId: line.reportId,
          reportLineId: line.reportLineId,
          providerTransactionId: line.providerTransactionId,
        },
        'settlement report line matches no transaction or refund of ours; not written',
      );
  }
  return counts;
}

/**
 * One ingestion run of a payment service: pages until the provider has nothing more (or MAX_PAGES),
 * each page's lines written, then its cursor stored. A run that finds the cursor moved by another
 * run at once stops there (that run goes on). Throws when the provider cannot be read: the
 * cursor stays after the last page written, and the job's retry resumes from it.
 */
export async function ingestSettlements(
  deps: Deps,
  request: IngestionRequest,
  log: Log = quiet,
): Promise<IngestionSummary> {
  const { service, connector } = await reportingService(deps, request.merchantAccountId, request.paymentServiceId);
  const credentials = await reportingCredentialsOf(deps.db, deps, service);
  const start = await startOf(deps, request, service, new Date());
  const scope = { merchantAccountId: request.merchantAccountId, paymentServiceId: request.paymentServiceId };
  const summary: IngestionSummary = {
    paymentServiceId: service.id,
    since: start.since,
    report: request.report ?? null,
    pages: 0,
    written: 0,
    duplicate: 0,
    unmatched: 0,
    done: false,
  };
  let cursor = start.cursor;
  while (summary.pages < MAX_PAGES) {
    const page = await fetchPage(deps, connector, request, { credentials, since: start.since, cursor });
    const counts = await writePage(deps, page.lines, scope, log);
    summary.pages++;
    summary.written += counts.written;
    summary.duplicate += counts.duplicate;
    summary.unmatched += counts.unmatched;
    // A report run leaves the listing's cursor alone (it reads that report from its start on a retry).
    const moved = await repo.recordPage(
      deps.db,
      scope.merchantAccountId,
      scope.paymentServiceId,
      counts,
      request.report ? null : { from: cursor, to: page.cursor },
      new Date(),
    );
    if (!moved) {
      log.warn(
        { paymentServiceId: service.id },
        'another settlement ingestion of this payment service moved the cursor; this run stops',
      );
      break;
    }
    cursor = page.cursor;
    if (page.done) {
      summary.done = true;
      break;
    }
  }
  await repo.recordRun(deps.db, scope.merchantAccountId, scope.paymentServiceId, null, new Date());
  log.info(
    {
      paymentServiceId: service.id,
      pages: summary.pages,
      written: summary.written,
      duplicate: summary.duplicate,
      unmatched: summary.unmatched,
    },
    'settlement reports ingested',
  );
  return summary;
}

/** The job key of a report's ingestion: the report's name may be a long URL, its hash is not. */
const reportKey = (merchantAccountId: string, paymentServiceId: string, report: string) =>
  `ingest-settlements:${merchantAccountId}:${paymentServiceId}:report:${createHash('sha256').update(report).digest('hex').slice(0, 32)}`;

/**
 * A provider announced a report (the `settlement_report_available` webhook action): its ingestion
 * is enqueued in the caller's transaction, once per report (a redelivered notification adds no job),
 * when the payment service has `settlement_reporting_enabled`: whether a job was added, or null
 * (nothing enqueued) when its reports are not ingested.
 */
export async function enqueueReportIngestion(
  db: Executor,
  deps: Deps,
  merchantAccountId: string,
  paymentServiceId: string,
  report: string,
): Promise<boolean | null> {
  if (!(await repo.reportingEnabled(db, merchantAccountId, paymentServiceId))) return null;
  return deps.queue.enqueue(
    db,
    'ingest-settlements',
    { merchant_account_id: merchantAccountId, payment_service_id: paymentServiceId, report },
    { jobKey: reportKey(merchantAccountId, paymentServiceId, report) },
  );
}

const BATCH = 200;

/**
 * The `schedule-settlement-ingestions` job: every payment service (not deleted, every merchant
 * account) with `settlement_reporting_enabled` whose connector reads its provider's settlements
 * gets its day's ingestion, once a day
 * (the job key names the UTC day). Returns how many were enqueued.
 */
export async function scheduleDailyIngestions(deps: Deps, now: Date): Promise<number> {
  const definitions = deps.connectors
    .definitions()
    .map((d) => d.id)
    .filter((id) => deps.connectors.find(id)?.settlements);
  const day = now.toISOString().slice(0, 10);
  let after: { merchantAccountId: string; id: string } | null = null;
  let added = 0;
  for (;;) {
    const services = await listSettlementReportingServices(deps.db, definitions, after, BATCH);
    for (const s of services) {
      if (
        await deps.queue.enqueue(
          deps.db,
          'ingest-settlements',
          { merchant_account_id: s.merchant_account_id, payment_service_id: s.id },
          { jobKey: `ingest-settlements:${s.merchant_account_id}:${s.id}:daily:${day}` },
        )
      )
        added++;
    }
    if (services.length < BATCH) return added;
    const last = services[services.length - 1]!;
    after = { merchantAccountId: last.merchant_account_id, id: last.id };
  }
}
