import type { ColumnType, Selectable } from 'kysely';

/** Row interfaces of dashboard users, sessions (migration 0055) and passkeys (0058), merged into `Database` (schema.ts). */

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
type WithDefault<T> = ColumnType<T, T | undefined, T>;

export type DashboardUserStatus = 'active' | 'disabled';

export interface DashboardUsersTable {
  id: string;
  email: string;
  display_name: string;
  status: WithDefault<DashboardUserStatus>;
  password_hash: string | null;
  totp_sealed: string | null;
  totp_master_key_id: string | null;
  totp_confirmed_at: Date | null;
  totp_last_step: ColumnType<string | null, number | string | null | undefined, number | string | null>;
  failed_attempts: WithDefault<number>;
  locked_until: Date | null;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface DashboardMembershipsTable {
  user_id: string;
  merchant_account_id: string | null;
  role: string;
  created_at: CreatedAt;
}

export interface DashboardSetupTokensTable {
  token_hash: string;
  user_id: string;
  expires_at: Date;
  used_at: Date | null;
  created_at: CreatedAt;
}

export type DashboardSessionStage = 'second-factor' | 'enrollment' | 'active';

export interface DashboardSessionsTable {
  id_hash: string;
  id: string;
  user_id: string;
  stage: DashboardSessionStage;
  csrf_token: string;
  client_address: string | null;
  created_at: CreatedAt;
  last_seen_at: UpdatedAt;
  expires_at: Date;
  revoked_at: Date | null;
  webauthn_challenge: ColumnType<string | null, string | null | undefined, string | null>;
  webauthn_challenge_expires_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** A passkey (WebAuthn credential) of a dashboard user (migration 0058). */
export interface DashboardPasskeysTable {
  id: string;
  user_id: string;
  credential_id: string;
  public_key: Uint8Array;
  sign_count: ColumnType<number, number | undefined, number>;
  transports: ColumnType<string[], string[] | undefined, string[]>;
  name: string;
  created_at: CreatedAt;
  last_used_at: Date | null;
}

export type DashboardUserRow = Selectable<DashboardUsersTable>;
export type DashboardMembershipRow = Selectable<DashboardMembershipsTable>;
export type DashboardSessionRow = Selectable<DashboardSessionsTable>;
export type DashboardPasskeyRow = Selectable<DashboardPasskeysTable>;
