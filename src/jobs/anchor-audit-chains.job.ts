import { appendAnchors } from '../modules/audit-logs/audit-anchors.ts';
import { chainHeadAnchors } from '../modules/audit-logs/audit-chain.service.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/** The message of an anchor's log line: log searches and alerts match it, so it never changes. */
export const ANCHOR_LOG_MESSAGE = 'audit chain anchor';

/**
 * Writes each merchant account's audit chain head outside the database (decision 0141): one log
 * line each, and with AUDIT_ANCHOR_FILE a line appended to that file. The entries committed so far
 * are linked first (decision 0145), so the heads cover them. Running twice writes the heads twice,
 * which verifies the same.
 */
export const anchorAuditChains = defineJob({
  name: 'anchor-audit-chains',
  payload: JOB_PAYLOADS['anchor-audit-chains'],
  maxAttempts: 5,
  async handle(_payload, { deps, log }) {
    await deps.auditSealer.sealNow();
    const anchors = await chainHeadAnchors(deps.db, new Date());
    for (const anchor of anchors) log.info({ audit_anchor: anchor }, ANCHOR_LOG_MESSAGE);
    if (deps.config.auditAnchorFile) appendAnchors(deps.config.auditAnchorFile, anchors);
  },
});
