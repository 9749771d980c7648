import type { Selectable } from 'kysely';

/** The circuit breakers of payment services (migration 0062), merged into `Database` (schema.ts). */

export interface PaymentServiceCircuitsTable {
  merchant_account_id: string;
  payment_service_id: string;
  state: 'closed' | 'open';
  window_started_at: Date;
  calls: number;
  failures: number;
  previous_calls: number;
  previous_failures: number;
  consecutive_failures: number;
  opened_at: Date | null;
  retry_at: Date | null;
  reason: string | null;
  updated_at: Date;
}

export type PaymentServiceCircuitRow = Selectable<PaymentServiceCircuitsTable>;

declare module './schema.ts' {
  interface Database {
    payment_service_circuits: PaymentServiceCircuitsTable;
  }
}
