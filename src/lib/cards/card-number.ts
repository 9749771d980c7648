import { findIinRange, NUMBER_LENGTHS } from './iin-ranges.ts';
import { luhnValid } from './luhn.ts';
import { CARD_SCHEME_DISPLAY_NAMES } from './scheme-definitions.ts';
import type { CardScheme } from './schemes.ts';

export interface SchemeDetection {
  scheme: CardScheme;
  /** Other networks that accept a co-badged card (e.g. Discover for UnionPay 622126-622925). */
  additionalSchemes: readonly CardScheme[];
  /** Issuing country where the range settles it (domestic schemes), else null. */
  country: string | null;
}

/**
 * The scheme of a card number or of its first digits (a BIN), from the IIN ranges, longest
 * matching prefix first; `other` when no range matches. Input is expected to be digits only.
 */
export function detectSchemes(digits: string): SchemeDetection {
  const range = findIinRange(digits);
  return range
    ? { scheme: range.scheme, additionalSchemes: range.additionalSchemes, country: range.country }
    : { scheme: 'other', additionalSchemes: [], country: null };
}

export function detectScheme(digits: string): CardScheme {
  return detectSchemes(digits).scheme;
}

/** Allowed lengths of a scheme's card numbers (`other`: 12 to 19). */
export function numberLengths(scheme: CardScheme): readonly number[] {
  return NUMBER_LENGTHS[scheme] ?? NUMBER_LENGTHS.other;
}

export type CardNumberCheck =
  | ({ ok: true } & SchemeDetection)
  | { ok: false; reason: 'not_digits' }
  | { ok: false; reason: 'length'; scheme: CardScheme; allowedLengths: readonly number[] }
  | { ok: false; reason: 'luhn'; scheme: CardScheme };

/**
 * Checks a card number: digits only, a length its scheme allows, then the Luhn check digit.
 * Length is checked before Luhn because a missing or extra digit usually breaks both, and the
 * length is the more useful thing to tell the caller. Every scheme is held to Luhn, UnionPay
 * included (decision 0030).
 */
export function validateCardNumber(pan: string): CardNumberCheck {
  if (!/^\d*$/.test(pan)) return { ok: false, reason: 'not_digits' };
  const detection = detectSchemes(pan);
  const allowed = numberLengths(detection.scheme);
  if (!allowed.includes(pan.length))
    return { ok: false, reason: 'length', scheme: detection.scheme, allowedLengths: allowed };
  if (!luhnValid(pan)) return { ok: false, reason: 'luhn', scheme: detection.scheme };
  return { ok: true, ...detection };
}

/** "16", "15 or 16", "13, 16 or 19", "12 to 19". */
export function describeLengths(lengths: readonly number[]): string {
  const first = lengths[0]!;
  const last = lengths[lengths.length - 1]!;
  if (lengths.length > 2 && last - first === lengths.length - 1) return `${first} to ${last}`;
  return lengths.length === 1 ? String(first) : `${lengths.slice(0, -1).join(', ')} or ${last}`;
}

/**
 * A message for a failed check, for a 400/422 body. It never repeats the number: error bodies and
 * log lines must not carry card data.
 */
export function cardNumberProblem(check: Exclude<CardNumberCheck, { ok: true }>): string {
  switch (check.reason) {
    case 'not_digits':
      return 'The card number must contain only digits, without spaces or separators';
    case 'length':
      return `${check.scheme === 'other' ? 'Card' : `${CARD_SCHEME_DISPLAY_NAMES[check.scheme]} card`} numbers have ${describeLengths(check.allowedLengths)} digits`;
    case 'luhn':
      return 'The card number is not valid: its check digit does not match (Luhn)';
  }
}

/**
 * The BIN to store and show: the first 8 digits of a number of 16 digits or more, else the first 6.
 * Visa and Mastercard moved to 8-digit BINs in 2022 (ISO/IEC 7812-1:2017), and PCI DSS allows at
 * most the first 8 and last 4 digits of such numbers to be kept in the clear; shorter numbers
 * (Amex 15, Diners 14) keep the 6-digit limit.
 */
export function bin(pan: string): string {
  return pan.slice(0, pan.length >= 16 ? 8 : 6);
}

export function last4(pan: string): string {
  return pan.slice(-4);
}
