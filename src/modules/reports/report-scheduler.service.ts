import type { Deps } from '../../context.ts';
import { withTransaction } from '../../db/transaction.ts';
import { recordSystemAudit } from '../audit-logs/audit-logs.service.ts';
import { addExecution } from './report-executions.create.ts';
import { nextExecutionAt } from './report-schedule.ts';
import { auditedExecution } from './report.resource.ts';
import * as repo from './reports.repo.ts';

const BATCH = 50;

/**
 * The `schedule-reports` job: every due report (enabled, `next_execution_at` passed) gets its
 * execution, and its next run moves one period on. Reports are locked with SKIP LOCKED, so
 * schedulers in several processes share the work and never take the same report; the unique
 * (report, reference time) index is the second guard. A missed run (the service was down) is made
 * when the service is back, one per missed period, each for its own period. Returns executions made.
 */
export async function scheduleDueReports(deps: Deps, now: Date, job: { jobName: string; jobId: string }): Promise<number> {
  let made = 0;
  for (;;) {
    const { count, locked } = await withTransaction(deps.db, async (tx) => {
      const due = await repo.lockDueReports(tx, now, BATCH);
      let added = 0;
      for (const report of due) {
        // A scheduled run covers the period ending at its planned midnight; `once` runs now.
        const reference = report.schedule === 'once' ? now : report.next_execution_at!;
        const execution = await addExecution(tx, deps, report, reference, now);
        if (execution) {
          added++;
          await recordSystemAudit(tx, report.merchant_account_id, { name: 'System (reports)', ...job }, 'created', auditedExecution({ id: execution.id, name: report.name }));
        }
        const next = nextExecutionAt(report.schedule, report.schedule_timezone, reference);
        await repo.updateReport(tx, report.merchant_account_id, report.id, { next_execution_at: next });
      }
      return { count: added, locked: due.length };
    });
    made += count;
    if (locked < BATCH) return made;
  }
}
