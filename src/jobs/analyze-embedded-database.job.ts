import { analyzeGrownTables, statisticsLeftToUs } from '../db/maintenance.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/**
 * Embedded PGlite, and a PostgreSQL server whose autovacuum is off (autovacuum does this on any
 * other server): ANALYZE the tables that grew, so the planner, and the plans it keeps, follow the
 * data (src/db/maintenance.ts). The name is kept from when it ran on PGlite only: recurring jobs
 * are stored under it.
 */
export const analyzeEmbeddedDatabase = defineJob({
  name: 'analyze-embedded-database',
  payload: JOB_PAYLOADS['analyze-embedded-database'],
  maxAttempts: 1,
  async handle(_payload, { deps, log }) {
    if (!(await statisticsLeftToUs(deps.db, deps.dbKind))) return;
    const analyzed = await analyzeGrownTables(deps.db, deps.dbKind);
    if (analyzed.length > 0) log.info({ tables: analyzed }, 'analyzed grown tables');
  },
});
