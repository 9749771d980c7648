import { hash } from 'node:crypto';
import { canonical } from '../../src/http/idempotency-fingerprint.ts';
import { luhnValid } from '../../src/lib/cards/luhn.ts';

/**
 * The attack of issue 48: from what a transaction row shows (BIN, last 4, expiry, amount) and the
 * request the client sent, guess the unknown digits of the card number and the security code, hash
 * each guess the ways a server could have, and look the digests up among every hash-looking value
 * of the database, the logs and the answers. A keyed MAC cannot be matched without its key, so a
 * fixed server yields no hit; an unkeyed SHA-256 of a request that held the card yields the card.
 */

export interface KnownCard {
  label: string;
  /** The full number (the attacker knows all but the digits `guesses` varies). */
  number: string;
  /** Security code or gift card pin, unknown to the attacker. */
  code?: string;
}

/** A request as the client sent it: what the server could have hashed. */
export interface SentRequest {
  method: string;
  url: string;
  /** An object is sent as JSON.stringify of it, a string as is. */
  payload?: unknown;
}

export interface Haystack {
  where: string;
  text: string;
}

/**
 * The unknown digits, kept small enough to run in a test: 4 of the number (10³ guesses once Luhn
 * rules out nine in ten), or the code with as many of the number's digits as make 10⁴ guesses.
 */
const UNKNOWN_NUMBER_DIGITS = 4;
const JOINT_GUESSES = 10_000;
const ALGORITHMS = ['sha256', 'sha512', 'sha1', 'md5'] as const;

/** Every number equal to `number` but for the `unknown` digits before the last 4 (Luhn-valid ones only, if the card is). */
export function numberGuesses(number: string, unknown: number): string[] {
  const end = number.length - 4;
  const start = Math.max(0, end - unknown);
  const width = end - start;
  const luhn = luhnValid(number);
  const out: string[] = [];
  for (let i = 0; i < 10 ** width; i++) {
    const guess = number.slice(0, start) + String(i).padStart(width, '0') + number.slice(end);
    if (!luhn || luhnValid(guess)) out.push(guess);
  }
  return out;
}

const allCodes = (length: number) => Array.from({ length: 10 ** length }, (_, i) => String(i).padStart(length, '0'));

/** The guesses for one card: the middle digits with the code known, then the code with a few of the middle digits. */
export function guesses(card: KnownCard): Array<{ number: string; code: string | undefined }> {
  const seen = new Set<string>();
  const out: Array<{ number: string; code: string | undefined }> = [];
  const add = (number: string, code: string | undefined) => {
    const id = `${number}|${code ?? ''}`;
    if (seen.has(id)) return;
    seen.add(id);
    out.push({ number, code });
  };
  for (const number of numberGuesses(card.number, UNKNOWN_NUMBER_DIGITS)) add(number, card.code);
  if (card.code !== undefined) {
    const codes = allCodes(card.code.length);
    const digits = Math.round(Math.log10(JOINT_GUESSES / codes.length)) + (luhnValid(card.number) ? 1 : 0);
    for (const number of numberGuesses(card.number, digits)) for (const code of codes) add(number, code);
  }
  return out;
}

const NUMBER = '\uE000N\uE000';
const CODE = '\uE000C\uE000';

/** The payload with the card's number and code (as whole string values) replaced by markers; `hit`: it held one. */
function template(value: unknown, card: KnownCard): { value: unknown; hit: boolean } {
  if (typeof value === 'string') {
    if (value === card.number) return { value: NUMBER, hit: true };
    if (card.code !== undefined && value === card.code) return { value: CODE, hit: true };
    if (value.includes(card.number)) return { value: value.split(card.number).join(NUMBER), hit: true };
    return { value, hit: false };
  }
  if (Array.isArray(value)) {
    const items = value.map((item) => template(item, card));
    return { value: items.map((i) => i.value), hit: items.some((i) => i.hit) };
  }
  if (value !== null && typeof value === 'object') {
    let hit = false;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const t = template(item, card);
      out[key] = t.value;
      hit ||= t.hit;
    }
    return { value: out, hit };
  }
  return { value, hit: false };
}

/** The texts a server could have hashed for one request, as templates split on the markers. */
function requestForms(request: SentRequest, card: KnownCard): Array<{ form: string; parts: string[] }> {
  const split = (text: string) => text.split(new RegExp(`(${NUMBER}|${CODE})`));
  if (typeof request.payload === 'string') {
    if (!request.payload.includes(card.number) && !(card.code && request.payload.includes(`"${card.code}"`))) return [];
    let raw = request.payload.split(card.number).join(NUMBER);
    if (card.code) raw = raw.split(`"${card.code}"`).join(`"${CODE}"`);
    return [
      { form: 'raw body', parts: split(raw) },
      { form: 'method, URL and raw body', parts: split(`${request.method} ${request.url}\n${raw}`) },
    ];
  }
  const { value, hit } = template(request.payload, card);
  if (!hit) return [];
  return [
    {
      form: 'method, URL and canonical JSON (the request fingerprint)',
      parts: split(`${request.method} ${request.url}\n${canonical(value)}`),
    },
    { form: 'canonical JSON', parts: split(canonical(value)) },
    { form: 'raw body', parts: split(JSON.stringify(value)) },
  ];
}

/** The card's own values alone: the number, the code, both together. */
function cardForms(card: KnownCard): Array<{ form: string; parts: string[] }> {
  const forms = [{ form: 'number', parts: [NUMBER] }];
  if (card.code !== undefined) {
    forms.push({ form: 'code', parts: [CODE] });
    for (const sep of ['', ':', '|'])
      forms.push({
        form: `number and code joined by ${JSON.stringify(sep)}`,
        parts: sep ? [NUMBER, sep, CODE] : [NUMBER, CODE],
      });
  }
  return forms;
}

/**
 * Every run of characters that may start a hash (hex, base64, base64url), as the first 8 bytes it
 * decodes to, with where it was seen first: a digest matches whatever text encoding it was stored in.
 */
export function hashIndex(haystacks: readonly Haystack[]): Map<string, string> {
  const index = new Map<string, string>();
  const add = (key: string, where: string) => {
    if (!index.has(key)) index.set(key, where);
  };
  for (const { where, text } of haystacks) {
    for (const match of text.matchAll(/[0-9a-fA-F]{16,}/g))
      add(Buffer.from(match[0].slice(0, 16), 'hex').toString('hex'), where);
    for (const match of text.matchAll(/[A-Za-z0-9+/_-]{16,}/g)) {
      const run = match[0];
      add(Buffer.from(run.slice(0, 16), 'base64').toString('hex', 0, 8), where);
      // A hash glued behind a prefix (`mock_txn_<hex>`, `sha256:<hex>`).
      for (let i = 0; i < run.length - 16; i++) {
        if (!'_-+/'.includes(run[i]!)) continue;
        const rest = run.slice(i + 1, i + 17);
        add(Buffer.from(rest, 'base64').toString('hex', 0, 8), where);
        if (/^[0-9a-fA-F]{16}$/.test(rest)) add(Buffer.from(rest, 'hex').toString('hex'), where);
      }
    }
  }
  return index;
}

/**
 * Runs the brute force: each guess of each card, in each form (the requests that carried the card,
 * and the card's own values), hashed and looked up among `haystacks` (any of hex, base64 and
 * base64url). The number and the code alone are tried under SHA-256, SHA-512, SHA-1 and MD5, the
 * forms that join several values under SHA-256. Returns one line per form that matched (empty:
 * nothing recovered).
 */
export function bruteForceCards(
  cards: readonly KnownCard[],
  requests: readonly SentRequest[],
  haystacks: readonly Haystack[],
): string[] {
  const index = hashIndex(haystacks);
  const hits: string[] = [];
  for (const card of cards) {
    const forms = [
      ...cardForms(card).map((f) => ({ ...f, algorithms: f.parts.length === 1 ? ALGORITHMS : (['sha256'] as const) })),
      ...requests.flatMap((r, i) =>
        requestForms(r, card).map((f) => ({
          ...f,
          form: `${f.form} of request ${i + 1} (${r.method} ${r.url})`,
          algorithms: ['sha256'] as const,
        })),
      ),
    ].map((f) => ({
      ...f,
      usesNumber: f.parts.includes(NUMBER),
      usesCode: f.parts.includes(CODE),
      tried: new Set<string>(),
    }));
    const found = new Set<string>();
    for (const guess of guesses(card)) {
      for (const { form, parts, algorithms, usesNumber, usesCode, tried } of forms) {
        if (found.has(form)) continue;
        // A form without the code (or the number) is the same text for many guesses: hashed once.
        if (!usesNumber || !usesCode) {
          const id = usesNumber ? guess.number : usesCode ? (guess.code ?? '') : '';
          if (tried.has(id)) continue;
          tried.add(id);
        }
        const text = parts.map((p) => (p === NUMBER ? guess.number : p === CODE ? (guess.code ?? '') : p)).join('');
        for (const algorithm of algorithms) {
          const where = index.get(hash(algorithm, text, 'hex').slice(0, 16));
          if (where === undefined) continue;
          found.add(form);
          const recovered = [usesNumber ? `number ${guess.number}` : null, usesCode ? `code ${guess.code}` : null]
            .filter(Boolean)
            .join(' and ');
          hits.push(`${card.label}: ${recovered} recovered from the ${algorithm} of the ${form}, in ${where}`);
        }
      }
    }
  }
  return hits;
}
