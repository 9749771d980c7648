import type { ColumnType, Insertable, Selectable, Updateable } from 'kysely';

/** Row interface of the flow rules table (migration 0019), merged into `Database`. */

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
/** JSON columns are written as JSON text. */
type Json<T> = ColumnType<T, string, string>;

export type FlowName = 'checkout' | 'card-transaction' | 'non-card-transaction' | 'redirect-transaction';
export type FlowActionName = 'select-payment-options' | 'route-transaction' | 'decline-early' | 'skip-3ds';

/** One condition of a rule, as stored (validated by modules/flows/rule-conditions.ts). */
export interface FlowConditionJson {
  field: string;
  operator: 'equals' | 'one_of' | 'not_one_of' | 'range' | 'prefix' | 'greater_than' | 'less_than';
  /** Metadata conditions only: the metadata key. */
  key?: string | null;
  value: unknown;
}

export interface FlowRulesTable {
  merchant_account_id: string;
  id: string;
  flow: FlowName;
  action: FlowActionName;
  position: number;
  description: string | null;
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  conditions: Json<FlowConditionJson[]>;
  outcome: Json<Record<string, unknown>>;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type FlowRuleRow = Selectable<FlowRulesTable>;
export type NewFlowRule = Insertable<FlowRulesTable>;
export type FlowRulePatch = Omit<
  Updateable<FlowRulesTable>,
  'merchant_account_id' | 'id' | 'flow' | 'action' | 'created_at'
>;

declare module './schema.ts' {
  interface Database {
    flow_rules: FlowRulesTable;
  }
}
