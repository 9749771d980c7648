import type { AuditLogRow, AuditLogsTable } from '../../db/schema.ts';
import type { Executor } from '../../db/transaction.ts';
import { insertQuery } from '../../db/insert-query.ts';
import { keysetPage, type KeysetPage } from '../../db/keyset.ts';
import type { CursorPosition } from '../../http/cursor.ts';
import type { Insertable } from 'kysely';

export function insertAuditLogQuery(db: Executor, entry: Insertable<AuditLogsTable>) {
  return insertQuery(db, 'audit_logs', entry);
}

export interface AuditLogFilter {
  action?: AuditLogRow['action'] | undefined;
  userId?: string | undefined;
  resourceType?: string | undefined;
}

/** Each filter has an index (merchant_account_id, <filter>, created_at, id), so every page is a range scan. */
export async function listAuditLogs(
  db: Executor,
  merchantAccountId: string,
  filter: AuditLogFilter,
  position: CursorPosition | null,
  limit: number,
): Promise<KeysetPage<AuditLogRow>> {
  let query = db.selectFrom('audit_logs').selectAll().where('merchant_account_id', '=', merchantAccountId);
  if (filter.action) query = query.where('action', '=', filter.action);
  if (filter.userId) query = query.where('user_id', '=', filter.userId);
  if (filter.resourceType) query = query.where('resource_type', '=', filter.resourceType);
  return keysetPage(db, query, { columns: ['created_at', 'id'], limit, position });
}
