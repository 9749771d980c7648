import { ApiError, post } from './api.ts';
import type { DashboardSession } from './session.ts';

/**
 * Passkeys through the browser's own WebAuthn API (navigator.credentials): the server's options
 * come as JSON with base64url binary fields, and the answers go back the same way
 * (src/modules/dashboard-sessions/passkeys.schemas.ts).
 */

export function toBase64url(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let binary = '';
  for (const byte of view) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

export function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const base64 = text.replaceAll('-', '+').replaceAll('_', '/');
  const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  const bytes = new Uint8Array(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

interface Descriptor {
  id: string;
  type: 'public-key';
  transports?: string[];
}

export interface CreationOptionsJson {
  rp: { name: string; id: string };
  user: { id: string; name: string; displayName: string };
  challenge: string;
  pubKeyCredParams: Array<{ alg: number; type: 'public-key' }>;
  timeout: number;
  excludeCredentials: Descriptor[];
  authenticatorSelection: AuthenticatorSelectionCriteria;
  attestation: string;
}

export interface RequestOptionsJson {
  rpId: string;
  challenge: string;
  timeout: number;
  allowCredentials: Descriptor[];
  userVerification: string;
}

export const passkeysSupported = (): boolean =>
  typeof window !== 'undefined' && window.isSecureContext && 'PublicKeyCredential' in window;

const descriptor = (d: Descriptor): PublicKeyCredentialDescriptor => ({
  id: fromBase64url(d.id),
  type: 'public-key',
  ...(d.transports ? { transports: d.transports as AuthenticatorTransport[] } : {}),
});

/** A browser refusal in words a user can act on (the browser's own messages are for developers). */
function refusal(error: unknown): ApiError {
  const name = error instanceof DOMException ? error.name : '';
  const message =
    name === 'NotAllowedError'
      ? 'The passkey request was cancelled or timed out. Try again.'
      : name === 'InvalidStateError'
        ? 'This authenticator already holds a passkey for your account.'
        : name === 'SecurityError'
          ? 'Passkeys do not work at this address: open the dashboard by its host name.'
          : 'The browser could not use a passkey here.';
  return new ApiError(0, 'passkey_error', message);
}

/** navigator.credentials.create() with the server's registration options; the answer as JSON. */
export async function createPasskey(options: CreationOptionsJson) {
  let credential: PublicKeyCredential;
  try {
    credential = (await navigator.credentials.create({
      publicKey: {
        rp: options.rp,
        user: { ...options.user, id: fromBase64url(options.user.id) },
        challenge: fromBase64url(options.challenge),
        pubKeyCredParams: options.pubKeyCredParams,
        timeout: options.timeout,
        excludeCredentials: options.excludeCredentials.map(descriptor),
        authenticatorSelection: options.authenticatorSelection,
        attestation: options.attestation as AttestationConveyancePreference,
      },
    })) as PublicKeyCredential;
  } catch (error) {
    throw refusal(error);
  }
  const response = credential.response as AuthenticatorAttestationResponse;
  return {
    id: credential.id,
    rawId: toBase64url(credential.rawId),
    type: 'public-key' as const,
    response: {
      clientDataJSON: toBase64url(response.clientDataJSON),
      attestationObject: toBase64url(response.attestationObject),
      transports: response.getTransports?.() ?? [],
    },
    clientExtensionResults: {},
  };
}

/** navigator.credentials.get() with the server's sign-in options; the answer as JSON. */
export async function getPasskey(options: RequestOptionsJson) {
  let credential: PublicKeyCredential;
  try {
    credential = (await navigator.credentials.get({
      publicKey: {
        rpId: options.rpId,
        challenge: fromBase64url(options.challenge),
        timeout: options.timeout,
        allowCredentials: options.allowCredentials.map(descriptor),
        userVerification: options.userVerification as UserVerificationRequirement,
      },
    })) as PublicKeyCredential;
  } catch (error) {
    throw refusal(error);
  }
  const response = credential.response as AuthenticatorAssertionResponse;
  return {
    id: credential.id,
    rawId: toBase64url(credential.rawId),
    type: 'public-key' as const,
    response: {
      clientDataJSON: toBase64url(response.clientDataJSON),
      authenticatorData: toBase64url(response.authenticatorData),
      signature: toBase64url(response.signature),
      ...(response.userHandle ? { userHandle: toBase64url(response.userHandle) } : {}),
    },
    clientExtensionResults: {},
  };
}

const NO_ACCOUNT = { noAccount: true, keepOn401: true } as const;

/** Completes a sign-in waiting for its second factor with a passkey: options, the browser's prompt, the answer. */
export async function passkeyAnswer(): Promise<DashboardSession> {
  const options = await post<{ public_key: RequestOptionsJson }>(
    '/dashboard/api/session/passkey-challenge',
    undefined,
    NO_ACCOUNT,
  );
  const credential = await getPasskey(options.public_key);
  return post<DashboardSession>('/dashboard/api/session/passkey', { credential }, NO_ACCOUNT);
}

/** Registers a passkey for the signed-in user (or one enrolling its second factor); the session after it. */
export async function addPasskey(name: string): Promise<DashboardSession> {
  const options = await post<{ public_key: CreationOptionsJson }>(
    '/dashboard/api/session/passkey-registration',
    undefined,
    NO_ACCOUNT,
  );
  const credential = await createPasskey(options.public_key);
  return post<DashboardSession>(
    '/dashboard/api/session/passkey-registration/confirm',
    { credential, ...(name.trim() ? { name: name.trim() } : {}) },
    NO_ACCOUNT,
  );
}
