import { Type, type Static } from 'typebox';
import type { FeeEntryJson, PaymentServiceRow } from '../../db/schema.ts';
import { Country, Currency, DateTime, Nullable, StringEnum, Uuid } from '../../http/schemas/common.ts';
import { CARD_SCHEMES, CARD_TYPES } from '../../lib/cards/schemes.ts';

export const FEE_SCHEDULE_TYPE = 'payment-service-fee-schedule';
/** Entries per service: each routing decision of a least_cost rule walks them per candidate. */
export const MAX_FEE_ENTRIES = 100;

const any = (what: string) => `${what}; null or left out: any`;

export const FeeEntrySchema = Type.Object(
  {
    scheme: Type.Optional(Nullable(StringEnum(CARD_SCHEMES, { description: any('The card scheme') }))),
    card_type: Type.Optional(Nullable(StringEnum(CARD_TYPES, { description: any('The card type') }))),
    currency: Type.Optional(Nullable(Currency({ description: any("The transaction's currency") }))),
    country: Type.Optional(Nullable(Country({ description: any("The transaction's country") }))),
    percent: Type.String({
      pattern: '^(0|[1-9][0-9]{0,2})(\\.[0-9]{1,4})?$',
      description:
        'The percentage of the amount, as a decimal string with at most 4 decimals, from 0 to 100 ("2.9" is 2.9 %)',
      examples: ['2.9'],
    }),
    fixed_fee: Type.Optional(
      Nullable(
        Type.Object(
          {
            amount: Type.Integer({ minimum: 0, maximum: 99_999_999, description: 'Minor units' }),
            currency: Currency({
              description:
                "Counted only for transactions in this currency: for a transaction in another one the service's cost is unknown (no conversion)",
            }),
          },
          { additionalProperties: false, title: 'FeeScheduleFixedFee' },
        ),
      ),
    ),
  },
  { additionalProperties: false, title: 'FeeScheduleEntry' },
);

export const PutFeeScheduleBody = Type.Object(
  {
    entries: Type.Array(FeeEntrySchema, {
      maxItems: MAX_FEE_ENTRIES,
      description:
        'The whole schedule (it replaces the stored one). The most specific entry matching a transaction applies; an empty list removes the schedule (the cost becomes unknown).',
    }),
  },
  { additionalProperties: false, title: 'FeeScheduleUpdate' },
);
export type PutFeeScheduleBody = Static<typeof PutFeeScheduleBody>;

const StoredEntrySchema = Type.Object(
  {
    scheme: Nullable(Type.String()),
    card_type: Nullable(Type.String()),
    currency: Nullable(Type.String()),
    country: Nullable(Type.String()),
    percent: Type.String(),
    fixed_fee: Nullable(
      Type.Object(
        { amount: Type.Integer(), currency: Type.String() },
        { additionalProperties: false, title: 'FeeScheduleFixedFeeResource' },
      ),
    ),
  },
  { additionalProperties: false, title: 'FeeScheduleEntryResource' },
);

export const FeeScheduleSchema = Type.Object(
  {
    type: Type.Literal(FEE_SCHEDULE_TYPE),
    payment_service_id: Uuid(),
    entries: Type.Array(StoredEntrySchema, { description: 'Every field present; null: any' }),
    updated_at: Nullable(DateTime({ description: 'null: never set' })),
  },
  { additionalProperties: false, title: 'FeeSchedule' },
);
export type FeeSchedule = Static<typeof FeeScheduleSchema>;

/** An entry as stored: every match field present (null: any). */
export function storedEntry(entry: PutFeeScheduleBody['entries'][number]): FeeEntryJson {
  return {
    scheme: entry.scheme ?? null,
    card_type: entry.card_type ?? null,
    currency: entry.currency ?? null,
    country: entry.country ?? null,
    percent: entry.percent,
    fixed_fee: entry.fixed_fee ?? null,
  };
}

export function toFeeScheduleResource(row: PaymentServiceRow): FeeSchedule {
  return {
    type: FEE_SCHEDULE_TYPE,
    payment_service_id: row.id,
    entries: row.fee_schedule ?? [],
    updated_at: row.fee_schedule_updated_at?.toISOString() ?? null,
  };
}
