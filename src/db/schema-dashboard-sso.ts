import type { ColumnType, Selectable } from 'kysely';

/** Row interfaces of the dashboard's single sign-on (migration 0059), merged into `Database` (schema.ts). */

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;

export interface DashboardSsoLoginsTable {
  state_hash: string;
  nonce: string;
  code_verifier: string;
  return_to: ColumnType<string, string | undefined, string>;
  created_at: CreatedAt;
  expires_at: Date;
}

export interface DashboardSsoIdentitiesTable {
  issuer: string;
  subject: string;
  user_id: string;
  created_at: CreatedAt;
  last_used_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export type DashboardSsoLoginRow = Selectable<DashboardSsoLoginsTable>;
export type DashboardSsoIdentityRow = Selectable<DashboardSsoIdentitiesTable>;
