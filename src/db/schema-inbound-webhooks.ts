import type { ColumnType, Selectable } from 'kysely';

/** Row interface of the inbound provider webhook events (migration 0028), merged into `Database`. */

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;

export interface InboundWebhookEventsTable {
  merchant_account_id: string;
  payment_service_id: string;
  event_id: string;
  id: string;
  actions: ColumnType<Array<Record<string, unknown>>, string | undefined, string>;
  received_at: CreatedAt;
}

declare module './schema.ts' {
  interface Database {
    inbound_webhook_events: InboundWebhookEventsTable;
  }
}

export type InboundWebhookEventRow = Selectable<InboundWebhookEventsTable>;
