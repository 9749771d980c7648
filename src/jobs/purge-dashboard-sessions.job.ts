import { purgeEnded } from '../modules/dashboard-sessions/dashboard-sessions.repo.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/** How long an ended session or an expired set-up link is kept (its row tells a support question when it ended). */
export const DASHBOARD_SESSION_RETENTION_MS = 24 * 3600 * 1000;

/** Deletes dashboard sessions and set-up links a day after their absolute end: they open nothing by then. */
export const purgeDashboardSessions = defineJob({
  name: 'purge-dashboard-sessions',
  payload: JOB_PAYLOADS['purge-dashboard-sessions'],
  maxAttempts: 3,
  async handle(_payload, { deps, log }) {
    const deleted = await purgeEnded(deps.db, new Date(Date.now() - DASHBOARD_SESSION_RETENTION_MS));
    if (deleted > 0) log.info({ deleted }, 'purged ended dashboard sessions and set-up links');
  },
});
