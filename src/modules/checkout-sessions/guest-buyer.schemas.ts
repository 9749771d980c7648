import { Type, type Static } from 'typebox';
import type { AddressJson, BillingDetailsJson } from '../../db/schema.ts';
import { AddressResourceSchema, toAddressResource } from '../../http/schemas/address.ts';
import { Nullable } from '../../http/schemas/common.ts';
import { BillingDetailsResourceSchema, toBillingDetailsResource } from '../buyers/buyers.schemas.ts';
import { maskBillingDetails, maskContactDetails } from '../buyers/pii-mask.ts';

const Out = () => Nullable(Type.String());

const ContactResourceSchema = Type.Object(
  {
    first_name: Out(),
    last_name: Out(),
    email_address: Out(),
    phone_number: Out(),
    address: Nullable(AddressResourceSchema),
  },
  {
    additionalProperties: false,
    title: 'ShippingDetails',
    description: 'Personal data: masked without the scope buyers.billing-details.read',
  },
);

/**
 * The guest buyer of a checkout session in a response: every field present, null where unknown.
 * Plain strings, not the request's formats: a masked e-mail or phone number is no longer one.
 */
export const GuestBuyerResourceSchema = Type.Object(
  {
    display_name: Out(),
    external_identifier: Out(),
    account_number: Out(),
    billing_details: Nullable(BillingDetailsResourceSchema),
    shipping_details: Nullable(ContactResourceSchema),
  },
  { additionalProperties: false, title: 'GuestBuyer' },
);
export type GuestBuyerResource = Static<typeof GuestBuyerResourceSchema>;

interface StoredGuestBuyer {
  display_name?: string | null;
  external_identifier?: string | null;
  account_number?: string | null;
  billing_details?: BillingDetailsJson | null;
  shipping_details?: (Omit<BillingDetailsJson, 'tax_id'> & { address?: AddressJson | null }) | null;
}

function toContactResource(details: StoredGuestBuyer['shipping_details']): GuestBuyerResource['shipping_details'] {
  if (!details) return null;
  const { first_name, last_name, email_address, phone_number, address } = details;
  return {
    first_name: first_name ?? null,
    last_name: last_name ?? null,
    email_address: email_address ?? null,
    phone_number: phone_number ?? null,
    address: toAddressResource(address),
  };
}

/**
 * A stored guest buyer as a response. Its billing and shipping details are personal data like a
 * stored buyer's: masked with the buyers' rules unless `revealPii` (scope buyers.billing-details.read).
 */
export function toGuestBuyerResource(
  stored: Record<string, unknown> | null,
  revealPii: boolean,
): GuestBuyerResource | null {
  if (!stored) return null;
  const buyer = stored as StoredGuestBuyer;
  const billing = toBillingDetailsResource(buyer.billing_details ?? null);
  const shipping = toContactResource(buyer.shipping_details);
  return {
    display_name: buyer.display_name ?? null,
    external_identifier: buyer.external_identifier ?? null,
    account_number: buyer.account_number ?? null,
    billing_details: revealPii ? billing : maskBillingDetails(billing),
    shipping_details: revealPii || !shipping ? shipping : maskContactDetails(shipping),
  };
}
