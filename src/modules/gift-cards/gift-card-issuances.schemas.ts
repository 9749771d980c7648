import { Type, type Static } from 'typebox';
import type { GiftCardIssuanceRow } from '../../db/schema.ts';
import { Amount, Currency, DateTime, Nullable } from '../../http/schemas/common.ts';
import type { GiftCardServiceResource } from './gift-card-service.ts';
import { GiftCardServiceSchema } from './gift-cards.schemas.ts';

const ExternalIdentifier = () => Type.String({ minLength: 1, maxLength: 200 });

export const CreateGiftCardIssuanceBody = Type.Object(
  {
    theme: Type.String({
      minLength: 1,
      maxLength: 200,
      description: "The gift card service's theme code (the card's design)",
    }),
    amount: Amount({ description: 'The value of the issued card, in the minor units of currency' }),
    currency: Currency(),
    external_identifier: Type.Optional(Nullable(ExternalIdentifier())),
  },
  { additionalProperties: false, title: 'GiftCardIssuanceCreate' },
);
export type CreateGiftCardIssuanceBody = Static<typeof CreateGiftCardIssuanceBody>;

export const GiftCardIssuanceSchema = Type.Object(
  {
    type: Type.Literal('gift-card-issuance'),
    id: Type.String({ format: 'uuid' }),
    merchant_account_id: Type.String(),
    gift_card_service: GiftCardServiceSchema,
    gift_card_service_payment_issuance_id: Type.String({
      description: "The gift card service's id of the issued card",
    }),
    url: Type.String({ description: 'Where the buyer opens the issued virtual gift card' }),
    amount: Type.Integer(),
    currency: Type.String(),
    external_identifier: Type.Optional(Nullable(Type.String())),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { additionalProperties: false, title: 'GiftCardIssuance' },
);
export type GiftCardIssuance = Static<typeof GiftCardIssuanceSchema>;

export function toGiftCardIssuanceResource(
  row: GiftCardIssuanceRow,
  service: GiftCardServiceResource,
): GiftCardIssuance {
  return {
    type: 'gift-card-issuance',
    id: row.id,
    merchant_account_id: row.merchant_account_id,
    gift_card_service: service,
    gift_card_service_payment_issuance_id: row.gift_card_service_payment_issuance_id,
    url: row.url,
    amount: Number(row.amount),
    currency: row.currency,
    external_identifier: row.external_identifier,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
