import type { Config } from '../../config.ts';

/** Who the passkeys are for: the relying party id (a host name) and the one origin accepted. */
export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

/** The name an authenticator shows beside the passkey. */
export const RP_NAME = 'svc dashboard';

/** A WebAuthn ceremony (registration or sign-in) must end within this (the challenge then expires). */
export const CEREMONY_SECONDS = 300;

/** The public key algorithms offered: EdDSA, ES256, RS256 (COSE ids). */
export const SUPPORTED_ALGORITHMS = [-8, -7, -257];

/**
 * The relying party of a request. In production it is PUBLIC_URL's host and origin, whatever the
 * request says, so a passkey works on that host only. A sandbox is opened under whatever name
 * reaches it (localhost, 127.0.0.1, a LAN name), so there the request's own host and scheme are
 * used; the browser still binds the passkey to the origin it shows (clientDataJSON) and the
 * check below compares it with that origin exactly.
 */
export function relyingParty(
  config: Pick<Config, 'environment' | 'publicUrl'>,
  request: { protocol: string; host: string; hostname: string },
): RelyingParty {
  if (config.environment === 'production') {
    const url = new URL(config.publicUrl);
    return { id: url.hostname, origin: url.origin, name: RP_NAME };
  }
  // Through URL, so a default port is dropped as browsers drop it (http://localhost:80 is http://localhost).
  return { id: request.hostname, origin: new URL(`${request.protocol}://${request.host}`).origin, name: RP_NAME };
}
