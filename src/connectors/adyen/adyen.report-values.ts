/**
 * The values of Adyen's report files, read without floating point or regular expressions: decimal
 * amounts ("349.99", "-0.12", "7.5") as integers scaled by 10^8, and "YYYY-MM-DD HH:MM:SS" local
 * times with the time zone abbreviation of the account's report setting (Adyen writes the account's
 * zone as CET, CEST, BST...).
 */

/** Decimal places every report amount is held at before it is rounded to a currency's minor unit. */
export const SCALE = 8;
const SCALE_FACTOR = 10n ** BigInt(SCALE);

const isDigit = (c: string) => c >= '0' && c <= '9';

/** True when `text` is an optional `-`, digits, and optionally a dot and more digits. */
export function isDecimalText(text: string): boolean {
  let i = text.startsWith('-') ? 1 : 0;
  let digits = 0;
  while (i < text.length && isDigit(text[i]!)) {
    i += 1;
    digits += 1;
  }
  if (i < text.length && text[i] === '.') {
    i += 1;
    let fraction = 0;
    while (i < text.length && isDigit(text[i]!)) {
      i += 1;
      fraction += 1;
    }
    if (fraction === 0) return false;
  }
  return digits > 0 && i === text.length;
}

/** A report amount scaled by 10^8 (empty: 0); null when it is no decimal or finer than 10^-8. */
export function scaledOf(raw: string): bigint | null {
  const text = raw.trim();
  if (text === '') return 0n;
  if (!isDecimalText(text)) return null;
  const negative = text.startsWith('-');
  const [whole = '0', fraction = ''] = (negative ? text.slice(1) : text).split('.');
  if (fraction.length > SCALE) return null;
  const value = BigInt(whole) * SCALE_FACTOR + BigInt(fraction.padEnd(SCALE, '0'));
  return negative ? -value : value;
}

/** A scaled amount in minor units of `exponent` decimals, rounded half away from zero. */
export function minorOf(scaled: bigint, exponent: number): number {
  const divisor = 10n ** BigInt(SCALE - exponent);
  const magnitude = scaled < 0n ? -scaled : scaled;
  let units = magnitude / divisor;
  if ((magnitude % divisor) * 2n >= divisor) units += 1n;
  return Number(scaled < 0n ? -units : units);
}

/**
 * UTC offsets (minutes) of the abbreviations Adyen writes for its accounts' time zone setting.
 * Two abbreviations are ambiguous; they are read as Adyen's Java runtime names them for the zones
 * its merchants commonly choose: CST as US Central (-06:00), IST as India (+05:30).
 */
export const TIME_ZONE_OFFSETS: Readonly<Record<string, number>> = Object.freeze({
  UTC: 0,
  GMT: 0,
  WET: 0,
  WEST: 60,
  BST: 60,
  CET: 60,
  CEST: 120,
  MET: 60,
  MEST: 120,
  EET: 120,
  EEST: 180,
  MSK: 180,
  TRT: 180,
  GST: 240,
  IST: 330,
  ICT: 420,
  WIB: 420,
  SGT: 480,
  HKT: 480,
  PHT: 480,
  AWST: 480,
  JST: 540,
  KST: 540,
  ACST: 570,
  ACDT: 630,
  AEST: 600,
  AEDT: 660,
  NZST: 720,
  NZDT: 780,
  SAST: 120,
  BRT: -180,
  ART: -180,
  CLT: -240,
  CLST: -180,
  COT: -300,
  PET: -300,
  EST: -300,
  EDT: -240,
  CST: -360,
  CDT: -300,
  MST: -420,
  MDT: -360,
  PST: -480,
  PDT: -420,
  AKST: -540,
  AKDT: -480,
  HST: -600,
});

/** `+HH:MM`, `-HHMM` or `+HH` after an optional GMT or UTC: the offset in minutes, or null. */
function numericOffset(zone: string): number | null {
  const rest = zone.startsWith('GMT') || zone.startsWith('UTC') ? zone.slice(3) : zone;
  const sign = rest[0] === '+' ? 1 : rest[0] === '-' ? -1 : 0;
  if (sign === 0) return null;
  const digits = rest.slice(1).split(':').join('');
  if (!(digits.length === 2 || digits.length === 4) || ![...digits].every(isDigit)) return null;
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length === 4 ? Number(digits.slice(2)) : 0;
  return hours <= 14 && minutes < 60 ? sign * (hours * 60 + minutes) : null;
}

/** The offset of a zone the report names (an abbreviation, or a numeric offset), or null. */
export function zoneOffsetOf(zone: string): number | null {
  const name = zone.trim().toUpperCase();
  return Object.hasOwn(TIME_ZONE_OFFSETS, name) ? TIME_ZONE_OFFSETS[name]! : numericOffset(name);
}

/** "YYYY-MM-DD HH:MM:SS" (or with a T) in the given zone, as an instant; null when either is not understood. */
export function instantOf(local: string, zone: string): Date | null {
  const text = local.trim();
  const offset = zoneOffsetOf(zone);
  if (offset === null || text.length !== 19) return null;
  const shape = 'dddd-dd-dd dd:dd:dd';
  for (let i = 0; i < shape.length; i += 1) {
    const c = text[i]!;
    if (shape[i] === 'd' ? !isDigit(c) : i === 10 ? c !== ' ' && c !== 'T' : c !== shape[i]) return null;
  }
  const [y, mo, d, h, mi, s] = [
    text.slice(0, 4),
    text.slice(5, 7),
    text.slice(8, 10),
    text.slice(11, 13),
    text.slice(14, 16),
    text.slice(17, 19),
  ].map(Number) as [number, number, number, number, number, number];
  const utc = Date.UTC(y, mo - 1, d, h, mi, s);
  const check = new Date(utc);
  // Date.UTC rolls 2024-02-30 over to March: such a date is refused.
  if (check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return null;
  return new Date(utc - offset * 60_000);
}
