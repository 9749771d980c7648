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
  'CARD_NUMBER', 'CARD_EXPIRATION_DATE', 'CARD_EXPIRATION_MONTH', 'CARD_EXPIRATION_MONTH_SHORT', 'CARD_EXPIRATION_YEAR', 'CARD_EXPIRATION_YEAR_SHORT',
  'CARD_HOLDER_NAME', 'CARD_SECURITY_CODE',
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
  if (field.startsWith('CARD_EXPIRATION') && card.expirationDate === null) throw new PlaceholderError(`{{${field}_${index}}}: payment method ${index} has no expiration date stored`);
  const [month, year] = (card.expirationDate ?? '/').split('/') as [string, string];
  switch (field) {
    case 'CARD_EXPIRATION_DATE': return card.expirationDate!;
    case 'CARD_EXPIRATION_MONTH': return month;
    case 'CARD_EXPIRATION_MONTH_SHORT': return String(Number(month));
    case 'CARD_EXPIRATION_YEAR': return `20${year}`;
    case 'CARD_EXPIRATION_YEAR_SHORT': return year;
    case 'CARD_HOLDER_NAME':
      if (card.holderName === null) throw new PlaceholderError(`{{CARD_HOLDER_NAME_${index}}}: payment method ${index} has no cardholder name stored`);
      return card.holderName;
    case 'CARD_SECURITY_CODE':
      if (card.securityCode === null) throw new PlaceholderError(`{{CARD_SECURITY_CODE_${index}}}: no security code is available for payment method ${index}; name a checkout session holding one with x-vault-forward-checkout-session`);
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
    return new PlaceholderError(`Unknown placeholder {{${shown(inner)}}}; use ${PLACEHOLDER_FIELDS.map((f) => `{{${f}_n}}`).join(', ')} (n: the payment method's position in x-vault-forward-payment-methods, from 1)`);
  }
  const index = Number(shape[2]);
  if (index < 1 || index > cardCount) return new PlaceholderError(`Placeholder {{${shown(inner)}}} names payment method ${index}, but x-vault-forward-payment-methods lists ${cardCount}`);
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
export function fillPlaceholders(body: string, cards: readonly ForwardCard[], found: readonly Placeholder[] = placeholdersOf(body, cards.length)): string {
  const values = new Map<string, string>();
  let filled = '';
  let at = 0;
  for (const { field, index, start, end } of found) {
    const key = `${field}_${index}`;
    let value = values.get(key);
    if (value === undefined) values.set(key, (value = JSON.stringify(valueOf(field, cards[index - 1]!, index)).slice(1, -1)));
    filled += body.slice(at, start) + value;
    at = end;
  }
  return filled + body.slice(at);
}

/** Every card number of `cards` in `text` masked to its first 6 and last 4 digits (what a target echoes back). */
export function maskCardNumbers(text: string, cards: readonly ForwardCard[]): string {
  let masked = text;
  for (const { number } of cards) masked = masked.split(number).join(`${number.slice(0, 6)}${'*'.repeat(number.length - 10)}${number.slice(-4)}`);
  return masked;
}
