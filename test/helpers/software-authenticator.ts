import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { cborEncode, type CborValue } from './cbor.ts';

/**
 * A software WebAuthn authenticator for HTTP tests: ES256 key pairs made with node:crypto,
 * 'none' attestation, answers in the JSON form the console sends (base64url fields). Each answer
 * may be bent (another origin, relying party, counter, challenge) to test the server's checks.
 */

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

export interface SoftCredential {
  id: Buffer;
  privateKey: KeyObject;
  publicKey: KeyObject;
  signCount: number;
  userHandle: string;
}

export interface Bend {
  origin?: string;
  rpId?: string;
  challenge?: string;
  /** The signature counter to report (default: one more than the last). */
  signCount?: number;
  type?: string;
}

interface CreationOptions {
  challenge: string;
  rp: { id: string };
  user: { id: string };
}

interface RequestOptions {
  challenge: string;
  rpId: string;
}

function coseKey(publicKey: KeyObject): Uint8Array {
  const jwk = publicKey.export({ format: 'jwk' });
  return cborEncode(
    new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]),
  );
}

function counter(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(value);
  return b;
}

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];

  constructor(readonly origin: string) {}

  /** Answers registration options (navigator.credentials.create()) with a new credential. */
  register(options: CreationOptions, bend: Bend = {}) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const credential: SoftCredential = {
      id: randomBytes(32),
      privateKey,
      publicKey,
      signCount: bend.signCount ?? 0,
      userHandle: options.user.id,
    };
    this.credentials.push(credential);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credential.id.length);
    const authData = Buffer.concat([
      sha256(bend.rpId ?? options.rp.id),
      Buffer.from([FLAG_UP | FLAG_UV | FLAG_AT]),
      counter(credential.signCount),
      Buffer.alloc(16), // AAGUID: none
      idLength,
      credential.id,
      coseKey(publicKey),
    ]);
    const attestationObject = cborEncode(
      new Map<string, CborValue>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, CborValue>()],
        ['authData', authData],
      ]),
    );
    const clientData = this.clientData(bend.type ?? 'webauthn.create', bend.challenge ?? options.challenge, bend);
    return {
      credential: {
        id: b64url(credential.id),
        rawId: b64url(credential.id),
        type: 'public-key' as const,
        response: {
          clientDataJSON: b64url(clientData),
          attestationObject: b64url(attestationObject),
          transports: ['internal'],
        },
        clientExtensionResults: {},
      },
    };
  }

  /** Answers sign-in options (navigator.credentials.get()) with `credential` (default: the first one). */
  assert(options: RequestOptions, bend: Bend = {}, credential: SoftCredential = this.credentials[0]!) {
    credential.signCount = bend.signCount ?? credential.signCount + 1;
    const authData = Buffer.concat([
      sha256(bend.rpId ?? options.rpId),
      Buffer.from([FLAG_UP | FLAG_UV]),
      counter(credential.signCount),
    ]);
    const clientData = this.clientData(bend.type ?? 'webauthn.get', bend.challenge ?? options.challenge, bend);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), {
      key: credential.privateKey,
      dsaEncoding: 'der',
    });
    return {
      credential: {
        id: b64url(credential.id),
        rawId: b64url(credential.id),
        type: 'public-key' as const,
        response: {
          clientDataJSON: b64url(clientData),
          authenticatorData: b64url(authData),
          signature: b64url(signature),
          userHandle: credential.userHandle,
        },
        clientExtensionResults: {},
      },
    };
  }

  /** A copy of a credential (a cloned authenticator): same key, its own counter. */
  clone(credential: SoftCredential = this.credentials[0]!): SoftCredential {
    return { ...credential };
  }

  private clientData(type: string, challenge: string, bend: Bend): string {
    return JSON.stringify({ type, challenge, origin: bend.origin ?? this.origin, crossOrigin: false });
  }
}
