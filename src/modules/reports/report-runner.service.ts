import { Readable, pipeline } from 'node:stream';
import { createGzip } from 'node:zlib';
import { sql } from 'kysely';
import type { Deps } from '../../context.ts';
import { withTransaction, type Tx } from '../../db/transaction.ts';
import type { Db } from '../../db/client.ts';
import type { ReportRow } from '../../db/schema-reports.ts';
import { scrubString } from '../../lib/redact.ts';
import { recordSystemAudit } from '../audit-logs/audit-logs.service.ts';
import { csvLine } from './csv.ts';
import { REPORT_MODEL_DEFS } from './models/index.ts';
import type { ReportModelDef, ReportView } from './models/report-model.ts';
import { auditedExecution } from './report.resource.ts';
import { emitExecution } from './report-events.ts';
import * as repo from './reports.repo.ts';
import { reportFileKey, reportStorage } from './storage/report-storage.ts';
import type { ReportModel } from './report-spec.schemas.ts';

/** Rows per FETCH: enough to amortise the round trip, few enough to keep a batch small (measured: 50 was no leaner, 1000 somewhat heavier). */
const BATCH = 250;

export interface RunContext {
  jobName: string;
  jobId: string;
  /** Whether the job will run again after a failure: then the execution stays `processing`. */
  willRetry: boolean;
  log: {
    info(obj: object, msg?: string): void;
    warn(obj: object, msg?: string): void;
    error(obj: object, msg?: string): void;
  };
}

/** A failure of the query side, told apart from the storage side for the execution's `error.code`. */
class ReportQueryError extends Error {}

/**
 * Text pieces stay under V8's large-object size (128 KiB): a bigger string is allocated straight
 * into the old generation and only a full collection frees it.
 */
const PIECE_CHARS = 32 * 1024;

/** The next FETCH rendered as CSV text pieces, or null at the end. Its rows die when it returns (see csvLines). */
async function nextPieces(
  tx: Tx,
  model: ReportModelDef,
  params: Record<string, unknown>,
  view: ReportView,
  counter: { rows: number },
): Promise<string[] | null> {
  const { rows } = await sql<Record<string, unknown>>`FETCH FORWARD ${sql.raw(String(BATCH))} FROM report_rows`.execute(
    tx,
  );
  if (rows.length === 0) return null;
  const pieces: string[] = [];
  let piece = '';
  for (const row of rows) {
    piece += csvLine(model.cells(row, params, view));
    if (piece.length >= PIECE_CHARS) {
      pieces.push(piece);
      piece = '';
    }
  }
  if (piece !== '') pieces.push(piece);
  counter.rows += rows.length;
  return pieces;
}

/**
 * The CSV lines of a report, read through a server-side cursor in the caller's REPEATABLE READ
 * transaction: one consistent snapshot, whatever the size, `BATCH` rows in memory at a time. The
 * generator is pulled by the gzip stream, so a slow store slows the reads (backpressure). Only the
 * rendered text is held across a `yield`, never the fetched rows.
 */
async function* csvLines(
  tx: Tx,
  model: ReportModelDef,
  params: Record<string, unknown>,
  merchantAccountId: string,
  view: ReportView,
  counter: { rows: number },
): AsyncGenerator<string> {
  yield csvLine(model.header(params));
  try {
    await sql`DECLARE report_rows NO SCROLL CURSOR FOR ${model.query(tx, merchantAccountId, params, view)}`.execute(tx);
    for (
      let pieces = await nextPieces(tx, model, params, view, counter);
      pieces !== null;
      pieces = await nextPieces(tx, model, params, view, counter)
    )
      yield* pieces;
    await sql`CLOSE report_rows`.execute(tx);
  } catch (error) {
    throw new ReportQueryError(error instanceof Error ? error.message : String(error), { cause: error });
  }
}

/** Generates the file and stores it; returns its key, size and data rows. */
async function generate(
  db: Db,
  deps: Deps,
  report: ReportRow,
  execution: { id: string; reference_timestamp: Date; reference_timezone: string },
) {
  const model = REPORT_MODEL_DEFS[report.spec.model as ReportModel];
  const params = report.spec.params;
  const view: ReportView = {
    timeZone: execution.reference_timezone,
    reference: new Date(execution.reference_timestamp),
    revealPii: report.reveal_pii,
  };
  const key = reportFileKey(report.merchant_account_id, execution.id);
  const counter = { rows: 0 };
  const size = await db
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute(async (tx) => {
      const gzip = createGzip();
      // pipeline, not pipe: a failed read must fail the upload (the store then keeps nothing).
      pipeline(
        Readable.from(csvLines(tx, model, params, report.merchant_account_id, view, counter), { highWaterMark: 1 }),
        gzip,
        (error) => {
          if (error) gzip.destroy(error);
        },
      );
      return reportStorage(deps.config).put(key, gzip);
    });
  return { key, size, rows: counter.rows };
}

/** `pending` → `processing`; null when the execution is gone or already finished (a repeated job). */
async function start(deps: Deps, merchantAccountId: string, executionId: string) {
  return withTransaction(deps.db, async (tx) => {
    const execution = await repo.lockExecution(tx, merchantAccountId, executionId);
    if (!execution || (execution.status !== 'pending' && execution.status !== 'processing')) return null;
    const report = await repo.findReport(tx, merchantAccountId, execution.report_id);
    if (!report) return null;
    if (execution.status === 'pending')
      await repo.updateExecution(tx, merchantAccountId, executionId, { status: 'processing' });
    return { execution, report };
  });
}

async function finish(
  deps: Deps,
  merchantAccountId: string,
  executionId: string,
  run: RunContext,
  patch: Parameters<typeof repo.updateExecution>[3],
): Promise<void> {
  await withTransaction(deps.db, async (tx) => {
    await repo.updateExecution(tx, merchantAccountId, executionId, patch);
    const row = (await repo.findExecution(tx, merchantAccountId, executionId))!;
    await emitExecution(tx, deps, row);
    await recordSystemAudit(
      tx,
      merchantAccountId,
      { name: 'System (reports)', jobName: run.jobName, jobId: run.jobId },
      'updated',
      auditedExecution(row),
    );
  });
}

/**
 * The `generate-report` job: runs one execution. Succeeds → `succeeded` with the file; fails →
 * retried by the queue while attempts remain, then `failed` with `error` {code, message}
 * (docs/reports.md). Idempotent: a finished execution is left as it is.
 */
export async function runReportExecution(
  deps: Deps,
  merchantAccountId: string,
  executionId: string,
  run: RunContext,
): Promise<void> {
  const started = await start(deps, merchantAccountId, executionId);
  if (!started) return;
  const began = Date.now();
  try {
    const file = await generate(deps.db, deps, started.report, started.execution);
    await finish(deps, merchantAccountId, executionId, run, {
      status: 'succeeded',
      file_key: file.key,
      size: file.size,
      row_count: file.rows,
      error_code: null,
      error_message: null,
    });
    run.log.info(
      { reportExecutionId: executionId, rows: file.rows, bytes: file.size, ms: Date.now() - began },
      'report generated',
    );
  } catch (error) {
    const code = error instanceof ReportQueryError ? 'query_failed' : 'storage_failed';
    const message = scrubString(error instanceof Error ? error.message : String(error)).slice(0, 500);
    run.log.error(
      { reportExecutionId: executionId, code, error: message, willRetry: run.willRetry },
      'report generation failed',
    );
    if (run.willRetry) throw error;
    await finish(deps, merchantAccountId, executionId, run, {
      status: 'failed',
      error_code: code,
      error_message: message,
    });
  }
}
