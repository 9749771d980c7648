import { createHash } from 'node:crypto';
import { detectScheme, luhnCheckDigit, parseExpirationDate, type CardScheme } from '../../lib/card-schemes.ts';

/**
 * The built-in, simulated network token service (no network, no state). Real token services (Visa
 * VTS, Mastercard MDES, ...) issue a token PAN from a token BIN range of the card's scheme and sign
 * each payment with a one-time cryptogram; this one does the same shape of thing deterministically,
 * so tests can predict it. Randomness (the seed of a token, the nonce of a cryptogram) comes in
 * from the caller.
 */

/**
 * Token BIN ranges of the simulated service, one per supported scheme. Each is detected as its own
 * scheme by `detectScheme` (a test checks it), so a token routes like the card it stands for.
 */
export const TOKEN_BIN_RANGES: Partial<Record<CardScheme, string>> = {
  visa: '489537',
  mastercard: '520473',
  amex: '374245',
  discover: '601199',
};

export function supportsScheme(scheme: string): boolean {
  return Object.hasOwn(TOKEN_BIN_RANGES, scheme);
}

export interface ProvisionInput {
  /** The card number released by the vault for this call. */
  pan: string;
  /** The card's `MM/YY`, when known. */
  expirationDate: string | null;
  /** Random bytes chosen by the caller; the same seed gives the same token. */
  seed: Uint8Array;
  now: Date;
}

export interface ProvisionedToken {
  scheme: CardScheme;
  token: string;
  expirationDate: string;
}

export class UnsupportedSchemeError extends Error {
  constructor(readonly scheme: CardScheme) {
    super(`The token service does not issue tokens for ${scheme} cards`);
  }
}

/** `count` decimal digits drawn from SHA-256(seed, pan, counter, block). Bytes ≥ 250 are skipped so each digit is uniform. */
function digitsFrom(seed: Uint8Array, pan: string, counter: number, count: number): string {
  let out = '';
  for (let block = 0; out.length < count; block++) {
    const bytes = createHash('sha256').update(seed).update(`:${pan}:${counter}:${block}`).digest();
    for (const byte of bytes) if (byte < 250 && out.length < count) out += String(byte % 10);
  }
  return out;
}

function threeYearsFrom(now: Date): string {
  const month = String(now.getUTCMonth() + 1).padStart(2, '0');
  return `${month}/${String((now.getUTCFullYear() + 3) % 100).padStart(2, '0')}`;
}

/**
 * Issues a token for a card: a Luhn-valid number of the card's scheme and length in the scheme's
 * token BIN range, never equal to the card number. It expires with the card, or three years from
 * `now` when the card's expiry is unknown.
 */
export function provisionToken(input: ProvisionInput): ProvisionedToken {
  const scheme = detectScheme(input.pan);
  const range = TOKEN_BIN_RANGES[scheme];
  if (!range) throw new UnsupportedSchemeError(scheme);
  let token = input.pan;
  // A collision with the card number needs the card to sit in the token range itself: draw again.
  for (let counter = 0; token === input.pan; counter++) {
    const body = range + digitsFrom(input.seed, input.pan, counter, input.pan.length - range.length - 1);
    token = body + luhnCheckDigit(body);
  }
  const expirationDate =
    input.expirationDate && parseExpirationDate(input.expirationDate)
      ? input.expirationDate
      : threeYearsFrom(input.now);
  return { scheme, token, expirationDate };
}

export interface CryptogramInput {
  token: string;
  /** Random bytes chosen per transaction; the same nonce gives the same cryptogram. */
  nonce: Uint8Array;
  merchantInitiated: boolean;
}

export interface IssuedCryptogram {
  /** 20 bytes in base64: 28 characters, the shape of a Visa TAVV or a Mastercard DSRP cryptogram. */
  cryptogram: string;
  /** Electronic commerce indicator to send with it. */
  eci: string;
}

/** ECIs of the simulation: customer-initiated tokenized e-commerce vs merchant-initiated (no cryptogram check). */
const ECI: Partial<Record<CardScheme, { cit: string; mit: string }>> = {
  visa: { cit: '05', mit: '07' },
  mastercard: { cit: '02', mit: '07' },
  amex: { cit: '05', mit: '07' },
  discover: { cit: '05', mit: '07' },
};

export function createCryptogram(input: CryptogramInput): IssuedCryptogram {
  const scheme = detectScheme(input.token);
  const digest = createHash('sha256')
    .update(input.nonce)
    .update(`:${input.token}:${input.merchantInitiated ? 'mit' : 'cit'}`)
    .digest();
  const eci = ECI[scheme] ?? { cit: '05', mit: '07' };
  return { cryptogram: digest.subarray(0, 20).toString('base64'), eci: input.merchantInitiated ? eci.mit : eci.cit };
}
