/**
 * Scrubs secrets from anything about to be logged: values under sensitive keys (wallet tokens,
 * encrypted or not, included), card numbers (Luhn-valid runs of 12 to 19 digits), bearer tokens
 * (JWTs), webhook signing secrets (`whsec_…`) and PEM private keys inside strings.
 */
const SENSITIVE_KEY =
  /^(authorization|proxy-authorization|cookie|set-cookie|password|passwd|secret|client_secret|.*_secret|secret_key|.*_secret_key|.*_signature_key|hmac_key|.*_trans_key|.*_encryption_key|.*_decryption_key|security_code|cvv|cvc|cvv2|number|card_number|pan|private_key|.*_private_key|privatekey|private_key_pem|cryptogram|onlinepaymentcryptogram|paymentdata|applepaytoken|googlepaytoken|signedmessage|dynamicdatavalue|paymenttoken|auth_token|access_token|accesstoken|refresh_token|token|checkout_token|completeresponse|securedpayload|securepayload|api_key|idempotency-key|x-vault-forward-header-.*|x-vault-token|vault_token|master_key|.*_master_key|data_key|.*_data_key)$/i;

const DIGIT_RUN = /\d(?:[ -]?\d){11,}/g;
/** The start of a DIGIT_RUN: a text without one needs no look at its digits. */
const TWELVE_DIGITS = /\d(?:[ -]?\d){11}/;
const WEBHOOK_SECRET = /whsec_[A-Za-z0-9_-]{8,}/g;
// A key without its END line is masked to the end of the text: each try from a BEGIN line then
// succeeds, and the scan never starts again inside it (time linear in the text; issue 48).
const PEM_PRIVATE = /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g;

export const REDACTED = '[REDACTED]';
/** What stands in for an object or array nested deeper than `MAX_DEPTH`: never the value itself. */
export const DEPTH_LIMIT = '[depth limit]';
/** Levels of nesting the scrubber walks; it also ends a cycle. Log objects are a few levels deep. */
const MAX_DEPTH = 8;

const DOUBLED = [0, 2, 4, 6, 8, 1, 3, 5, 7, 9];

/**
 * A run of digits may hold a card number glued to other digits ("order 12 4111…"): any window of
 * 12 to 19 digits that passes Luhn counts, so the whole run is masked. Over-masking a log line is
 * the safe way to be wrong. Each window's Luhn sum comes from two running sums (one doubling the
 * digits at even positions, one those at odd positions; a window's last digit is never doubled),
 * so a run of n digits costs 8n additions, not 8n Luhn checks of up to 19 digits each.
 */
function containsCardNumber(digits: string): boolean {
  const n = digits.length;
  // sums[p][i]: the sum of the first i digits, those at positions of parity p as they are, the others doubled.
  const sums = [new Int32Array(n + 1), new Int32Array(n + 1)] as const;
  for (let i = 0; i < n; i++) {
    const d = digits.charCodeAt(i) - 48;
    sums[0][i + 1] = sums[0][i]! + (i % 2 === 0 ? d : DOUBLED[d]!);
    sums[1][i + 1] = sums[1][i]! + (i % 2 === 1 ? d : DOUBLED[d]!);
  }
  for (let length = 12; length <= Math.min(19, n); length++) {
    for (let end = length; end <= n; end++) {
      const sum = sums[(end - 1) % 2]!;
      if ((sum[end]! - sum[end - length]!) % 10 === 0) return true;
    }
  }
  return false;
}

const DOT = 0x2e;
const isTokenCharacter = (c: number) =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2d || c === 0x5f;
const runEnd = (text: string, at: number) => {
  while (at < text.length && isTokenCharacter(text.charCodeAt(at))) at++;
  return at;
};

/**
 * JWTs replaced: `eyJ`, then at least 5 characters of [A-Za-z0-9_-], a dot, at least 5 more, a dot,
 * and the rest of that run. A scan rather than that pattern, which tried again from every `eyJ` of a
 * run and read to the run's end each time (time quadratic in the run): every `eyJ` of one run ends
 * where the run ends, so when the first is no token, none of the others is either.
 */
function redactTokens(text: string): string {
  let out = '';
  let copied = 0;
  for (let at = text.indexOf('eyJ'); at >= 0; ) {
    const first = runEnd(text, at + 3);
    const second = first - at - 3 >= 5 && text.charCodeAt(first) === DOT ? runEnd(text, first + 1) : -1;
    if (second - first - 1 >= 5 && text.charCodeAt(second) === DOT) {
      const end = runEnd(text, second + 1);
      out += `${text.slice(copied, at)}[REDACTED TOKEN]`;
      copied = end;
      at = text.indexOf('eyJ', end);
    } else {
      at = text.indexOf('eyJ', first);
    }
  }
  return out + text.slice(copied);
}

export function scrubString(value: string): string {
  let out = value;
  if (out.includes('PRIVATE KEY')) out = out.replace(PEM_PRIVATE, '[REDACTED PRIVATE KEY]');
  if (out.includes('eyJ')) out = redactTokens(out);
  if (out.includes('whsec_')) out = out.replace(WEBHOOK_SECRET, 'whsec_[REDACTED]');
  if (TWELVE_DIGITS.test(out)) {
    out = out.replace(DIGIT_RUN, (run) => {
      const digits = run.split(' ').join('').split('-').join('');
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
    return {
      type: value.name,
      message: scrubString(value.message),
      stack: value.stack ? scrubString(value.stack) : undefined,
      ...scrubFields(value as unknown as Record<string, unknown>, depth),
    };
  }
  return scrubFields(value as Record<string, unknown>, depth);
}

function scrubFields(value: Record<string, unknown>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] =
      SENSITIVE_KEY.test(key) && item !== null && item !== undefined && item !== '' ? REDACTED : scrub(item, depth + 1);
  }
  return out;
}
