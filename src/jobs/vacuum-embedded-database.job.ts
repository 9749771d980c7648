import { Type } from 'typebox';
import { vacuumDatabase } from '../db/maintenance.ts';
import { defineJob } from './job.ts';

/** Embedded PGlite only (PostgreSQL's autovacuum does this on a server): VACUUM (ANALYZE) the database (src/db/maintenance.ts). */
export const vacuumEmbeddedDatabase = defineJob({
  name: 'vacuum-embedded-database',
  payload: Type.Object({}),
  maxAttempts: 1,
  async handle(_payload, { deps }) {
    if (deps.dbKind !== 'pglite') return;
    await vacuumDatabase(deps.db);
  },
});
