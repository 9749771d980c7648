import { isCountry } from '../../lib/countries.ts';
import { blockText, parseIpBlock } from './ip-prefix.ts';

/** What a blocklist entry's value is (decision 0135). */
export const BLOCKLIST_VALUE_TYPES = [
  'card_fingerprint',
  'bin',
  'bin_range',
  'email_address',
  'ip_address',
  'country',
  'buyer_external_identifier',
] as const;
export type BlocklistValueType = (typeof BLOCKLIST_VALUE_TYPES)[number];

export type Normalized = { ok: true; value: string } | { ok: false; message: string };

const DIGITS = '0123456789';
const BASE64URL = `ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz${DIGITS}-_`;
const only = (text: string, alphabet: string) => text.length > 0 && [...text].every((c) => alphabet.includes(c));
const ok = (value: string): Normalized => ({ ok: true, value });
const no = (message: string): Normalized => ({ ok: false, message });

/** A vault fingerprint: HMAC-SHA256 in base64url, 43 characters. */
export const FINGERPRINT_LENGTH = 43;

function cardFingerprint(text: string): Normalized {
  // The message never repeats the value: it may be a card number sent in the wrong field.
  if (only(text, DIGITS))
    return no(
      'This looks like a card number, not a fingerprint: send it as card_number (it is turned into the fingerprint at once and never stored), or name a payment_method_id or transaction_id',
    );
  if (text.length !== FINGERPRINT_LENGTH || !only(text, BASE64URL))
    return no(
      'Must be a card fingerprint as shown on a payment method or a transaction (43 characters of base64url); or send card_number, payment_method_id or transaction_id instead of value',
    );
  return ok(text);
}

function bin(text: string): Normalized {
  if (!only(text, DIGITS) || text.length < 6 || text.length > 8)
    return no('A BIN is the first 6 to 8 digits of a card number, e.g. 411111');
  return ok(text);
}

function binRange(text: string): Normalized {
  const parts = text.split('-').map((part) => part.trim());
  const [low = '', high = ''] = parts;
  const shape =
    'A BIN range is two BINs of the same length (6 to 8 digits) joined by a hyphen, lowest first, e.g. 411100-411199';
  if (parts.length !== 2 || !bin(low).ok || !bin(high).ok || low.length !== high.length) return no(shape);
  if (low > high) return no(`${shape}: the first BIN is above the second`);
  return ok(`${low}-${high}`);
}

function emailAddress(text: string): Normalized {
  const value = text.toLowerCase();
  const at = value.indexOf('@');
  const domain = value.slice(at + 1);
  const wellFormed =
    at > 0 &&
    at === value.lastIndexOf('@') &&
    domain.includes('.') &&
    !domain.startsWith('.') &&
    !domain.endsWith('.') &&
    ![...value].some((c) => c <= ' ');
  if (!wellFormed || value.length > 320) return no('Must be an e-mail address such as buyer@example.com');
  return ok(value);
}

function ipAddress(text: string): Normalized {
  const parsed = parseIpBlock(text);
  return parsed.ok ? ok(blockText(parsed.block)) : no(parsed.message);
}

function country(text: string): Normalized {
  const value = text.toUpperCase();
  if (!isCountry(value)) return no('Must be an ISO 3166-1 alpha-2 country code, e.g. US or DE');
  return ok(value);
}

function buyerExternalIdentifier(text: string): Normalized {
  // Matched exactly as the buyer's external_identifier is stored: not trimmed, not case-folded.
  if (text.length === 0 || text.length > 200) return no('Must be a buyer external_identifier of 1 to 200 characters');
  return ok(text);
}

const NORMALIZERS = {
  card_fingerprint: (text) => cardFingerprint(text.trim()),
  bin: (text) => bin(text.trim()),
  bin_range: (text) => binRange(text.trim()),
  email_address: (text) => emailAddress(text.trim()),
  ip_address: (text) => ipAddress(text.trim()),
  country: (text) => country(text.trim()),
  buyer_external_identifier: buyerExternalIdentifier,
} as const satisfies Record<BlocklistValueType, (text: string) => Normalized>;

/** The stored form of a value of `type`, or why it is refused (a message that never repeats a card value). */
export function normalizeBlocklistValue(type: BlocklistValueType, text: string): Normalized {
  return NORMALIZERS[type](text);
}
