import { generateKeyPairSync, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';

export interface GeneratedKeyPair {
  privateKeyPem: string;
  publicJwk: Record<string, string>;
  thumbprint: string;
}

/** The public JWK members that identify an EC key (RFC 7638 order is applied by jose). */
function publicJwkOf(key: KeyObject): Record<string, string> {
  const jwk = key.export({ format: 'jwk' }) as JWK;
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-521' || !jwk.x || !jwk.y) throw new Error('the key is not an EC P-521 key (ES512)');
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

/** The public half and thumbprint of a PEM private key (PKCS#8 or SEC1). */
export async function describePrivateKeyPem(pem: string): Promise<{ publicJwk: Record<string, string>; thumbprint: string; privateKey: KeyObject }> {
  const privateKey = createPrivateKey(pem);
  const publicJwk = publicJwkOf(createPublicKey(privateKey));
  return { publicJwk, thumbprint: await thumbprintOf(publicJwk), privateKey };
}
