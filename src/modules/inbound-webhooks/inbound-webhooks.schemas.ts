import { Type, type Static } from 'typebox';

export const InboundWebhookParams = Type.Object({
  merchant_account_id: Type.String({
    minLength: 1,
    maxLength: 255,
    description: 'The merchant account the payment service belongs to',
  }),
  payment_service_id: Type.String({ format: 'uuid', description: 'The payment service the provider reports about' }),
});

const AppliedAction = Type.Object(
  {
    kind: Type.String({
      description: 'What the provider reported: capture_succeeded, refund_failed, chargeback_opened, ...',
    }),
    transaction_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
      description: "Our transaction, when one matches the provider's payment id",
    }),
    payout_id: Type.Optional(
      Type.Union([Type.String({ format: 'uuid' }), Type.Null()], {
        description: "Of a payout action (payout_succeeded, ...): our payout, when one matches the provider's",
      }),
    ),
    result: Type.Union([
      Type.Literal('applied'),
      Type.Literal('already_final'),
      Type.Literal('still_open'),
      Type.Literal('unknown_transaction'),
      Type.Literal('unknown_payout'),
      Type.Literal('settlement_reporting_disabled'),
      Type.Literal('late_capture_refund_scheduled'),
    ]),
  },
  { additionalProperties: false },
);

const ReceivedEvent = Type.Object(
  {
    event_id: Type.String({
      description:
        "The provider's id of the event (Adyen: `adyen:<eventCode>:<pspReference>:<success>` of one notification item)",
    }),
    duplicate: Type.Boolean({ description: 'This event was received before; nothing changed for it this time' }),
  },
  { additionalProperties: false },
);

export const InboundWebhookReceiptSchema = Type.Object(
  {
    type: Type.Literal('inbound-webhook-receipt'),
    event_id: Type.String({ description: "The provider's id of the event; of a batch (Adyen), its first item's" }),
    duplicate: Type.Boolean({
      description: 'Every event of the request was received before; nothing changed this time',
    }),
    events: Type.Array(ReceivedEvent, {
      description: 'Each event of the request, deduplicated on its own: one, or one per item of an Adyen batch',
    }),
    actions: Type.Array(AppliedAction, {
      description: 'The actions of every event, in order; for a duplicate, what its first delivery did',
    }),
  },
  {
    additionalProperties: false,
    description: "What the server did with a provider's request (the provider only looks at the 2xx status)",
  },
);

export type InboundWebhookReceipt = Static<typeof InboundWebhookReceiptSchema>;

/** One event of the request as received: new (its actions applied now) or a duplicate (its first delivery's actions). */
export interface ReceivedInboundEvent {
  eventId: string;
  duplicate: boolean;
  actions: Array<Record<string, unknown>>;
}

export function toInboundWebhookReceipt(events: ReceivedInboundEvent[]): InboundWebhookReceipt {
  return {
    type: 'inbound-webhook-receipt',
    event_id: events[0]?.eventId ?? '',
    duplicate: events.every((e) => e.duplicate),
    events: events.map((e) => ({ event_id: e.eventId, duplicate: e.duplicate })),
    actions: events
      .flatMap((e) => e.actions)
      .map((a) => ({
        kind: String(a.kind),
        transaction_id: (a.transaction_id as string | null) ?? null,
        ...(a.payout_id !== undefined ? { payout_id: (a.payout_id as string | null) ?? null } : {}),
        result: a.result as InboundWebhookReceipt['actions'][number]['result'],
      })),
  };
}
