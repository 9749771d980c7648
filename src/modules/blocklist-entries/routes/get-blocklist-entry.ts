import { defineRoute } from '../../../http/define-route.ts';
import { BlocklistEntryParams, BlocklistEntrySchema } from '../blocklist-entries.schemas.ts';
import { getBlocklistEntry as get } from '../blocklist-entries.service.ts';

export const getBlocklistEntry = defineRoute({
  operationId: 'getBlocklistEntry',
  method: 'GET',
  url: '/blocklist-entries/:blocklist_entry_id',
  scope: 'blocklist-entries.read',
  tags: ['blocklist-entries'],
  summary: 'Read a blocklist entry',
  status: 200,
  params: BlocklistEntryParams,
  response: BlocklistEntrySchema,
  handler: ({ ctx, params }) => get(ctx, params.blocklist_entry_id),
});
