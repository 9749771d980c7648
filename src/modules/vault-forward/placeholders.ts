import { endianness } from 'node:os';

/**
 * Placeholders of a forwarded body (docs/vault-forward.md): `{{CARD_NUMBER_1}}` or
 * `{{ CARD_NUMBER_1 }}`, numbered by the order of `x-vault-forward-payment-methods`. Pure: the
 * card data comes in, the body goes out; nothing here logs or keeps it.
 */

export interface ForwardCard {
  number: string;
  /** `MM/YY`, as stored; null when the card has none stored. */
  expirationDate: string | null;
  holderName: string | null;
  /** Only when a checkout session holding one was named, used for this one request. */
  securityCode: string | null;
}

export const PLACEHOLDER_FIELDS = [
  'CARD_NUMBER',
  'CARD_EXPIRATION_DATE',
  'CARD_EXPIRATION_MONTH',
  'CARD_EXPIRATION_MONTH_SHORT',
  'CARD_EXPIRATION_YEAR',
  'CARD_EXPIRATION_YEAR_SHORT',
  'CARD_HOLDER_NAME',
  'CARD_SECURITY_CODE',
] as const;
type Field = (typeof PLACEHOLDER_FIELDS)[number];

/** What a placeholder holds once trimmed: a field, `_`, the payment method's position (anchored; one step per character). */
const SHAPE = /^([A-Z_]+?)_(\d{1,2})$/;
/** Longer than this, what a placeholder holds is cut short in a refusal's message. */
const SHOWN = 64;

const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }

/**
 * Every placeholder of `body`, in order (`start`, `end` after its `}}`, and what it holds, trimmed):
 * `{{`, then no brace, then `}}`. This is the grammar of the former pattern
 * `/\{\{\s*([^{}]*?)\s*\}\}/g`, whose backtracking took time cubic in the length of an unclosed `{{`
 * followed by spaces (1,515 bytes held the process for 3 s; issue 48). The scan reads each
 * character a bounded number of times: a `{{` is a placeholder exactly when the first brace after
 * it starts `}}`; when it does not, the next `{{` cannot start before that brace's neighbour, so
 * the search goes on from there.
 */
function scanPlaceholders(body: string, each: (start: number, end: number, inner: string) => void): void {
  let from = 0;
  for (;;) {
    const start = body.indexOf('{{', from);
    if (start < 0) return;
    let brace = start + 2;
    while (brace < body.length && body.charCodeAt(brace) !== OPEN && body.charCodeAt(brace) !== CLOSE) brace++;
    if (brace >= body.length) return;
    if (body.charCodeAt(brace) === CLOSE && body.charCodeAt(brace + 1) === CLOSE) {
      // trim() removes exactly what \s matches (ECMAScript WhiteSpace and LineTerminator).
      each(start, brace + 2, body.slice(start + 2, brace).trim());
      from = brace + 2;
    } else {
      // Between start + 1 and brace - 1 there is no brace but the `{` at start + 1.
      from = brace - 1;
    }
  }
}

const shown = (inner: string) => (inner.length > SHOWN ? `${inner.slice(0, SHOWN)}…` : inner);

export class PlaceholderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PlaceholderError';
  }
}

function valueOf(field: Field, card: ForwardCard, index: number): string {
  if (field === 'CARD_NUMBER') return card.number;
  if (field.startsWith('CARD_EXPIRATION') && card.expirationDate === null)
    throw new PlaceholderError(`{{${field}_${index}}}: payment method ${index} has no expiration date stored`);
  const [month, year] = (card.expirationDate ?? '/').split('/') as [string, string];
  switch (field) {
    case 'CARD_EXPIRATION_DATE':
      return card.expirationDate!;
    case 'CARD_EXPIRATION_MONTH':
      return month;
    case 'CARD_EXPIRATION_MONTH_SHORT':
      return String(Number(month));
    case 'CARD_EXPIRATION_YEAR':
      return `20${year}`;
    case 'CARD_EXPIRATION_YEAR_SHORT':
      return year;
    case 'CARD_HOLDER_NAME':
      if (card.holderName === null)
        throw new PlaceholderError(
          `{{CARD_HOLDER_NAME_${index}}}: payment method ${index} has no cardholder name stored`,
        );
      return card.holderName;
    case 'CARD_SECURITY_CODE':
      if (card.securityCode === null)
        throw new PlaceholderError(
          `{{CARD_SECURITY_CODE_${index}}}: no security code is available for payment method ${index}; name a checkout session holding one with x-vault-forward-checkout-session`,
        );
      return card.securityCode;
  }
}

/** A placeholder of a body, checked: its field, the 1-based position of its payment method, and where it stands. */
export interface Placeholder {
  field: Field;
  index: number;
  start: number;
  end: number;
}

/** A body's text and its placeholders, checked. */
export interface CheckedBody {
  text: string;
  placeholders: Placeholder[];
}

/** What a placeholder holds, read as a field and a position; a PlaceholderError when it is neither. */
function parsed(inner: string, cardCount: number): { field: Field; index: number } | PlaceholderError {
  const shape = SHAPE.exec(inner);
  if (!shape || !(PLACEHOLDER_FIELDS as readonly string[]).includes(shape[1]!)) {
    return new PlaceholderError(
      `Unknown placeholder {{${shown(inner)}}}; use ${PLACEHOLDER_FIELDS.map((f) => `{{${f}_n}}`).join(', ')} (n: the payment method's position in x-vault-forward-payment-methods, from 1)`,
    );
  }
  const index = Number(shape[2]);
  if (index < 1 || index > cardCount)
    return new PlaceholderError(
      `Placeholder {{${shown(inner)}}} names payment method ${index}, but x-vault-forward-payment-methods lists ${cardCount}`,
    );
  return { field: shape[1] as Field, index };
}

/** The placeholders a body uses, checked; throws PlaceholderError naming the first bad one. */
export function placeholdersOf(body: string, cardCount: number): Placeholder[] {
  const found: Placeholder[] = [];
  // A body may repeat a placeholder many times: each distinct one is read once.
  const seen = new Map<string, { field: Field; index: number }>();
  scanPlaceholders(body, (start, end, inner) => {
    let known = seen.get(inner);
    if (!known) {
      const read = parsed(inner, cardCount);
      if (read instanceof PlaceholderError) throw read;
      seen.set(inner, (known = read));
    }
    found.push({ field: known.field, index: known.index, start, end });
  });
  return found;
}

/**
 * The body with every placeholder replaced (`found`: its placeholders, when already checked). Values
 * are escaped for a JSON string (a cardholder name may hold a quote), since placeholders stand
 * inside the body's JSON strings.
 */
export function fillPlaceholders(
  body: string,
  cards: readonly ForwardCard[],
  found: readonly Placeholder[] = placeholdersOf(body, cards.length),
): string {
  const values = new Map<string, string>();
  let filled = '';
  let at = 0;
  for (const { field, index, start, end } of found) {
    const key = `${field}_${index}`;
    let value = values.get(key);
    if (value === undefined)
      values.set(key, (value = JSON.stringify(valueOf(field, cards[index - 1]!, index)).slice(1, -1)));
    filled += body.slice(at, start) + value;
    at = end;
  }
  return filled + body.slice(at);
}

/**
 * What may stand between two digits of a card number a target prints: whitespace (no-break and
 * other Unicode spaces too), dashes, dots, slashes, underscores, `+` (a form-encoded space) and NUL
 * (text in UTF-16). Answers are read as latin1, so a UTF-8 character shows as its bytes: those
 * forms are listed too, and the percent-encoded space and dash.
 */
const SEPARATOR_CHARS = new Set(
  [...' \t\r\n\f\v-._/+\u0000\u00a0\u2007\u2009\u200a\u202f\u2010\u2011\u2012\u2013\u2014\u2212\u3000'].map((c) =>
    c.charCodeAt(0),
  ),
);
const SEPARATOR_SEQUENCES = [
  '%20',
  '%2D',
  '%2d',
  ...[
    '\u00a0',
    '\u2007',
    '\u2009',
    '\u200a',
    '\u202f',
    '\u2010',
    '\u2011',
    '\u2012',
    '\u2013',
    '\u2014',
    '\u2212',
    '\u3000',
  ].map((c) => Buffer.from(c, 'utf8').toString('latin1')),
];
/** At most this many separators between two digits: `4111 - 1111` is one number, `4111    1111` is two. */
const MAX_SEPARATORS = 3;

const isDigit = (code: number) => code >= 0x30 && code <= 0x39;

const SEQUENCE_STARTS = new Set(SEPARATOR_SEQUENCES.map((sequence) => sequence.charCodeAt(0)));

/** The length of the separator at `at` in `text`, or 0. */
function separatorAt(text: string, at: number): number {
  const code = text.charCodeAt(at);
  if (SEPARATOR_CHARS.has(code)) return 1;
  if (SEQUENCE_STARTS.has(code))
    for (const sequence of SEPARATOR_SEQUENCES) if (text.startsWith(sequence, at)) return sequence.length;
  return 0;
}

/** Positions in a text, in a typed array that grows as it fills (a run may hold a million digits). */
interface Positions {
  at: Int32Array;
  count: number;
}

/** Appends the positions `from` to `to` (excluded). */
function pushRange(positions: Positions, from: number, to: number): void {
  if (positions.count + (to - from) > positions.at.length) {
    const grown = new Int32Array(Math.max(positions.at.length * 2, positions.count + (to - from)));
    grown.set(positions.at);
    positions.at = grown;
  }
  for (let position = from; position < to; position++) positions.at[positions.count++] = position;
}

/**
 * The positions in `text` of the digits of the run starting at `first` (into `positions`, emptied
 * first): digits with at most MAX_SEPARATORS separators between two. Returns the run's digits.
 */
function digitRun(text: string, first: number, positions: Positions): string {
  positions.count = 0;
  let start = first;
  for (;;) {
    let end = start + 1;
    while (isDigit(text.charCodeAt(end))) end++;
    pushRange(positions, start, end);
    let next = end;
    for (let gap = 0, length = 0; gap < MAX_SEPARATORS && (length = separatorAt(text, next)) > 0; gap++) next += length;
    if (!isDigit(text.charCodeAt(next))) break;
    start = next;
  }
  const last = positions.at[positions.count - 1]!;
  if (last - first + 1 === positions.count) return text.slice(first, last + 1);
  const digits = Buffer.allocUnsafe(positions.count);
  for (let i = 0; i < positions.count; i++) digits[i] = text.charCodeAt(positions.at[i]!);
  return digits.toString('latin1');
}

/**
 * Every card number of `cards` in `text` masked to its first 6 and last 4 digits (what a target
 * echoes back), wherever it stands: as one run of digits, or printed in groups (`4111 1111 1111
 * 1111` becomes `4111 11** **** 1111`, the separators kept). One pass over the text: each digit run
 * is read once, and each card number is looked for in its digits.
 */
export function maskCardNumbers(text: string, cards: readonly ForwardCard[]): string {
  const numbers = [...new Set(cards.map((card) => card.number))];
  if (numbers.length === 0) return text;
  const shortest = Math.min(...numbers.map((number) => number.length));
  const positions: Positions = { at: new Int32Array(64), count: 0 };
  // The text's UTF-16 code units, made at the first digit to hide: a digit becomes `*` in place.
  let units: Uint16Array | null = null;
  for (let at = 0; at < text.length; at++) {
    if (!isDigit(text.charCodeAt(at))) continue;
    const digits = digitRun(text, at, positions);
    at = positions.at[positions.count - 1]!;
    if (positions.count < shortest) continue;
    for (const number of numbers) {
      // Overlapping finds too, so that no echo escapes behind another; finds come in order, so
      // each digit is hidden once.
      let hiddenTo = 0;
      for (let found = digits.indexOf(number); found >= 0; found = digits.indexOf(number, found + 1)) {
        if (!units) {
          units = new Uint16Array(text.length);
          for (let i = 0; i < text.length; i++) units[i] = text.charCodeAt(i);
        }
        for (let i = Math.max(found + 6, hiddenTo); i < found + number.length - 4; i++) units[positions.at[i]!] = 0x2a;
        hiddenTo = found + number.length - 4;
      }
    }
  }
  if (!units) return text;
  const bytes = Buffer.from(units.buffer, units.byteOffset, units.byteLength);
  // The array holds the platform's byte order; utf16le reads little-endian.
  if (endianness() === 'BE') bytes.swap16();
  return bytes.toString('utf16le');
}
