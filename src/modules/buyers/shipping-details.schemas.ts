import { Type, type Static } from 'typebox';
import type { BuyerShippingDetailsRow } from '../../db/schema.ts';
import { AddressResourceSchema, toAddressResource } from '../../http/schemas/address.ts';
import { ItemList, Nullable, Uuid } from '../../http/schemas/common.ts';
import { ContactFields } from './buyers.schemas.ts';
import { maskContactDetails } from './pii-mask.ts';

export const SHIPPING_DETAILS_TYPE = 'shipping-details';

export const CreateShippingDetailsBody = Type.Object(ContactFields, {
  additionalProperties: false,
  title: 'ShippingDetailsCreate',
});
export type CreateShippingDetailsBody = Static<typeof CreateShippingDetailsBody>;

export const UpdateShippingDetailsBody = Type.Object(ContactFields, {
  additionalProperties: false,
  title: 'ShippingDetailsUpdate',
});
export type UpdateShippingDetailsBody = Static<typeof UpdateShippingDetailsBody>;

export const BuyerShippingDetailsParams = Type.Object({
  buyer_id: Uuid({ description: 'ID of the buyer' }),
  shipping_details_id: Uuid({ description: 'ID of the shipping details' }),
});

export const ShippingDetailsSchema = Type.Object(
  {
    type: Type.Literal(SHIPPING_DETAILS_TYPE),
    id: Uuid(),
    buyer_id: Uuid(),
    first_name: Nullable(Type.String()),
    last_name: Nullable(Type.String()),
    email_address: Nullable(Type.String()),
    phone_number: Nullable(Type.String()),
    address: Nullable(AddressResourceSchema),
  },
  {
    additionalProperties: false,
    title: 'ShippingDetails',
    description: 'Contact fields and address are personal data: masked without the scope buyers.billing-details.read',
  },
);
export type ShippingDetails = Static<typeof ShippingDetailsSchema>;

export const ShippingDetailsListSchema = ItemList(ShippingDetailsSchema, 'ShippingDetailsList');

/** The only way a shipping details row becomes a response; `revealPii` false masks the contact fields. */
export function toShippingDetailsResource(row: BuyerShippingDetailsRow, revealPii: boolean): ShippingDetails {
  const resource: ShippingDetails = {
    type: SHIPPING_DETAILS_TYPE,
    id: row.id,
    buyer_id: row.buyer_id,
    first_name: row.first_name,
    last_name: row.last_name,
    email_address: row.email_address,
    phone_number: row.phone_number,
    address: toAddressResource(row.address),
  };
  return revealPii ? resource : maskContactDetails(resource);
}

/** How shipping details are named in audit entries: by their buyer, never by the names or address they hold. */
export function shippingDetailsAuditResource(row: BuyerShippingDetailsRow): { type: string; id: string; name: string } {
  return { type: SHIPPING_DETAILS_TYPE, id: row.id, name: `Shipping details of buyer ${row.buyer_id}` };
}
