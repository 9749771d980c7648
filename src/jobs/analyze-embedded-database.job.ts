import { Type } from 'typebox';
import { analyzeGrownTables } from '../db/maintenance.ts';
import { defineJob } from './job.ts';

/**
 * Embedded PGlite only (PostgreSQL's autovacuum does this on a server): ANALYZE the tables that
 * grew, so the planner, and the plans it keeps, follow the data (src/db/maintenance.ts).
 */
export const analyzeEmbeddedDatabase = defineJob({
  name: 'analyze-embedded-database',
  payload: Type.Object({}),
  maxAttempts: 1,
  async handle(_payload, { deps, log }) {
    if (deps.dbKind !== 'pglite') return;
    const analyzed = await analyzeGrownTables(deps.db);
    if (analyzed.length > 0) log.info({ tables: analyzed }, 'analyzed grown tables');
  },
});
