import type { Deps } from '../../context.ts';
import * as repo from './reports.repo.ts';
import { reportStorage } from './storage/report-storage.ts';

const BATCH = 100;

/**
 * The `purge-report-executions` job: executions older than REPORTS_RETENTION_DAYS go, file first,
 * then the row (a crash between the two leaves a row whose file the next run deletes again, a no-op).
 * Returns how many were purged.
 */
export async function purgeExpiredReportExecutions(deps: Deps, now: Date): Promise<number> {
  const before = new Date(now.getTime() - deps.config.reports.retentionDays * 24 * 3600_000);
  const storage = reportStorage(deps.config);
  let purged = 0;
  for (;;) {
    const rows = await repo.expiredExecutions(deps.db, before, BATCH);
    for (const row of rows) {
      if (row.file_key) await storage.delete(row.file_key);
      await repo.deleteExecution(deps.db, row.merchant_account_id, row.id);
    }
    purged += rows.length;
    if (rows.length < BATCH) return purged;
  }
}
