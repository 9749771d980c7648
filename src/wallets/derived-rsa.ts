import { checkPrimeSync, createPrivateKey, hkdfSync, type KeyObject } from 'node:crypto';

/**
 * An RSA-2048 private key derived from a seed and a label: the same inputs give the same key in
 * every process, with no key file. For the sandbox's Paze keys only (sandbox-keys.ts), which
 * protect nothing. node:crypto cannot seed its key generator, so the primes are searched here:
 * candidates come from HKDF-SHA256 of the seed, primality is node's (OpenSSL's) Miller-Rabin test.
 */

const E = 65537n;
const PRIME_BITS = 1024;

const toBigInt = (bytes: Buffer) => BigInt(`0x${bytes.toString('hex')}`);
const toBytes = (n: bigint, length: number) => Buffer.from(n.toString(16).padStart(length * 2, '0'), 'hex');
const base64url = (n: bigint) => {
  const hex = n.toString(16);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex').toString('base64url');
};

/** a⁻¹ mod m by the extended Euclidean algorithm (a and m coprime). */
export function modInverse(a: bigint, m: bigint): bigint {
  let [r0, r1, s0, s1] = [((a % m) + m) % m, m, 1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
  }
  if (r0 !== 1n) throw new Error('not invertible');
  return ((s0 % m) + m) % m;
}

/**
 * The first prime from a derived odd start with its two top bits set (so that p·q has exactly
 * 2048 bits), skipping primes p with p - 1 divisible by e.
 */
function derivedPrime(seed: Buffer, label: string): bigint {
  for (let block = 0; ; block++) {
    const start = Buffer.from(hkdfSync('sha256', seed, Buffer.alloc(0), `${label}:${block}`, PRIME_BITS / 8));
    start[0]! |= 0xc0;
    start[start.length - 1]! |= 1;
    let candidate = toBigInt(start);
    // Primes near 2^1024 are about 710 apart on average: 2048 odd candidates nearly always hold one.
    for (let step = 0; step < 2048; step++, candidate += 2n) {
      if ((candidate - 1n) % E === 0n) continue;
      if (checkPrimeSync(toBytes(candidate, PRIME_BITS / 8))) return candidate;
    }
  }
}

export function derivedRsaKey(seed: Buffer, label: string): KeyObject {
  const p = derivedPrime(seed, `${label}:p`);
  const q = derivedPrime(seed, `${label}:q`);
  if (p === q) throw new Error('derived the same prime twice');
  const d = modInverse(E, (p - 1n) * (q - 1n));
  const jwk = {
    kty: 'RSA',
    n: base64url(p * q),
    e: base64url(E),
    d: base64url(d),
    p: base64url(p),
    q: base64url(q),
    dp: base64url(d % (p - 1n)),
    dq: base64url(d % (q - 1n)),
    qi: base64url(modInverse(q, p)),
  };
  return createPrivateKey({ key: jwk, format: 'jwk' });
}
