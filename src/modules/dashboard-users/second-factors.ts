import type { DashboardUserRow } from '../../db/schema-dashboard.ts';
import type { Executor } from '../../db/transaction.ts';
import { countPasskeys } from './passkeys.repo.ts';

export type SecondFactor = 'totp' | 'passkey';

/** The second factors a user has enrolled: a confirmed TOTP secret, one passkey or more. */
export async function secondFactorsOf(
  db: Executor,
  user: Pick<DashboardUserRow, 'id' | 'totp_confirmed_at'>,
): Promise<SecondFactor[]> {
  const factors: SecondFactor[] = [];
  if (user.totp_confirmed_at !== null) factors.push('totp');
  if ((await countPasskeys(db, user.id)) > 0) factors.push('passkey');
  return factors;
}
