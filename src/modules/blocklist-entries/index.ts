import type { FastifyInstance } from 'fastify';
import { createBlocklistEntry } from './routes/create-blocklist-entry.ts';
import { deleteBlocklistEntry } from './routes/delete-blocklist-entry.ts';
import { getBlocklistEntry } from './routes/get-blocklist-entry.ts';
import { importBlocklistEntries } from './routes/import-blocklist-entries.ts';
import { listBlocklistEntries } from './routes/list-blocklist-entries.ts';

export const blocklistEntryRoutes = [
  createBlocklistEntry,
  importBlocklistEntries,
  listBlocklistEntries,
  getBlocklistEntry,
  deleteBlocklistEntry,
];

/** Blocklists (docs/risk.md, "Blocklists"; decision 0135): values a payment must not match. */
export async function blocklistEntries(app: FastifyInstance): Promise<void> {
  for (const route of blocklistEntryRoutes) app.route(route);
}
