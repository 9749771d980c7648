import { Type, type Static } from 'typebox';

export const InboundWebhookParams = Type.Object({
  merchant_account_id: Type.String({ minLength: 1, maxLength: 255, description: 'The merchant account the payment service belongs to' }),
  payment_service_id: Type.String({ format: 'uuid', description: 'The payment service the provider reports about' }),
});

const AppliedAction = Type.Object(
  {
    kind: Type.String({ description: 'What the provider reported: capture_succeeded, refund_failed, chargeback_opened, ...' }),
    transaction_id: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description: 'Our transaction, when one matches the provider\'s payment id' }),
    result: Type.Union([Type.Literal('applied'), Type.Literal('already_final'), Type.Literal('still_open'), Type.Literal('unknown_transaction')]),
  },
  { additionalProperties: false },
);

export const InboundWebhookReceiptSchema = Type.Object(
  {
    type: Type.Literal('inbound-webhook-receipt'),
    event_id: Type.String({ description: 'The provider\'s id of the event' }),
    duplicate: Type.Boolean({ description: 'The event was received before; nothing changed this time' }),
    actions: Type.Array(AppliedAction),
  },
  { additionalProperties: false, description: 'What the server did with a provider\'s event (the provider only looks at the 2xx status)' },
);

export type InboundWebhookReceipt = Static<typeof InboundWebhookReceiptSchema>;

export function toInboundWebhookReceipt(eventId: string, duplicate: boolean, actions: Array<Record<string, unknown>>): InboundWebhookReceipt {
  return {
    type: 'inbound-webhook-receipt', event_id: eventId, duplicate,
    actions: actions.map((a) => ({ kind: String(a.kind), transaction_id: (a.transaction_id as string | null) ?? null, result: a.result as InboundWebhookReceipt['actions'][number]['result'] })),
  };
}
