import { createPublicKey, randomUUID, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, CompactEncrypt, CompactSign, exportJWK } from 'jose';
import { PAZE_CONTENT_ALG, PAZE_KEY_ALG, PAZE_SIGNATURE_ALG } from './paze.ts';

/**
 * Paze's side of a completeResponse (the sandbox's simulated Paze, `svc wallet-token paze`, tests):
 * the payload signed by Paze (inner JWS), encrypted to the wallet's RSA key (JWE, `kid` = the
 * key's RFC 7638 thumbprint), wrapped with the session in the outer JWS whose protected header
 * carries `iss`, `aud`, `iat`, `exp` and `jti` as Paze's does.
 */

export interface CompleteResponseInput {
  /** The decrypted payload (clientId, profileId, token, dynamicData, ...). */
  data: Record<string, unknown>;
  recipientPublicKey: KeyObject;
  signer: { key: KeyObject; kid: string };
  sessionId: string;
  issuedAt: Date;
  lifetimeSeconds: number;
  issuer: string;
  /** Default: a random UUID. */
  payloadId?: string;
  /** Encrypt the payload's JSON itself instead of a signed inner JWS (both are accepted). */
  plainInner?: boolean;
}

const utf8 = (text: string) => new TextEncoder().encode(text);

export async function makePazeCompleteResponse(
  input: CompleteResponseInput,
): Promise<{ payloadId: string; completeResponse: string; securedPayload: string }> {
  const payloadId = input.payloadId ?? randomUUID();
  const json = JSON.stringify(input.data);
  const inner = input.plainInner
    ? json
    : await new CompactSign(utf8(json))
        .setProtectedHeader({ alg: PAZE_SIGNATURE_ALG, kid: input.signer.kid, typ: 'JOSE' })
        .sign(input.signer.key);
  const recipient =
    input.recipientPublicKey.type === 'public' ? input.recipientPublicKey : createPublicKey(input.recipientPublicKey);
  const kid = await calculateJwkThumbprint(await exportJWK(recipient));
  const securedPayload = await new CompactEncrypt(utf8(inner))
    .setProtectedHeader({ alg: PAZE_KEY_ALG, enc: PAZE_CONTENT_ALG, kid, cty: 'JWT' })
    .encrypt(recipient);
  const iat = Math.floor(input.issuedAt.getTime() / 1000);
  const header = {
    alg: PAZE_SIGNATURE_ALG,
    typ: 'JWT',
    kid: input.signer.kid,
    iss: input.issuer,
    aud: 'file://',
    iat,
    exp: iat + input.lifetimeSeconds,
    jti: randomUUID(),
  };
  const completeResponse = await new CompactSign(
    utf8(JSON.stringify({ payloadId, sessionId: input.sessionId, securedPayload })),
  )
    .setProtectedHeader(header)
    .sign(input.signer.key);
  return { payloadId, completeResponse, securedPayload };
}
