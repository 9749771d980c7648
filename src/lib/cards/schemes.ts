/**
 * Card scheme identifiers known to the public client library's enumeration (lowercase, hyphens).
 * Enumerations are open on the client, so inputs are checked by shape (`CARD_SCHEME_PATTERN`) and
 * this list is what the server itself produces.
 */
export const CARD_SCHEMES = [
  'accel',
  'amex',
  'bancontact',
  'carte-bancaire',
  'cirrus',
  'culiance',
  'dankort',
  'diners-club',
  'discover',
  'eftpos-australia',
  'elo',
  'hipercard',
  'jcb',
  'maestro',
  'mastercard',
  'mir',
  'nyce',
  'other',
  'pulse',
  'rupay',
  'star',
  'uatp',
  'unionpay',
  'visa',
] as const;

export type CardScheme = (typeof CARD_SCHEMES)[number];

export const CARD_SCHEME_PATTERN = '^[a-z0-9]+(-[a-z0-9]+)*$';

export function isCardScheme(value: string): value is CardScheme {
  return (CARD_SCHEMES as readonly string[]).includes(value);
}

/** The specification's card types (`CardType`). */
export const CARD_TYPES = ['credit', 'debit', 'prepaid'] as const;

export type CardType = (typeof CARD_TYPES)[number];
