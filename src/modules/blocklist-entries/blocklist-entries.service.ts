import { withRequestTransaction, type RequestContext } from '../../context.ts';
import type { BlocklistEntryRow } from '../../db/schema-blocklist.ts';
import type { Tx } from '../../db/transaction.ts';
import { AppError, notFound, type ErrorDetail } from '../../errors/app-error.ts';
import { listPage, type ListEnvelope } from '../../http/pagination.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import * as repo from './blocklist-entries.repo.ts';
import {
  blocklistAuditResource,
  toBlocklistEntryResource,
  type BlocklistEntry,
  type BlocklistImportResult,
  type CreateBlocklistEntryBody,
  type ImportBlocklistEntriesBody,
  type ListBlocklistEntriesQuery,
} from './blocklist-entries.schemas.ts';
import { checkLine, type CheckedLine } from './blocklist-entry-lines.ts';
import { normalizeBlocklistValue } from './blocklist-values.ts';

type Columns = Extract<CheckedLine, { ok: true }>['columns'];

function duplicate(existing: BlocklistEntryRow): AppError {
  const expired = existing.expires_at !== null && existing.expires_at.getTime() <= Date.now();
  return new AppError(
    'duplicate_record',
    `This ${existing.value_type} is already blocked by the entry ${existing.id}${expired ? ', which has expired: delete it first to block the value again' : ''}`,
    { resourceId: existing.id },
  );
}

/**
 * Runs a write of the account's entries, then forgets this process's compiled blocklist at once
 * (other processes hear of it through the change feed). Also when the write failed: a commit whose
 * answer was lost may still have happened.
 */
async function changing<T>(ctx: RequestContext, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } finally {
    ctx.deps.readCaches.blocklists.invalidate(ctx.merchantAccountId);
  }
}

const newRow = (ctx: RequestContext, columns: Columns) => ({
  ...columns,
  merchant_account_id: ctx.merchantAccountId,
  id: uuidv7(),
});

/** Inserts the rows; for each, the entry that now blocks its value and whether this insert made it. */
async function insertAll(tx: Tx, ctx: RequestContext, rows: ReturnType<typeof newRow>[]) {
  const firsts = new Map<string, ReturnType<typeof newRow>>();
  for (const row of rows)
    if (!firsts.has(`${row.value_type}\n${row.value}`)) firsts.set(`${row.value_type}\n${row.value}`, row);
  const inserted = await repo.insertBlocklistEntries(tx, [...firsts.values()]);
  const made = new Map(inserted.map((row) => [`${row.value_type}\n${row.value}`, row]));
  const missing = rows.filter((row) => !made.has(`${row.value_type}\n${row.value}`));
  const held = new Map<string, BlocklistEntryRow>();
  for (const type of new Set(missing.map((row) => row.value_type))) {
    const values = missing.filter((row) => row.value_type === type).map((row) => row.value);
    // The insert waited for any concurrent holder of a value, so the holder is visible now.
    for (const row of await repo.findByValues(tx, ctx.merchantAccountId, type, values))
      held.set(`${row.value_type}\n${row.value}`, row);
  }
  for (const row of inserted) await recordAudit(tx, ctx, 'created', blocklistAuditResource(row));
  return rows.map((row) => {
    const key = `${row.value_type}\n${row.value}`;
    const mine = made.get(key);
    return mine && mine.id === row.id
      ? { row: mine, created: true }
      : { row: (mine ?? held.get(key))!, created: false };
  });
}

export async function createBlocklistEntry(
  ctx: RequestContext,
  body: CreateBlocklistEntryBody,
): Promise<BlocklistEntry> {
  return changing(ctx, () =>
    withRequestTransaction(ctx, async (tx) => {
      const checked = await checkLine(tx, ctx, body, '', new Date());
      // A payment method or transaction not in the account is a 404, as everywhere else it is named.
      if (!checked.ok && checked.problem.type === 'not_found') throw new AppError('not_found', checked.problem.message);
      if (!checked.ok) throw new AppError('bad_request', checked.problem.message, { details: [checked.problem] });
      const [result] = await insertAll(tx, ctx, [newRow(ctx, checked.columns)]);
      if (!result!.created) throw duplicate(result!.row);
      return toBlocklistEntryResource(result!.row);
    }),
  );
}

/**
 * `POST /blocklist-entries/import`: every line checked first; any problem refuses the whole import
 * (400, one detail per line at fault) and nothing is written. A value already blocked (or twice in
 * the import) is not an error: the line reports the entry that blocks it (decision 0135).
 */
export async function importBlocklistEntries(
  ctx: RequestContext,
  body: ImportBlocklistEntriesBody,
): Promise<BlocklistImportResult> {
  return changing(ctx, () =>
    withRequestTransaction(ctx, async (tx) => {
      const now = new Date();
      const checked: CheckedLine[] = [];
      for (const [index, line] of body.entries.entries())
        checked.push(await checkLine(tx, ctx, line, `/entries/${index}`, now));
      const problems = checked.flatMap((line): ErrorDetail[] => (line.ok ? [] : [line.problem]));
      if (problems.length > 0)
        throw new AppError(
          'bad_request',
          `${problems.length} of ${body.entries.length} lines refused; nothing was imported`,
          { details: problems },
        );
      const rows = checked.map((line) => newRow(ctx, (line as Extract<CheckedLine, { ok: true }>).columns));
      const results = await insertAll(tx, ctx, rows);
      const items = results.map((result, index) => ({
        index,
        id: result.row.id,
        status: result.created ? ('created' as const) : ('existing' as const),
      }));
      const created = items.filter((item) => item.status === 'created').length;
      return { type: 'blocklist-import' as const, created, existing: items.length - created, items };
    }),
  );
}

export async function listBlocklistEntries(
  ctx: RequestContext,
  query: ListBlocklistEntriesQuery,
): Promise<ListEnvelope<BlocklistEntry>> {
  let value = query.value;
  if (value !== undefined && query.value_type !== undefined) {
    // Normalized like the entries, so `Buyer@Example.com ` finds the entry `buyer@example.com`.
    const normalized = normalizeBlocklistValue(query.value_type, value);
    if (normalized.ok) value = normalized.value;
  }
  const filter: repo.BlocklistFilter = { valueType: query.value_type, value };
  return listPage(
    ctx,
    // Every filter value is part of the list name: a cursor of one filter is refused by another.
    `blocklist-entries:${JSON.stringify([filter.valueType ?? null, filter.value ?? null])}`,
    query,
    (position, limit) => repo.listBlocklistEntries(ctx.deps.db, ctx.merchantAccountId, filter, position, limit),
    toBlocklistEntryResource,
    (row) => [row.created_at, row.id],
  );
}

export async function getBlocklistEntry(ctx: RequestContext, id: string): Promise<BlocklistEntry> {
  const row = await repo.findBlocklistEntry(ctx.deps.db, ctx.merchantAccountId, id);
  if (!row) throw notFound('blocklist entry', id);
  return toBlocklistEntryResource(row);
}

export async function deleteBlocklistEntry(ctx: RequestContext, id: string): Promise<void> {
  await changing(ctx, () =>
    withRequestTransaction(ctx, async (tx) => {
      const removed = await repo.deleteBlocklistEntry(tx, ctx.merchantAccountId, id);
      if (!removed) throw notFound('blocklist entry', id);
      await recordAudit(tx, ctx, 'deleted', blocklistAuditResource(removed));
    }),
  );
}
