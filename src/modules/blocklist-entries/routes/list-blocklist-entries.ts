import { defineRoute } from '../../../http/define-route.ts';
import { BlocklistEntriesSchema, ListBlocklistEntriesQuery } from '../blocklist-entries.schemas.ts';
import { listBlocklistEntries as list } from '../blocklist-entries.service.ts';

export const listBlocklistEntries = defineRoute({
  operationId: 'listBlocklistEntries',
  method: 'GET',
  url: '/blocklist-entries',
  scope: 'blocklist-entries.read',
  tags: ['blocklist-entries'],
  summary: 'List blocklist entries, newest first',
  description:
    '`value_type` keeps the entries of one type; `value` the entry holding exactly that value (normalized like the entries when value_type is given too). Expired entries are listed until deleted; they block nothing.',
  status: 200,
  querystring: ListBlocklistEntriesQuery,
  response: BlocklistEntriesSchema,
  handler: ({ ctx, query }) => list(ctx, query),
});
