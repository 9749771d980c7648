import type { Deps } from '../../context.ts';
import type { ReportRow } from '../../db/schema-reports.ts';
import { withTransaction } from '../../db/transaction.ts';
import { recordSystemAudit } from '../audit-logs/audit-logs.service.ts';
import { addExecution } from './report-executions.create.ts';
import { nextExecutionAt } from './report-schedule.ts';
import { auditedExecution } from './report.resource.ts';
import * as repo from './reports.repo.ts';

const BATCH = 50;
/** Runs missed for longer than this (the service was down) are skipped rather than made one by one. */
const CATCH_UP_MS = 7 * 24 * 3600_000;

/** The reference time of a due report's run: its planned midnight, or the first one within the catch-up window. */
function referenceOf(report: ReportRow, now: Date): Date {
  if (report.schedule === 'once') return now;
  const planned = report.next_execution_at!;
  if (planned.getTime() >= now.getTime() - CATCH_UP_MS) return planned;
  return nextExecutionAt(report.schedule, report.schedule_timezone, new Date(now.getTime() - CATCH_UP_MS))!;
}

/**
 * The `schedule-reports` job: every due report (enabled, `next_execution_at` passed) gets its
 * execution, and its next run moves one period on. Reports are locked with SKIP LOCKED, so
 * schedulers in several processes share the work and never take the same report; the unique
 * (report, reference time) index is the second guard. A missed run (the service was down) is made
 * when the service is back, one per missed period of the last 7 days, each for its own period
 * (older ones are skipped). Returns the executions made.
 */
export async function scheduleDueReports(
  deps: Deps,
  now: Date,
  job: { jobName: string; jobId: string },
): Promise<number> {
  let made = 0;
  for (;;) {
    const { count, locked } = await withTransaction(deps.db, async (tx) => {
      const due = await repo.lockDueReports(tx, now, BATCH);
      let added = 0;
      for (const report of due) {
        // A scheduled run covers the period ending at its planned midnight; `once` runs now.
        const reference = referenceOf(report, now);
        if (reference.getTime() > now.getTime()) {
          await repo.updateReport(tx, report.merchant_account_id, report.id, { next_execution_at: reference });
          continue;
        }
        const execution = await addExecution(tx, deps, report, reference);
        if (execution) {
          added++;
          await recordSystemAudit(
            tx,
            report.merchant_account_id,
            { name: 'System (reports)', ...job },
            'created',
            auditedExecution({ id: execution.id, name: report.name }),
          );
        }
        const next = nextExecutionAt(report.schedule, report.schedule_timezone, reference);
        await repo.updateReport(tx, report.merchant_account_id, report.id, { next_execution_at: next });
      }
      return { count: added, locked: due.length };
    });
    made += count;
    // A report that missed several runs is due again after one: go on until none is due.
    if (locked === 0) return made;
  }
}
