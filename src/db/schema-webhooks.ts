import type { ColumnType, Insertable, Selectable } from 'kysely';

/** Row interfaces of events and webhooks (migration 0015), merged into `Database`. */

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
type MaybeTime = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Json<T> = ColumnType<T, string, string>;
type NullableJson<T> = ColumnType<T | null, string | null | undefined, string | null>;
type WithDefault<T> = ColumnType<T, T | undefined, T>;

export interface WebhookSubscriptionsTable {
  merchant_account_id: string;
  id: string;
  url: string;
  active: WithDefault<boolean>;
  secret_ciphertext: string;
  secret_key_id: string;
  secret_hint: WithDefault<string>;
  previous_secret_ciphertext: string | null;
  previous_secret_key_id: string | null;
  previous_secret_expires_at: MaybeTime;
  auth_kind: 'basic' | null;
  auth_username: string | null;
  auth_password_ciphertext: string | null;
  auth_password_key_id: string | null;
  creator: NullableJson<{ id: string; name: string; email_address: string | null }>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface EventsTable {
  merchant_account_id: string;
  id: string;
  kind: string;
  resource_type: string;
  resource_id: string;
  payload: Json<Record<string, unknown>>;
  created_at: CreatedAt;
}

export interface WebhookDeliveriesTable {
  merchant_account_id: string;
  id: string;
  subscription_id: string;
  event_id: string;
  resource_id: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: WithDefault<number>;
  next_attempt_at: MaybeTime;
  give_up_at: Date | string;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: MaybeTime;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface WebhookDeliveryAttemptsTable {
  merchant_account_id: string;
  id: string;
  delivery_id: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  created_at: CreatedAt;
}

declare module './schema.ts' {
  interface Database {
    webhook_subscriptions: WebhookSubscriptionsTable;
    events: EventsTable;
    webhook_deliveries: WebhookDeliveriesTable;
    webhook_delivery_attempts: WebhookDeliveryAttemptsTable;
  }
}

export type WebhookSubscriptionRow = Selectable<WebhookSubscriptionsTable>;
export type NewWebhookSubscription = Insertable<WebhookSubscriptionsTable>;
export type EventRow = Selectable<EventsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type WebhookDeliveryAttemptRow = Selectable<WebhookDeliveryAttemptsTable>;
