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

/** Anything between double braces; what it holds is checked, so a typo is an error rather than sent as is. */
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const SHAPE = /^([A-Z_]+?)_(\d{1,2})$/;

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

/** The placeholders a body uses (field and 1-based index), checked; throws PlaceholderError naming the first bad one. */
export function placeholdersOf(body: string, cardCount: number): Array<{ field: Field; index: number }> {
  const found: Array<{ field: Field; index: number }> = [];
  for (const match of body.matchAll(PLACEHOLDER)) {
    const inner = match[1]!;
    const shape = SHAPE.exec(inner);
    if (!shape || !(PLACEHOLDER_FIELDS as readonly string[]).includes(shape[1]!)) {
      throw new PlaceholderError(`Unknown placeholder {{${inner}}}; use ${PLACEHOLDER_FIELDS.map((f) => `{{${f}_n}}`).join(', ')} (n: the payment method's position in x-vault-forward-payment-methods, from 1)`);
    }
    const index = Number(shape[2]);
    if (index < 1 || index > cardCount) {
      throw new PlaceholderError(`Placeholder {{${inner}}} names payment method ${index}, but x-vault-forward-payment-methods lists ${cardCount}`);
    }
    found.push({ field: shape[1] as Field, index });
  }
  return found;
}

/**
 * The body with every placeholder replaced. Values are escaped for a JSON string (a cardholder
 * name may hold a quote), since placeholders stand inside the body's JSON strings.
 */
export function fillPlaceholders(body: string, cards: readonly ForwardCard[]): string {
  placeholdersOf(body, cards.length);
  return body.replace(PLACEHOLDER, (_m, inner: string) => {
    const [, field, index] = SHAPE.exec(inner)!;
    return JSON.stringify(valueOf(field as Field, cards[Number(index) - 1]!, Number(index))).slice(1, -1);
  });
}

/** Every card number of `cards` in `text` masked to its first 6 and last 4 digits (what a target echoes back). */
export function maskCardNumbers(text: string, cards: readonly ForwardCard[]): string {
  let masked = text;
  for (const { number } of cards) masked = masked.split(number).join(`${number.slice(0, 6)}${'*'.repeat(number.length - 10)}${number.slice(-4)}`);
  return masked;
}
