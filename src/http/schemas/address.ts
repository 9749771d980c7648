import { Type, type Static } from 'typebox';
import { Country, Nullable } from './common.ts';

const Text = (maxLength: number, description?: string) =>
  Type.Optional(Nullable(Type.String({ minLength: 1, maxLength, ...(description ? { description } : {}) })));

/**
 * A postal address in a request (spec "Address object"); every field optional and nullable.
 * Addresses of people are personal data: see `src/modules/buyers/pii-mask.ts` before returning one.
 */
export const AddressSchema = Type.Object(
  {
    city: Text(100),
    country: Type.Optional(Nullable(Country())),
    postal_code: Text(50),
    state: Text(255),
    state_code: Type.Optional(
      Nullable(
        Type.String({
          pattern: '^[A-Z]{2}-[A-Z0-9]{1,3}$',
          description: 'ISO 3166-2 subdivision code',
          examples: ['US-CA'],
        }),
      ),
    ),
    house_number_or_name: Text(255),
    line1: Text(255),
    line2: Text(255),
    organization: Text(255),
  },
  { additionalProperties: false, title: 'Address' },
);
export type Address = Static<typeof AddressSchema>;

const Out = () => Nullable(Type.String());

/** An address in a response: every field present, null where unknown, values possibly masked. */
export const AddressResourceSchema = Type.Object(
  {
    city: Out(),
    country: Out(),
    postal_code: Out(),
    state: Out(),
    state_code: Out(),
    house_number_or_name: Out(),
    line1: Out(),
    line2: Out(),
    organization: Out(),
  },
  { additionalProperties: false, title: 'Address' },
);
export type AddressResource = Static<typeof AddressResourceSchema>;

/** The address fields in wire order; an absent field reads as null. */
export const ADDRESS_FIELDS = [
  'city',
  'country',
  'postal_code',
  'state',
  'state_code',
  'house_number_or_name',
  'line1',
  'line2',
  'organization',
] as const;

/** Every field present, null where unknown: responses always carry the full shape. */
export function toAddressResource(address: Address | null | undefined): AddressResource | null {
  if (!address) return null;
  return Object.fromEntries(ADDRESS_FIELDS.map((field) => [field, address[field] ?? null])) as AddressResource;
}
