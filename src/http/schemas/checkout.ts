import { Type, type Static } from 'typebox';
import { BillingDetailsSchema } from '../../modules/buyers/buyers.schemas.ts';
import { CreateShippingDetailsBody } from '../../modules/buyers/shipping-details.schemas.ts';
import { MinorUnits, Nullable, StringEnum } from './common.ts';

/** Shapes a checkout carries (checkout sessions now; transactions and payment links reuse them). */

export const PRODUCT_TYPES = [
  'physical',
  'discount',
  'shipping_fee',
  'sales_tax',
  'digital',
  'gift_card',
  'store_credit',
  'surcharge',
] as const;

const OptionalString = () => Type.Optional(Nullable(Type.String()));
const OptionalMinor = () => Type.Optional(Nullable(MinorUnits({ minimum: 0, description: 'Minor currency units' })));

export const CartItemSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255 }),
    quantity: Type.Integer({ exclusiveMinimum: 0 }),
    unit_amount: MinorUnits({ minimum: 0, description: 'Minor currency units' }),
    discount_amount: OptionalMinor(),
    tax_amount: OptionalMinor(),
    external_identifier: OptionalString(),
    sku: OptionalString(),
    upc: OptionalString(),
    product_url: OptionalString(),
    image_url: OptionalString(),
    categories: Type.Optional(Nullable(Type.Array(Type.String()))),
    product_type: Type.Optional(Nullable(StringEnum(PRODUCT_TYPES))),
    seller_country: OptionalString(),
    tax_exempt: Type.Optional(Nullable(Type.Boolean())),
    unit_of_measure: OptionalString(),
    commodity_code: OptionalString(),
    description: OptionalString(),
    duty_amount: OptionalMinor(),
    shipping_amount: OptionalMinor(),
  },
  { additionalProperties: false, title: 'CartItem' },
);
export type CartItem = Static<typeof CartItemSchema>;

/** Airline itinerary data; legs and passengers are passed through as given (typed when transactions land). */
export const AirlineSchema = Type.Object(
  {
    booking_code: OptionalString(),
    is_cardholder_traveling: Type.Optional(Nullable(Type.Boolean())),
    issued_address: OptionalString(),
    issued_at: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
    issuing_carrier_code: OptionalString(),
    issuing_carrier_name: OptionalString(),
    issuing_iata_designator: OptionalString(),
    issuing_icao_code: OptionalString(),
    legs: Type.Optional(Nullable(Type.Array(Type.Object({}, { additionalProperties: true })))),
    passenger_name_record: OptionalString(),
    passengers: Type.Optional(Nullable(Type.Array(Type.Object({}, { additionalProperties: true })))),
    reservation_system: OptionalString(),
    restricted_ticket: Type.Optional(Nullable(Type.Boolean())),
    ticket_delivery_method: Type.Optional(Nullable(StringEnum(['electronic', 'other'] as const))),
    ticket_number: OptionalString(),
    travel_agency_code: OptionalString(),
    travel_agency_invoice_number: OptionalString(),
    travel_agency_name: OptionalString(),
    travel_agency_plan_name: OptionalString(),
  },
  { additionalProperties: false, title: 'Airline' },
);

/** A buyer given inline (not stored as a buyer resource). */
export const GuestBuyerSchema = Type.Object(
  {
    display_name: OptionalString(),
    external_identifier: OptionalString(),
    billing_details: Type.Optional(Nullable(BillingDetailsSchema)),
    account_number: OptionalString(),
    shipping_details: Type.Optional(Nullable(CreateShippingDetailsBody)),
  },
  { additionalProperties: false, title: 'GuestBuyer' },
);
