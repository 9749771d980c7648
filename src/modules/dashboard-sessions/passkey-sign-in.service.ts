import { generateAuthenticationOptions, verifyAuthenticationResponse } from '@simplewebauthn/server';
import type { Deps } from '../../context.ts';
import { withTransaction } from '../../db/transaction.ts';
import { AppError, unauthorized } from '../../errors/app-error.ts';
import * as passkeys from '../dashboard-users/passkeys.repo.ts';
import * as repo from './dashboard-sessions.repo.ts';
import type { DashboardSession } from './dashboard-sessions.schemas.ts';
import { resolveSession, type LiveSession, type SessionAnswer } from './dashboard-sessions.service.ts';
import { toSignInOptionsResource, type PasskeySignInBody } from './passkeys.schemas.ts';
import { completeSignIn, countAttempt, isLocked, refuse, refuseLocked } from './sign-in.service.ts';
import { CEREMONY_SECONDS, type RelyingParty } from './webauthn.ts';

const OPERATION = 'verifySignInPasskey';

async function waitingSession(deps: Deps, token: string | null): Promise<LiveSession> {
  const live = await resolveSession(deps, token);
  if (live?.session.stage !== 'second-factor')
    throw unauthorized('No sign-in waiting for a second factor: sign in again');
  return live;
}

/**
 * Step two with a passkey, first half: request options for navigator.credentials.get() naming the
 * user's passkeys, with a new challenge kept on the session (single use, 5 minutes).
 */
export async function startPasskeySignIn(deps: Deps, token: string | null, rp: RelyingParty) {
  const live = await waitingSession(deps, token);
  const own = await passkeys.listPasskeys(deps.db, live.user.id);
  if (own.length === 0) throw new AppError('bad_request', 'This user has no passkey: use the authenticator app');
  const options = await generateAuthenticationOptions({
    rpID: rp.id,
    allowCredentials: own.map((p) => ({ id: p.credential_id, transports: p.transports as never })),
    userVerification: 'preferred',
    timeout: CEREMONY_SECONDS * 1000,
  });
  await repo.setWebauthnChallenge(
    deps.db,
    live.session.id_hash,
    options.challenge,
    new Date(Date.now() + CEREMONY_SECONDS * 1000),
  );
  return toSignInOptionsResource(options);
}

/**
 * Step two with a passkey: the authenticator's signature over the session's challenge (taken once,
 * whatever the outcome), from the expected origin and relying party, by one of the user's
 * passkeys, with a signature counter above the stored one (unless the authenticator keeps none). A
 * refusal counts toward the lockout as a wrong code does. The session id changes again.
 */
export async function verifyPasskeySignIn(
  deps: Deps,
  input: { token: string | null; body: PasskeySignInBody; rp: RelyingParty; clientAddress: string; requestId: string },
): Promise<SessionAnswer<DashboardSession>> {
  await countAttempt(deps, input.clientAddress);
  const live = await waitingSession(deps, input.token);
  const user = live.user;
  if (isLocked(user)) return refuseLocked(deps, user, input.requestId, OPERATION);
  const challenge = await withTransaction(deps.db, (tx) =>
    repo.takeWebauthnChallenge(tx, live.session.id_hash, new Date()),
  );
  const passkey = await passkeys.findUserPasskey(deps.db, user.id, input.body.credential.id);
  if (challenge === null || !passkey) return refuse(deps, user, 'passkey refused', input.requestId, OPERATION);
  const verification = await verifyAuthenticationResponse({
    response: input.body.credential,
    expectedChallenge: challenge,
    expectedOrigin: input.rp.origin,
    expectedRPID: input.rp.id,
    credential: {
      id: passkey.credential_id,
      publicKey: new Uint8Array(passkey.public_key),
      counter: passkey.sign_count,
      transports: passkey.transports as never,
    },
    requireUserVerification: false,
  }).catch(() => null);
  if (
    !verification?.verified ||
    !(await passkeys.recordPasskeyUse(
      deps.db,
      passkey.id,
      passkey.sign_count,
      verification.authenticationInfo.newCounter,
      new Date(),
    ))
  )
    return refuse(deps, user, 'passkey refused', input.requestId, OPERATION);
  return completeSignIn(deps, user, input.token, input.clientAddress, input.requestId, OPERATION, 'passkey');
}
