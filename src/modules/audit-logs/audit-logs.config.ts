import path from 'node:path';
import { ConfigError, customSetting, defineGroup, read } from '../../lib/settings.ts';

/** The audit log's hash chain (decision 0141): where its daily anchors go besides the log stream. */

export const auditSettings = defineGroup('Audit log', {
  /** An absolute path, or null: the anchors then go to the log stream only. */
  auditAnchorFile: customSetting(
    {
      name: 'AUDIT_ANCHOR_FILE',
      default: 'unset',
      description:
        'Absolute path of the file the daily `anchor-audit-chains` job appends each audit hash chain head to (JSON lines, fsynced; `svc audit verify` checks them). Put it on storage the database user cannot rewrite (docs/security.md, "Audit trail"); unset, the heads go to the log stream only',
    },
    (env) => {
      const raw = read(env, 'AUDIT_ANCHOR_FILE');
      if (raw === undefined) return null;
      if (!path.isAbsolute(raw)) throw new ConfigError('AUDIT_ANCHOR_FILE', `must be an absolute path, got "${raw}"`);
      return raw;
    },
  ),
});
