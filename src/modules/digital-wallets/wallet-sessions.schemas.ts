import { Type, type Static } from 'typebox';
import { Uuid } from '../../http/schemas/common.ts';
import { DomainName } from './digital-wallets.schemas.ts';

export const ApplePaySessionBody = Type.Object(
  {
    validation_url: Type.String({
      format: 'uri',
      maxLength: 2000,
      description: "The validationURL of Apple Pay JS's onvalidatemerchant event (an Apple host)",
    }),
    domain_name: DomainName(),
  },
  { additionalProperties: false, title: 'ApplePaySessionRequest' },
);
export type ApplePaySessionBody = Static<typeof ApplePaySessionBody>;

/** Apple's merchant session object, passed through as Apple answered it (opaque to clients). */
export const ApplePaySessionSchema = Type.Record(Type.String(), Type.Unknown(), {
  title: 'ApplePaySession',
  description: 'The merchant session to hand to completeMerchantValidation, as is',
});

export const GooglePaySessionBody = Type.Object(
  { origin_domain: DomainName() },
  { additionalProperties: false, title: 'GooglePaySessionRequest' },
);
export type GooglePaySessionBody = Static<typeof GooglePaySessionBody>;

export const GooglePaySessionSchema = Type.Object(
  {
    gateway_merchant_id: Type.String({
      description: 'tokenizationSpecification.parameters.gatewayMerchantId for the Google Pay request (gateway: svc)',
    }),
    token: Type.String({
      description: 'merchantInfo.authJwt: a JWT (ES256) naming the merchant origin, valid for an hour',
    }),
  },
  { additionalProperties: false, title: 'GooglePaySession' },
);

export const ClickToPaySessionBody = Type.Object(
  { checkout_session_id: Uuid({ description: 'The checkout session the buyer pays in' }) },
  { additionalProperties: false, title: 'ClickToPaySessionRequest' },
);
export type ClickToPaySessionBody = Static<typeof ClickToPaySessionBody>;

export const ClickToPaySessionSchema = Type.Object(
  { digital_payment_application_id: Type.String(), digital_payment_application_name: Type.String() },
  { additionalProperties: false, title: 'ClickToPaySession' },
);
export type ClickToPaySession = Static<typeof ClickToPaySessionSchema>;
