import type { Deps } from '../../context.ts';
import { withTransaction } from '../../db/transaction.ts';
import { AppError, fieldRefusal } from '../../errors/app-error.ts';
import * as users from '../dashboard-users/dashboard-users.repo.ts';
import { checkTotpCode, newTotpSecret, openTotpSecret, sealTotpSecret } from '../dashboard-users/totp.ts';
import { recordUserEvent } from '../dashboard-users/user-audit.ts';
import type { DashboardSession } from './dashboard-sessions.schemas.ts';
import {
  currentSession,
  sessionAnswer,
  startSession,
  type LiveSession,
  type SessionAnswer,
} from './dashboard-sessions.service.ts';

const alreadyEnrolled = () => new AppError('duplicate_record', 'A second factor is enrolled already');

/**
 * Starts TOTP enrollment: a new secret, sealed and kept pending until a code confirms it. The
 * answer is the only place the secret is ever shown.
 */
export async function startTotpEnrollment(
  deps: Deps,
  live: LiveSession,
): Promise<{ type: 'totp-enrollment'; secret: string; otpauth_uri: string }> {
  if (live.user.totp_confirmed_at !== null) throw alreadyEnrolled();
  const { secret, uri } = newTotpSecret(live.user.email);
  await users.updateUser(deps.db, live.user.id, {
    ...(await sealTotpSecret(deps.keyring, live.user.id, secret)),
    totp_last_step: null,
  });
  return { type: 'totp-enrollment', secret, otpauth_uri: uri };
}

/**
 * Confirms the pending secret with a code from the app. A session that was waiting for this
 * (an administrator's first sign-in) becomes a full session under a new id.
 */
export async function confirmTotpEnrollment(
  deps: Deps,
  live: LiveSession,
  code: string,
  clientAddress: string,
  requestId: string,
): Promise<SessionAnswer<DashboardSession>> {
  return withTransaction(deps.db, async (tx) => {
    const user = (await users.findUser(tx, live.user.id, { forUpdate: true }))!;
    if (user.totp_confirmed_at !== null) throw alreadyEnrolled();
    if (user.totp_sealed === null || user.totp_master_key_id === null)
      throw new AppError('bad_request', 'Start the enrollment first (POST /dashboard/api/session/totp-enrollment)');
    const step = await checkTotpCode(
      await openTotpSecret(deps.keyring, user.id, user.totp_sealed, user.totp_master_key_id),
      code,
      null,
    );
    if (step === null) throw fieldRefusal('body', '/code', 'Wrong code: enter the code the app shows now');
    const enrolled = await users.updateUser(tx, user.id, { totp_confirmed_at: new Date(), totp_last_step: step });
    await recordUserEvent(tx, enrolled, {
      action: 'updated',
      resource: { type: 'dashboard-user', id: user.id, name: 'second factor (TOTP) enrolled' },
      operationId: 'confirmTotpEnrollment',
      requestId,
    });
    if (live.session.stage === 'active')
      return { body: await currentSession(tx, { ...live, user: enrolled }), setCookie: null };
    return sessionAnswer(
      tx,
      deps,
      await startSession(tx, deps, enrolled, 'active', live.token, clientAddress),
      enrolled,
    );
  });
}
