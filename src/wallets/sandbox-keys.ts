import { createECDH, createPrivateKey, createPublicKey, hkdfSync, X509Certificate, type KeyObject } from 'node:crypto';
import { APPLE_INTERMEDIATE_MARKER, APPLE_LEAF_MARKER } from './apple-pay.ts';
import { derivedRsaKey } from './derived-rsa.ts';
import type { GoogleRootKey } from './google-pay.ts';
import type { Signer } from './pkcs7.ts';
import { issueCertificate } from './x509.ts';

/**
 * The sandbox's own wallet keys: a test "Apple" signing chain and payment processing key, a test
 * "Google" root signing key, intermediate key and processing key. They are derived from a public,
 * fixed seed, so every process (the server, the CLI that makes test tokens) has the same keys
 * without any key file. They protect nothing: they are trusted only when ENVIRONMENT=sandbox, and
 * let integrators and tests exercise the real verification and decryption code
 * (docs/digital-wallets.md). The Paze keys (RSA) are derived on first use, apart: searching their
 * primes takes about a second.
 */

const SEED = Buffer.from('svc sandbox wallet keys v1');
/** The Apple merchant identifier of sandbox tokens. */
export const SANDBOX_APPLE_MERCHANT_IDENTIFIER = 'merchant.sandbox.svc';
/** The Google gateway id of this platform; sandbox tokens are made for `gateway:<id>`. */
export const GOOGLE_PAY_GATEWAY_ID = 'svc';
export const SANDBOX_GOOGLE_RECIPIENT_ID = `gateway:${GOOGLE_PAY_GATEWAY_ID}`;

const ORDER = BigInt('0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551');

/** A P-256 private key whose scalar is derived from the seed and a label (the first one in range). */
function derivedKey(label: string): KeyObject {
  for (let counter = 0; ; counter++) {
    const d = Buffer.from(hkdfSync('sha256', SEED, Buffer.alloc(0), `${label}:${counter}`, 32));
    const scalar = BigInt(`0x${d.toString('hex')}`);
    if (scalar === 0n || scalar >= ORDER) continue;
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(d);
    const point = ecdh.getPublicKey();
    return createPrivateKey({
      key: {
        kty: 'EC',
        crv: 'P-256',
        d: d.toString('base64url'),
        x: point.subarray(1, 33).toString('base64url'),
        y: point.subarray(33).toString('base64url'),
      },
      format: 'jwk',
    });
  }
}

export interface SandboxWalletKeys {
  apple: { processingKey: KeyObject; merchantIdentifier: string; root: X509Certificate; signer: Signer };
  google: {
    processingKey: KeyObject;
    recipientId: string;
    rootKey: KeyObject;
    root: GoogleRootKey;
    intermediateKey: KeyObject;
    authKey: KeyObject;
  };
}

// Fixed validity: the sandbox chain does not expire under the tests' feet.
const NOT_BEFORE = new Date('2024-01-01T00:00:00Z');
const NOT_AFTER = new Date('2049-12-31T00:00:00Z');

function appleChain() {
  const rootKey = derivedKey('apple-root');
  const intermediateKey = derivedKey('apple-intermediate');
  const leafKey = derivedKey('apple-leaf');
  const common = { notBefore: NOT_BEFORE, notAfter: NOT_AFTER };
  const root = issueCertificate({
    ...common,
    subject: 'Sandbox Apple Root CA',
    issuer: 'Sandbox Apple Root CA',
    serial: 1,
    publicKey: createPublicKey(rootKey),
    issuerKey: rootKey,
    ca: true,
  });
  const intermediate = issueCertificate({
    ...common,
    subject: 'Sandbox Apple Application Integration CA',
    issuer: 'Sandbox Apple Root CA',
    serial: 2,
    publicKey: createPublicKey(intermediateKey),
    issuerKey: rootKey,
    ca: true,
    markers: [APPLE_INTERMEDIATE_MARKER],
  });
  const leaf = issueCertificate({
    ...common,
    subject: 'Sandbox ecc-smp-broker-sign',
    issuer: 'Sandbox Apple Application Integration CA',
    serial: 3,
    publicKey: createPublicKey(leafKey),
    issuerKey: intermediateKey,
    ca: false,
    markers: [APPLE_LEAF_MARKER],
  });
  return { root: new X509Certificate(root), signer: { leaf, intermediate, key: leafKey } };
}

let cached: SandboxWalletKeys | null = null;

/** The sandbox keys (built once per process: certificate issuing costs a few milliseconds). */
export function sandboxWalletKeys(): SandboxWalletKeys {
  if (cached) return cached;
  const rootKey = derivedKey('google-root');
  cached = {
    apple: {
      processingKey: derivedKey('apple-processing'),
      merchantIdentifier: SANDBOX_APPLE_MERCHANT_IDENTIFIER,
      ...appleChain(),
    },
    google: {
      processingKey: derivedKey('google-processing'),
      recipientId: SANDBOX_GOOGLE_RECIPIENT_ID,
      rootKey,
      root: {
        keyValue: createPublicKey(rootKey).export({ type: 'spki', format: 'der' }).toString('base64'),
        protocolVersion: 'ECv2',
      },
      intermediateKey: derivedKey('google-intermediate'),
      authKey: derivedKey('google-auth-jwt'),
    },
  };
  return cached;
}

export interface SandboxPazeKeys {
  /** Signs the simulated Paze's completeResponse and its inner payload (RS256). */
  signingKey: KeyObject;
  /** Its key id (`kid` of the JWS header). */
  signingKeyId: string;
  /** The wallet key of a Paze wallet without one of its own: the securedPayload is encrypted to it (RSA-OAEP-256). */
  processingKey: KeyObject;
  /** Signs the simulated Paze's session tokens (accessToken, checkout state, code; HS256). */
  sessionSecret: Uint8Array;
}

let pazeCached: SandboxPazeKeys | null = null;

/** The sandbox's Paze keys (derived once per process). */
export function sandboxPazeKeys(): SandboxPazeKeys {
  pazeCached ??= {
    signingKey: derivedRsaKey(SEED, 'paze-signing'),
    signingKeyId: 'svc-sandbox-paze-signing-1',
    processingKey: derivedRsaKey(SEED, 'paze-processing'),
    sessionSecret: new Uint8Array(hkdfSync('sha256', SEED, Buffer.alloc(0), 'paze-sessions', 32)),
  };
  return pazeCached;
}
