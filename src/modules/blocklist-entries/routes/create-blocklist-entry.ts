import { defineRoute } from '../../../http/define-route.ts';
import { BlocklistEntrySchema, CreateBlocklistEntryBody } from '../blocklist-entries.schemas.ts';
import { createBlocklistEntry as create } from '../blocklist-entries.service.ts';

export const createBlocklistEntry = defineRoute({
  operationId: 'createBlocklistEntry',
  method: 'POST',
  url: '/blocklist-entries',
  scope: 'blocklist-entries.write',
  tags: ['blocklist-entries'],
  summary: 'Block a value',
  description:
    'A payment whose card, BIN, e-mail address, IP address, country or buyer matches a live entry is declined before any payment service is called, with error_code `flow_blocklisted` (docs/risk.md, "Blocklists"). The value is normalized before it is stored. A card is named by value (its fingerprint), card_number (turned into the fingerprint at once, never stored), payment_method_id or transaction_id. A value already blocked answers 409 with the existing entry id in resource_id.',
  status: 201,
  body: CreateBlocklistEntryBody,
  response: BlocklistEntrySchema,
  handler: ({ ctx, body }) => create(ctx, body),
});
