import { defineRoute } from '../../../http/define-route.ts';
import { BlocklistImportResultSchema, ImportBlocklistEntriesBody } from '../blocklist-entries.schemas.ts';
import { importBlocklistEntries as importEntries } from '../blocklist-entries.service.ts';

export const importBlocklistEntries = defineRoute({
  operationId: 'importBlocklistEntries',
  method: 'POST',
  url: '/blocklist-entries/import',
  scope: 'blocklist-entries.write',
  tags: ['blocklist-entries'],
  summary: 'Block many values at once',
  description:
    'Up to 1,000 lines, each shaped like the body of createBlocklistEntry. All or nothing: any refused line answers 400 with one detail per refused line (its pointer names the line, e.g. /entries/3/value) and nothing is imported. A value already blocked, or repeated in the import, is not an error: its line reports the entry that blocks it (status `existing`).',
  status: 201,
  body: ImportBlocklistEntriesBody,
  response: BlocklistImportResultSchema,
  handler: ({ ctx, body }) => importEntries(ctx, body),
});
