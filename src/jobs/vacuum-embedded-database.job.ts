import { vacuumDatabase } from '../db/maintenance.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/** Embedded PGlite only (PostgreSQL's autovacuum does this on a server): VACUUM and ANALYZE the tables, one a statement (src/db/maintenance.ts). */
export const vacuumEmbeddedDatabase = defineJob({
  name: 'vacuum-embedded-database',
  payload: JOB_PAYLOADS['vacuum-embedded-database'],
  maxAttempts: 1,
  async handle(_payload, { deps }) {
    if (deps.dbKind !== 'pglite') return;
    await vacuumDatabase(deps.db, deps.dbKind);
  },
});
