import { defineRoute } from '../../../http/define-route.ts';
import { BlocklistEntryParams } from '../blocklist-entries.schemas.ts';
import { deleteBlocklistEntry as remove } from '../blocklist-entries.service.ts';

export const deleteBlocklistEntry = defineRoute({
  operationId: 'deleteBlocklistEntry',
  method: 'DELETE',
  url: '/blocklist-entries/:blocklist_entry_id',
  scope: 'blocklist-entries.write',
  tags: ['blocklist-entries'],
  summary: 'Unblock a value: delete its entry',
  description: 'Every process stops matching the entry as soon as the deletion commits (docs/risk.md).',
  status: 204,
  params: BlocklistEntryParams,
  response: null,
  handler: ({ ctx, params }) => remove(ctx, params.blocklist_entry_id),
});
