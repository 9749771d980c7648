import { Type, type Static } from 'typebox';
import type { BlocklistEntryRow } from '../../db/schema-blocklist.ts';
import {
  DateTime,
  ListEnvelope,
  Nullable,
  NullableOut,
  PaginationQuery,
  StringEnum,
  Uuid,
} from '../../http/schemas/common.ts';
import { BLOCKLIST_VALUE_TYPES } from './blocklist-values.ts';

export const BLOCKLIST_ENTRY_TYPE = 'blocklist-entry';

const ValueType = StringEnum(BLOCKLIST_VALUE_TYPES, {
  description:
    'What the value is: card_fingerprint (a card, by its keyed fingerprint), bin (6 to 8 leading digits), bin_range (`low-high`, same length), email_address, ip_address (IPv4 or IPv6, an address or a CIDR block), country (ISO 3166-1 alpha-2; matched against the transaction country and the billing address country), buyer_external_identifier',
});

export const BlocklistEntrySchema = Type.Object(
  {
    type: Type.Literal(BLOCKLIST_ENTRY_TYPE),
    id: Type.String(),
    merchant_account_id: Type.String(),
    value_type: ValueType,
    value: Type.String({ description: 'The normalized value (e-mail lower-case, country upper-case, IP canonical)' }),
    card_number_masked: NullableOut(
      Type.String({
        description:
          'First 6 and last 4 digits of the blocked card, when it was named by number, payment method or transaction',
      }),
    ),
    description: NullableOut(Type.String()),
    expires_at: NullableOut(DateTime({ description: 'From then on the entry no longer blocks; null: never' })),
    created_at: DateTime(),
  },
  { additionalProperties: false, title: 'BlocklistEntry' },
);
export type BlocklistEntry = Static<typeof BlocklistEntrySchema>;

export const CreateBlocklistEntryBody = Type.Object(
  {
    value_type: ValueType,
    value: Type.Optional(
      Type.String({ minLength: 1, maxLength: 320, description: 'The value to block; normalized before it is stored' }),
    ),
    card_number: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 32,
        description:
          'card_fingerprint only, instead of value: a card number, turned into its keyed fingerprint at once and never stored',
      }),
    ),
    payment_method_id: Type.Optional(
      Uuid({ description: 'card_fingerprint only, instead of value: block the card of this stored payment method' }),
    ),
    transaction_id: Type.Optional(
      Uuid({ description: 'card_fingerprint only, instead of value: block the card this transaction was paid with' }),
    ),
    description: Type.Optional(Nullable(Type.String({ maxLength: 500, description: 'Why the value is blocked' }))),
    expires_at: Type.Optional(
      Nullable(DateTime({ description: 'When the entry stops blocking (in the future); null or absent: never' })),
    ),
  },
  { additionalProperties: false, title: 'BlocklistEntryCreate' },
);
export type CreateBlocklistEntryBody = Static<typeof CreateBlocklistEntryBody>;

export const MAX_IMPORT_ENTRIES = 1_000;

export const ImportBlocklistEntriesBody = Type.Object(
  {
    entries: Type.Array(CreateBlocklistEntryBody, {
      minItems: 1,
      maxItems: MAX_IMPORT_ENTRIES,
      description: 'Each line as the body of a create; all are imported or none',
    }),
  },
  { additionalProperties: false, title: 'BlocklistEntriesImport' },
);
export type ImportBlocklistEntriesBody = Static<typeof ImportBlocklistEntriesBody>;

export const BlocklistImportResultSchema = Type.Object(
  {
    type: Type.Literal('blocklist-import'),
    created: Type.Integer({ description: 'Lines that made a new entry' }),
    existing: Type.Integer({ description: 'Lines whose value was already blocked (the entry is left as it was)' }),
    items: Type.Array(
      Type.Object(
        {
          index: Type.Integer({ description: 'The line, from 0' }),
          id: Type.String({ description: 'The entry that blocks the line' }),
          status: StringEnum(['created', 'existing'] as const),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, title: 'BlocklistImportResult' },
);
export type BlocklistImportResult = Static<typeof BlocklistImportResultSchema>;

export const BlocklistEntryParams = Type.Object({ blocklist_entry_id: Uuid() });

export const ListBlocklistEntriesQuery = Type.Object({
  ...PaginationQuery,
  value_type: Type.Optional(ValueType),
  value: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 320,
      description: 'Exactly this value, normalized like the entries (needs value_type for normalization)',
    }),
  ),
});
export type ListBlocklistEntriesQuery = Static<typeof ListBlocklistEntriesQuery>;

export const BlocklistEntriesSchema = ListEnvelope(BlocklistEntrySchema, 'BlocklistEntries');

export function toBlocklistEntryResource(row: BlocklistEntryRow): BlocklistEntry {
  return {
    type: BLOCKLIST_ENTRY_TYPE,
    id: row.id,
    merchant_account_id: row.merchant_account_id,
    value_type: row.value_type,
    value: row.value,
    card_number_masked: row.card_number_masked,
    description: row.description,
    expires_at: row.expires_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
  };
}

/** The audit entry's name: the kind of value only (an e-mail address or an identifier is personal data). */
export const blocklistAuditResource = (row: BlocklistEntryRow) => ({
  type: BLOCKLIST_ENTRY_TYPE,
  id: row.id,
  name: `Blocklist entry (${row.value_type})`,
});
