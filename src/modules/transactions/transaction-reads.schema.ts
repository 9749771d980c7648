import { Type } from 'typebox';
import type { ChargebackRow, SettlementRow, TransactionEventRow } from '../../db/schema-transactions.ts';
import { DateTime, Defaulted, ItemList, ListEnvelope, NullableOut, StringEnum } from '../../http/schemas/common.ts';

export const TransactionActionSchema = Type.Object(
  {
    type: Type.Literal('action'),
    id: StringEnum(['select-payment-options', 'route-transaction', 'decline-early', 'skip-3ds'] as const),
    flow: StringEnum(['checkout', 'card-transaction', 'non-card-transaction', 'redirect-transaction'] as const),
    rule_id: Type.String(),
    created_at: DateTime(),
    outcome: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'What the action decided (docs/routing.md, "The decision trace"). route-transaction: `rule`, `eligible` (in the order tried), `skipped` (with reasons), `selected`, `order` (the rule\'s), `max_attempts`, `time_budget_seconds`, `weights`; with strategy success_rate also `strategy` and `success_rate` (a SuccessRateDecision: seed, draw, explored, the parameters, chosen, reason, and per candidate its estimated rate, samples, dimension key and sampled value); with strategy least_cost also `strategy` and `least_cost` (a LeastCostDecision: the parameters, the best rate, chosen, reason, and per candidate its expected cost, fee entry, estimated rate, samples and whether it is within the margin); a failover step: `failover`; a step-up authentication: `step_up`.',
    }),
  },
  { additionalProperties: false, title: 'TransactionAction' },
);
export const TransactionActionsSchema = ItemList(TransactionActionSchema, 'TransactionActions');

export const TransactionEventSchema = Type.Object(
  {
    type: Type.Literal('transaction-event'),
    id: Type.String(),
    name: Type.String(),
    created_at: DateTime(),
    context: Type.Record(Type.String(), Type.Unknown()),
  },
  { additionalProperties: false, title: 'TransactionEvent' },
);
export const TransactionEventsSchema = ListEnvelope(TransactionEventSchema, 'TransactionEvents');

export const ListTransactionEventsQuery = Type.Object({
  cursor: Type.Optional(NullableOut(Type.String({ minLength: 1, maxLength: 1000 }))),
  limit: Defaulted(Type.Integer({ minimum: 1, maximum: 100, default: 100, description: 'Page size' })),
});

export const SettlementSchema = Type.Object(
  {
    type: Type.Literal('settlement'),
    id: Type.String(),
    merchant_account_id: Type.String(),
    created_at: DateTime(),
    updated_at: DateTime(),
    posted_at: DateTime(),
    ingested_at: DateTime(),
    currency: Type.String(),
    amount: Type.Integer(),
    exchange_rate: NullableOut(Type.Number()),
    commission: Type.Integer(),
    interchange: NullableOut(Type.Integer()),
    markup: NullableOut(Type.Integer()),
    scheme_fee: NullableOut(Type.Integer()),
    payment_service_report_id: Type.String(),
    payment_service_report_file_ids: Type.Array(Type.String()),
    transaction_id: Type.String(),
  },
  { additionalProperties: false, title: 'Settlement' },
);
export const SettlementsSchema = ItemList(SettlementSchema, 'Settlements');

/** A refund's settlement: the settlement record with the refund it settles; `amount` is negative, as in `GET .../settlements`. */
export const RefundSettlementSchema = Type.Object(
  {
    ...Type.Omit(SettlementSchema, ['type']).properties,
    type: Type.Literal('refund-settlement'),
    refund_id: Type.String(),
  },
  { additionalProperties: false, title: 'RefundSettlement' },
);
export const RefundSettlementsSchema = ItemList(RefundSettlementSchema, 'RefundSettlements');
/**
 * A chargeback or a chargeback reversal: a line of the payment service's settlement report, with a
 * settlement's fields (`amount` positive: what the line takes back, or gives back).
 */
const ledgerLine = <T extends 'chargeback' | 'chargeback-reversal'>(type: T, title: string) =>
  Type.Object(
    { type: Type.Literal(type), ...Type.Omit(SettlementSchema, ['type']).properties },
    { additionalProperties: false, title },
  );
export const ChargebackSchema = ledgerLine('chargeback', 'Chargeback');
export const ChargebacksSchema = ItemList(ChargebackSchema, 'Chargebacks');
export const ChargebackReversalSchema = ledgerLine('chargeback-reversal', 'ChargebackReversal');
export const ChargebackReversalsSchema = ItemList(ChargebackReversalSchema, 'ChargebackReversals');

export const SettlementParams = Type.Object({
  transaction_id: Type.String({ format: 'uuid' }),
  settlement_id: Type.String({ format: 'uuid' }),
});

const time = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();

export function toEventResource(row: TransactionEventRow) {
  return {
    type: 'transaction-event' as const,
    id: row.id,
    name: row.name,
    created_at: row.created_at.toISOString(),
    context: row.context,
  };
}

/** A settlement record, or the settlement fields of another report line (a chargeback). */
export function toSettlementResource(row: Omit<SettlementRow, 'refund_id' | 'capture_attempt_id'>) {
  return {
    type: 'settlement' as const,
    id: row.id,
    merchant_account_id: row.merchant_account_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    posted_at: time(row.posted_at),
    ingested_at: time(row.ingested_at),
    currency: row.currency,
    amount: row.amount,
    exchange_rate: row.exchange_rate,
    commission: row.commission,
    interchange: row.interchange,
    markup: row.markup,
    scheme_fee: row.scheme_fee,
    payment_service_report_id: row.payment_service_report_id,
    payment_service_report_file_ids: row.payment_service_report_file_ids,
    transaction_id: row.transaction_id,
  };
}

export function toChargebackResource<K extends ChargebackRow['kind']>(row: ChargebackRow & { kind: K }) {
  const { type: _settlement, ...fields } = toSettlementResource(row);
  return { type: row.kind as K, ...fields };
}

export function toRefundSettlementResource(row: SettlementRow & { refund_id: string }) {
  return { ...toSettlementResource(row), type: 'refund-settlement' as const, refund_id: row.refund_id };
}
