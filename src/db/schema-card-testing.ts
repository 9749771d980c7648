import type { ColumnType, Selectable } from 'kysely';

/** Throttled sources of the card-testing guard (migration 0067). */
export interface CardTestingThrottlesTable {
  merchant_account_id: string;
  source_mac: string;
  source_type: string;
  opened_at: ColumnType<Date, Date | string, Date | string>;
  throttled_until: ColumnType<Date, Date | string, Date | string>;
  incident_id: string;
}

export type CardTestingThrottleRow = Selectable<CardTestingThrottlesTable>;

declare module './schema.ts' {
  interface Database {
    card_testing_throttles: CardTestingThrottlesTable;
  }
}
