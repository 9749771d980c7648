import { generateRegistrationOptions, verifyRegistrationResponse } from '@simplewebauthn/server';
import type { Deps } from '../../context.ts';
import { withTransaction } from '../../db/transaction.ts';
import { AppError, fieldRefusal, notFound } from '../../errors/app-error.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { requiresSecondFactor } from '../dashboard-users/access.ts';
import * as users from '../dashboard-users/dashboard-users.repo.ts';
import * as passkeys from '../dashboard-users/passkeys.repo.ts';
import { recordUserEvent } from '../dashboard-users/user-audit.ts';
import * as repo from './dashboard-sessions.repo.ts';
import type { DashboardSession } from './dashboard-sessions.schemas.ts';
import {
  currentSession,
  sessionAnswer,
  startSession,
  type LiveSession,
  type SessionAnswer,
} from './dashboard-sessions.service.ts';
import {
  toPasskeyResource,
  toRegistrationOptionsResource,
  type Passkey,
  type PasskeyRegistrationBody,
} from './passkeys.schemas.ts';
import { CEREMONY_SECONDS, SUPPORTED_ALGORITHMS, type RelyingParty } from './webauthn.ts';

/** A user may keep this many passkeys (a phone, a laptop, two security keys, spares). */
export const MAX_PASSKEYS = 10;

const tooMany = () => new AppError('bad_request', `A user may have ${MAX_PASSKEYS} passkeys at most: remove one first`);

const uuidBytes = (id: string) => Buffer.from(id.replaceAll('-', ''), 'hex');

/**
 * Starts registering a passkey: creation options for navigator.credentials.create(), with a new
 * challenge kept on the session (single use, 5 minutes). The user's passkeys are excluded, so one
 * authenticator is not registered twice.
 */
export async function startPasskeyRegistration(deps: Deps, live: LiveSession, rp: RelyingParty) {
  const existing = await passkeys.listPasskeys(deps.db, live.user.id);
  if (existing.length >= MAX_PASSKEYS) throw tooMany();
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: live.user.email,
    userID: uuidBytes(live.user.id),
    userDisplayName: live.user.display_name,
    timeout: CEREMONY_SECONDS * 1000,
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: p.transports })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred', requireResidentKey: false },
    supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
  });
  await repo.setWebauthnChallenge(
    deps.db,
    live.session.id_hash,
    options.challenge,
    new Date(Date.now() + CEREMONY_SECONDS * 1000),
  );
  return toRegistrationOptionsResource(options);
}

const withoutFullStop = (text: string) => (text.endsWith('.') ? text.slice(0, -1) : text);

const refused = (why: string) =>
  fieldRefusal('body', '/credential', `The passkey could not be registered: ${why}. Start again`);

/** The credential of a registration answer, checked against the session's challenge (taken once), origin and relying party. */
async function verifiedCredential(deps: Deps, live: LiveSession, rp: RelyingParty, body: PasskeyRegistrationBody) {
  // Taken in a transaction of its own: a refused answer spends the challenge too.
  const challenge = await withTransaction(deps.db, (tx) =>
    repo.takeWebauthnChallenge(tx, live.session.id_hash, new Date()),
  );
  if (challenge === null) throw refused('no registration is waiting (or it took over 5 minutes)');
  const verification = await verifyRegistrationResponse({
    response: body.credential,
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    requireUserVerification: false,
    supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
  }).catch((error: unknown) => {
    throw refused(error instanceof Error ? withoutFullStop(error.message) : 'the answer is malformed');
  });
  if (!verification.verified) throw refused('the answer was not verified');
  return verification.registrationInfo.credential;
}

/**
 * Keeps the passkey of a checked registration answer. A session that was waiting for this (an
 * administrator's first sign-in) becomes a full session under a new id, as with TOTP.
 */
export async function confirmPasskeyRegistration(
  deps: Deps,
  live: LiveSession,
  rp: RelyingParty,
  body: PasskeyRegistrationBody,
  clientAddress: string,
  requestId: string,
): Promise<SessionAnswer<DashboardSession>> {
  const credential = await verifiedCredential(deps, live, rp, body);
  return withTransaction(deps.db, async (tx) => {
    const user = (await users.findUser(tx, live.user.id, { forUpdate: true }))!;
    if ((await passkeys.countPasskeys(tx, user.id)) >= MAX_PASSKEYS) throw tooMany();
    const row = await passkeys.insertPasskey(tx, {
      id: uuidv7(),
      user_id: user.id,
      credential_id: credential.id,
      public_key: credential.publicKey,
      sign_count: credential.counter,
      transports: (credential.transports ?? []).map(String),
      name: body.name ?? `Passkey ${new Date().toISOString().slice(0, 10)}`,
    });
    if (!row) throw new AppError('duplicate_record', 'This passkey is registered already');
    await recordUserEvent(tx, user, {
      action: 'updated',
      resource: { type: 'dashboard-user', id: user.id, name: `second factor (passkey "${row.name}") enrolled` },
      operationId: 'confirmPasskeyRegistration',
      requestId,
    });
    if (live.session.stage === 'active') return { body: await currentSession(tx, { ...live, user }), setCookie: null };
    return sessionAnswer(tx, deps, await startSession(tx, deps, user, 'active', live.token, clientAddress), user);
  });
}

export async function listPasskeys(deps: Deps, live: LiveSession): Promise<{ items: Passkey[] }> {
  return { items: (await passkeys.listPasskeys(deps.db, live.user.id)).map(toPasskeyResource) };
}

/**
 * Removes one of the user's own passkeys. An administrator keeps at least one second factor: its
 * last one (no TOTP, one passkey) is refused.
 */
export async function deletePasskey(deps: Deps, live: LiveSession, id: string, requestId: string): Promise<null> {
  return withTransaction(deps.db, async (tx) => {
    const user = (await users.findUser(tx, live.user.id, { forUpdate: true }))!;
    const removed = await passkeys.deletePasskey(tx, user.id, id);
    if (!removed) throw notFound('dashboard-passkey', id);
    const left = await passkeys.countPasskeys(tx, user.id);
    if (left === 0 && user.totp_confirmed_at === null && requiresSecondFactor(await users.listMemberships(tx, user.id)))
      throw new AppError(
        'bad_request',
        'This is your last second factor, and administrators must have one: add another before removing it',
      );
    await recordUserEvent(tx, user, {
      action: 'updated',
      resource: { type: 'dashboard-user', id: user.id, name: `second factor (passkey "${removed.name}") removed` },
      operationId: 'deleteDashboardPasskey',
      requestId,
    });
    return null;
  });
}
