import { Type, type Static } from 'typebox';
import type { WebhookDeliveryAttemptRow, WebhookDeliveryRow } from '../../db/schema-webhooks.ts';
import { DateTime, ListEnvelope, Nullable, PaginationQuery, Uuid } from '../../http/schemas/common.ts';

export const DeliveriesParams = Type.Object({
  subscription_id: Uuid({ description: 'ID of the webhook subscription' }),
});
export const DeliveryParams = Type.Object({
  subscription_id: Uuid({ description: 'ID of the webhook subscription' }),
  delivery_id: Uuid({ description: 'ID of the delivery' }),
});
export const ListDeliveriesQuery = Type.Object({ ...PaginationQuery });
export type ListDeliveriesQuery = Static<typeof ListDeliveriesQuery>;

export const WebhookDeliverySchema = Type.Object(
  {
    type: Type.Literal('webhook-delivery'),
    id: Uuid(),
    subscription_id: Uuid(),
    event_id: Uuid({ description: 'The event sent; receivers deduplicate by it' }),
    event_kind: Type.String({
      description: 'Kind of the event, e.g. `transaction.captured`',
      examples: ['transaction.captured'],
    }),
    resource_id: Type.String({ description: 'ID of the resource the event is about' }),
    status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')], {
      description:
        '`pending` while attempts go on, `succeeded` after a 2xx answer, `failed` when attempts stopped (gave up, or the subscription became inactive)',
    }),
    attempts: Type.Integer({ description: 'Attempts made so far' }),
    last_status_code: Nullable(
      Type.Integer({ description: 'HTTP status of the last attempt; null when it got no answer' }),
    ),
    last_error: Nullable(Type.String({ description: 'Why the last attempt failed (never contains secrets)' })),
    next_attempt_at: Nullable(
      DateTime({ description: 'When the next attempt is due; null once the delivery is over' }),
    ),
    give_up_at: DateTime({
      description: 'Attempts stop after this time (24 hours after the event, or after a re-send)',
    }),
    delivered_at: Nullable(DateTime()),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { additionalProperties: false, title: 'WebhookDelivery' },
);
export type WebhookDelivery = Static<typeof WebhookDeliverySchema>;
export const WebhookDeliveriesSchema = ListEnvelope(WebhookDeliverySchema, 'WebhookDeliveries');

export const WebhookDeliveryAttemptSchema = Type.Object(
  {
    type: Type.Literal('webhook-delivery-attempt'),
    id: Uuid(),
    delivery_id: Uuid(),
    status_code: Nullable(
      Type.Integer({ description: 'HTTP status answered; null for a timeout, a refused connection or a refused URL' }),
    ),
    duration_ms: Type.Integer(),
    error: Nullable(Type.String({ description: 'Why the attempt failed; null on success' })),
    created_at: DateTime(),
  },
  { additionalProperties: false, title: 'WebhookDeliveryAttempt' },
);
export type WebhookDeliveryAttempt = Static<typeof WebhookDeliveryAttemptSchema>;
export const WebhookDeliveryAttemptsSchema = Type.Object(
  { items: Type.Array(WebhookDeliveryAttemptSchema, { description: 'Newest first, at most 100' }) },
  { additionalProperties: false, title: 'WebhookDeliveryAttempts' },
);

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

export function toWebhookDeliveryResource(row: WebhookDeliveryRow & { event_kind: string }): WebhookDelivery {
  return {
    type: 'webhook-delivery',
    id: row.id,
    subscription_id: row.subscription_id,
    event_id: row.event_id,
    event_kind: row.event_kind,
    resource_id: row.resource_id,
    status: row.status,
    attempts: row.attempts,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    next_attempt_at: iso(row.next_attempt_at),
    give_up_at: iso(row.give_up_at)!,
    delivered_at: iso(row.delivered_at),
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
  };
}

export function toWebhookDeliveryAttemptResource(row: WebhookDeliveryAttemptRow): WebhookDeliveryAttempt {
  return {
    type: 'webhook-delivery-attempt',
    id: row.id,
    delivery_id: row.delivery_id,
    status_code: row.status_code,
    duration_ms: row.duration_ms,
    error: row.error,
    created_at: iso(row.created_at)!,
  };
}
