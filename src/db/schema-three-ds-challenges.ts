import type { ColumnType, Insertable, Selectable } from 'kysely';

/** Row interface of the sandbox 3DS challenges table (migration 0016), merged into `Database`. */

type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;

export type ThreeDsChallengeStatus = 'pending' | 'completed' | 'failed' | 'expired' | 'canceled';

export interface ThreeDsChallengesTable {
  merchant_account_id: string;
  id: string;
  transaction_id: string;
  status: ThreeDsChallengeStatus;
  /** `{completed, failed}`: the 3DS server's decisions (three-d-secure.ts `ChallengeOutcomes`), as JSON text on write. */
  outcomes: ColumnType<Record<string, unknown>, string, string>;
  store: ColumnType<boolean, boolean | undefined, boolean>;
  /** A raw card's number, sealed by the vault and bound to this row; null for a stored card and once the challenge ended. */
  number_ciphertext: string | null;
  number_key_id: string | null;
  expiration_date: string | null;
  expires_at: Date;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type ThreeDsChallengeRow = Selectable<ThreeDsChallengesTable>;
export type NewThreeDsChallenge = Insertable<ThreeDsChallengesTable>;

declare module './schema.ts' {
  interface Database {
    three_ds_challenges: ThreeDsChallengesTable;
  }
}
