import { generateKeyPairSync, createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';

export interface GeneratedKeyPair {
  privateKeyPem: string;
  publicJwk: Record<string, string>;
  thumbprint: string;
}

/** The public JWK members that identify an EC key (RFC 7638 order is applied by jose). */
function publicJwkOf(key: KeyObject): Record<string, string> {
  const jwk = key.export({ format: 'jwk' }) as JWK;
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-521' || !jwk.x || !jwk.y)
    throw new Error('the key is not an EC P-521 key (ES512)');
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
}

export async function thumbprintOf(publicJwk: Record<string, string>): Promise<string> {
  return calculateJwkThumbprint(publicJwk as JWK, 'sha256');
}

/** A new ES512 (ECDSA P-521) key pair; the private key as PKCS#8 PEM. */
export async function generateEs512KeyPair(): Promise<GeneratedKeyPair> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-521' });
  const publicJwk = publicJwkOf(publicKey);
  return {
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicJwk,
    thumbprint: await thumbprintOf(publicJwk),
  };
}

/** Why a key offered for registration is refused. */
export class PublicKeyError extends Error {
  constructor(
    readonly reason: 'private_key' | 'malformed' | 'unsupported',
    message: string,
  ) {
    super(message);
    this.name = 'PublicKeyError';
  }
}

const PEM_PUBLIC = /^-----BEGIN (RSA )?PUBLIC KEY-----\r?\n[\s\S]+\r?\n-----END (RSA )?PUBLIC KEY-----$/;

function parsePublicKey(input: string | Record<string, unknown>): KeyObject {
  if (typeof input === 'string') {
    const pem = input.trim();
    // Node would derive a public key from a private one; a private key sent to us is refused instead.
    if (pem.includes('PRIVATE KEY'))
      throw new PublicKeyError(
        'private_key',
        'public_key holds a private key; send only the public key and keep the private key to yourself',
      );
    if (!PEM_PUBLIC.test(pem))
      throw new PublicKeyError(
        'malformed',
        'public_key must be a PEM public key (-----BEGIN PUBLIC KEY-----, SPKI) or a JWK object',
      );
    try {
      return createPublicKey({ key: pem, format: 'pem' });
    } catch {
      throw new PublicKeyError('malformed', 'public_key is not a readable PEM public key');
    }
  }
  if ('d' in input)
    throw new PublicKeyError(
      'private_key',
      'public_key holds a private key (JWK member d); send only the public key and keep the private key to yourself',
    );
  if (input.kty !== 'EC' || input.crv !== 'P-521')
    throw new PublicKeyError('unsupported', 'Only ES512 keys (ECDSA on curve P-521) are accepted');
  try {
    return createPublicKey({ key: { kty: 'EC', crv: 'P-521', x: input.x, y: input.y } as JsonWebKey, format: 'jwk' });
  } catch {
    throw new PublicKeyError(
      'malformed',
      'public_key is not a valid P-521 public key (x and y must be the base64url coordinates of a point on the curve)',
    );
  }
}

/**
 * The normalized public JWK and thumbprint of a key offered for registration: a PEM SPKI public key
 * or a public JWK. Only EC P-521 (ES512) keys are accepted; a private key is refused.
 */
export async function describePublicKey(
  input: string | Record<string, unknown>,
): Promise<{ publicJwk: Record<string, string>; thumbprint: string }> {
  const key = parsePublicKey(input);
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'secp521r1') {
    throw new PublicKeyError('unsupported', 'Only ES512 keys (ECDSA on curve P-521) are accepted');
  }
  const publicJwk = publicJwkOf(key);
  return { publicJwk, thumbprint: await thumbprintOf(publicJwk) };
}

/** The public half and thumbprint of a PEM private key (PKCS#8 or SEC1). */
export async function describePrivateKeyPem(
  pem: string,
): Promise<{ publicJwk: Record<string, string>; thumbprint: string; privateKey: KeyObject }> {
  const privateKey = createPrivateKey(pem);
  const publicJwk = publicJwkOf(createPublicKey(privateKey));
  return { publicJwk, thumbprint: await thumbprintOf(publicJwk), privateKey };
}
