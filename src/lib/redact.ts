import { luhnValid } from './card-schemes.ts';

/**
 * Scrubs secrets from anything about to be logged: values under sensitive keys (wallet tokens,
 * encrypted or not, included), card numbers (Luhn-valid runs of 12 to 19 digits), bearer tokens
 * (JWTs), webhook signing secrets (`whsec_…`) and PEM private keys inside strings.
 */
const SENSITIVE_KEY =
  /^(authorization|proxy-authorization|cookie|set-cookie|password|passwd|secret|client_secret|.*_secret|.*_secret_key|.*_encryption_key|.*_decryption_key|security_code|cvv|cvc|cvv2|number|card_number|pan|private_key|.*_private_key|privatekey|private_key_pem|cryptogram|onlinepaymentcryptogram|paymentdata|applepaytoken|googlepaytoken|signedmessage|dynamicdatavalue|paymenttoken|access_token|accesstoken|refresh_token|token|checkout_token|completeresponse|securedpayload|securepayload|api_key|idempotency-key|x-vault-forward-header-.*)$/i;

const DIGIT_RUN = /\d(?:[ -]?\d){11,}/g;
const JWT = /eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;
const WEBHOOK_SECRET = /whsec_[A-Za-z0-9_-]{8,}/g;
const PEM_PRIVATE = /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g;

export const REDACTED = '[REDACTED]';
/** What stands in for an object or array nested deeper than `MAX_DEPTH`: never the value itself. */
export const DEPTH_LIMIT = '[depth limit]';
/** Levels of nesting the scrubber walks; it also ends a cycle. Log objects are a few levels deep. */
const MAX_DEPTH = 8;

/**
 * A run of digits may hold a card number glued to other digits ("order 12 4111…"): any window of
 * 12 to 19 digits that passes Luhn counts, so the whole run is masked. Over-masking a log line is
 * the safe way to be wrong.
 */
function containsCardNumber(digits: string): boolean {
  for (let length = 12; length <= Math.min(19, digits.length); length++) {
    for (let start = 0; start + length <= digits.length; start++) {
      if (luhnValid(digits.slice(start, start + length))) return true;
    }
  }
  return false;
}

export function scrubString(value: string): string {
  let out = value;
  if (out.includes('PRIVATE KEY')) out = out.replace(PEM_PRIVATE, '[REDACTED PRIVATE KEY]');
  if (out.includes('eyJ')) out = out.replace(JWT, '[REDACTED TOKEN]');
  if (out.includes('whsec_')) out = out.replace(WEBHOOK_SECRET, 'whsec_[REDACTED]');
  if (/\d{12}/.test(out.replace(/[ -]/g, ''))) {
    out = out.replace(DIGIT_RUN, (run) => {
      const digits = run.replace(/[ -]/g, '');
      return containsCardNumber(digits) ? `[CARD ${'*'.repeat(digits.length - 4)}${digits.slice(-4)}]` : run;
    });
  }
  return out;
}

/**
 * Returns a scrubbed copy; the input is not changed. An object or array deeper than `MAX_DEPTH`
 * (or a cycle) becomes `DEPTH_LIMIT`: what the scrubber did not walk, it does not let through.
 */
export function scrub(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubString(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) return DEPTH_LIMIT;
  if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1));
  if (value instanceof Error) {
    return { type: value.name, message: scrubString(value.message), stack: value.stack ? scrubString(value.stack) : undefined, ...scrubFields(value as unknown as Record<string, unknown>, depth) };
  }
  return scrubFields(value as Record<string, unknown>, depth);
}

function scrubFields(value: Record<string, unknown>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = SENSITIVE_KEY.test(key) && item !== null && item !== undefined && item !== '' ? REDACTED : scrub(item, depth + 1);
  }
  return out;
}
