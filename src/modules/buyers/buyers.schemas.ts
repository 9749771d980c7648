import { Type, type Static } from 'typebox';
import type { BillingDetailsJson, BuyerRow } from '../../db/schema.ts';
import { AddressResourceSchema, AddressSchema, toAddressResource } from '../../http/schemas/address.ts';
import { DateTime, ListEnvelope, Nullable, PaginationQuery, StringEnum, Uuid } from '../../http/schemas/common.ts';
import { uuidToBase62 } from '../../lib/base62.ts';
import { maskBillingDetails } from './pii-mask.ts';
import { TAX_ID_KINDS } from './tax-id-kinds.ts';

export const BUYER_TYPE = 'buyer';

const Text = (maxLength: number, description?: string) =>
  Type.String({ minLength: 1, maxLength, ...(description ? { description } : {}) });
const OptionalText = (maxLength: number, description?: string) => Type.Optional(Nullable(Text(maxLength, description)));

/** E.164: `+`, country code, subscriber number; 15 digits at most. */
export const PhoneNumber = () =>
  Type.String({ pattern: '^\\+[1-9][0-9]{1,14}$', description: 'E.164 phone number', examples: ['+14155552671'] });

export const EmailAddress = () => Type.String({ format: 'email', maxLength: 320 });

export const TaxIdSchema = Type.Object(
  {
    value: Text(50, 'The tax id'),
    kind: StringEnum(TAX_ID_KINDS, { description: 'Kind of tax id: country code and scheme' }),
  },
  { additionalProperties: false, title: 'TaxId' },
);

/** The contact fields shared by billing and shipping details; all personal data. */
export const ContactFields = {
  first_name: OptionalText(255),
  last_name: OptionalText(255),
  email_address: Type.Optional(Nullable(EmailAddress())),
  phone_number: Type.Optional(Nullable(PhoneNumber())),
  address: Type.Optional(Nullable(AddressSchema)),
};

export const BillingDetailsSchema = Type.Object(
  { ...ContactFields, tax_id: Type.Optional(Nullable(TaxIdSchema)) },
  { additionalProperties: false, title: 'BillingDetails' },
);
export type BillingDetails = Static<typeof BillingDetailsSchema>;

const Out = () => Nullable(Type.String());

/** Billing details in a response: every field present, null where unknown, masked without the scope. */
export const BillingDetailsResourceSchema = Type.Object(
  {
    first_name: Out(),
    last_name: Out(),
    email_address: Out(),
    phone_number: Out(),
    address: Nullable(AddressResourceSchema),
    tax_id: Nullable(
      Type.Object({ value: Type.String(), kind: Type.String() }, { additionalProperties: false, title: 'TaxId' }),
    ),
  },
  {
    additionalProperties: false,
    title: 'BillingDetails',
    description: 'Personal data: masked without the scope buyers.billing-details.read',
  },
);
export type BillingDetailsResource = Static<typeof BillingDetailsResourceSchema>;

const BuyerFields = {
  display_name: OptionalText(200, 'Name shown in the dashboard and matched by `search`'),
  external_identifier: OptionalText(200, "The merchant's own reference; unique per merchant account"),
  account_number: OptionalText(200),
  billing_details: Type.Optional(Nullable(BillingDetailsSchema)),
};

export const CreateBuyerBody = Type.Object(BuyerFields, { additionalProperties: false, title: 'BuyerCreate' });
export type CreateBuyerBody = Static<typeof CreateBuyerBody>;

export const UpdateBuyerBody = Type.Object(BuyerFields, { additionalProperties: false, title: 'BuyerUpdate' });
export type UpdateBuyerBody = Static<typeof UpdateBuyerBody>;

export const BuyerParams = Type.Object({ buyer_id: Uuid({ description: 'ID of the buyer' }) });

export const ListBuyersQuery = Type.Object({
  ...PaginationQuery,
  search: Type.Optional(Nullable(Text(200, 'Case-insensitive prefix of the display name or the external identifier'))),
  external_identifier: Type.Optional(Nullable(Text(200, 'Exact external identifier'))),
});
export type ListBuyersQuery = Static<typeof ListBuyersQuery>;

export const BuyerSchema = Type.Object(
  {
    type: Type.Literal(BUYER_TYPE),
    id: Uuid(),
    reconciliation_id: Type.String({
      description:
        'Base62 form of the id: the short reference a payment service can be given for the buyer, as a transaction has',
      examples: ['7jZXl4gBUNl0CnaLEnfXbt'],
    }),
    merchant_account_id: Type.String(),
    display_name: Nullable(Type.String()),
    external_identifier: Nullable(Type.String()),
    account_number: Nullable(Type.String()),
    billing_details: Nullable(BillingDetailsResourceSchema),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { additionalProperties: false, title: 'Buyer' },
);
export type Buyer = Static<typeof BuyerSchema>;

export const BuyersSchema = ListEnvelope(BuyerSchema, 'Buyers');

/**
 * The buyer copied onto a transaction or a payout when it was made (a stored buyer's summary, or a
 * guest buyer), as those resources show it: billing details masked without the scope to read them.
 */
export function toBuyerSnapshotResource(snapshot: unknown, revealPii: boolean) {
  const buyer = snapshot as {
    id?: string | null;
    display_name?: string | null;
    external_identifier?: string | null;
    account_number?: string | null;
    billing_details?: BillingDetailsJson | null;
  } | null;
  if (!buyer) return null;
  const billing = toBillingDetailsResource(buyer.billing_details ?? null);
  return {
    type: 'buyer' as const,
    id: buyer.id ?? null,
    display_name: buyer.display_name ?? null,
    external_identifier: buyer.external_identifier ?? null,
    account_number: buyer.account_number ?? null,
    billing_details: revealPii ? billing : maskBillingDetails(billing),
  };
}

/** Every field present, null where unknown. */
export function toBillingDetailsResource(details: BillingDetailsJson | null): BillingDetailsResource | null {
  if (!details) return null;
  return {
    first_name: details.first_name ?? null,
    last_name: details.last_name ?? null,
    email_address: details.email_address ?? null,
    phone_number: details.phone_number ?? null,
    address: toAddressResource(details.address),
    tax_id: details.tax_id ? { value: details.tax_id.value, kind: details.tax_id.kind } : null,
  };
}

/** The only way a buyer row becomes a response; `revealPii` false masks the billing details. */
export function toBuyerResource(row: BuyerRow, revealPii: boolean): Buyer {
  const billing = toBillingDetailsResource(row.billing_details);
  return {
    type: BUYER_TYPE,
    id: row.id,
    reconciliation_id: uuidToBase62(row.id),
    merchant_account_id: row.merchant_account_id,
    display_name: row.display_name,
    external_identifier: row.external_identifier,
    account_number: row.account_number,
    billing_details: revealPii ? billing : maskBillingDetails(billing),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** How a buyer is named in audit entries: its display name, never its personal data. */
export function buyerAuditResource(row: BuyerRow): { type: string; id: string; name: string } {
  return { type: BUYER_TYPE, id: row.id, name: row.display_name ?? 'Unnamed buyer' };
}
