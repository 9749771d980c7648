/**
 * Card scheme table: identifiers, BIN/IIN detection, number and expiration checks, display names
 * and icons, sandbox test cards. Pure and deterministic (no network). The pieces live in `cards/`;
 * import them from here.
 */
export {
  CARD_SCHEMES,
  CARD_SCHEME_PATTERN,
  CARD_TYPES,
  isCardScheme,
  type CardScheme,
  type CardType,
} from './cards/schemes.ts';
export { luhnCheckDigit, luhnValid } from './cards/luhn.ts';
export { IIN_RANGES, NUMBER_LENGTHS, type IinRange } from './cards/iin-ranges.ts';
export {
  bin,
  cardNumberProblem,
  describeLengths,
  detectScheme,
  detectSchemes,
  last4,
  numberLengths,
  validateCardNumber,
  type CardNumberCheck,
  type SchemeDetection,
} from './cards/card-number.ts';
export { isExpired, parseExpirationDate, type ExpirationDate } from './cards/expiration.ts';
export { CARD_SCHEME_DISPLAY_NAMES, cardSchemeIconPath, renderCardSchemeIcon } from './cards/scheme-definitions.ts';
export { TEST_CARDS, type TestCard } from './cards/test-cards.ts';
