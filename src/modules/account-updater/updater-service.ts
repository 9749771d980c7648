import type { AccountUpdaterOutcome } from '../../db/schema.ts';
import { luhnCheckDigit } from '../../lib/card-schemes.ts';
import { parseExpirationDate } from '../../lib/card-schemes.ts';

/** The schemes whose stored cards the account updater accepts (the networks that run an updater service). */
export const ACCOUNT_UPDATER_SCHEMES: readonly string[] = ['visa', 'mastercard', 'amex', 'discover'];

/** Production's refusal (docs/production.md): this simulation is the only updater there is. */
export const NO_UPDATER = [
  'The account updater',
  "no real account updater is configured: a card network's or a provider's updater service is not integrated yet",
] as const;

/** What the updater knows about a card: only the card itself, no merchant data. */
export interface UpdaterInquiry {
  number: string;
  expirationDate: string | null;
}

export type UpdaterAnswer =
  | { outcome: 'no_change' }
  | { outcome: 'expiration_date_updated'; expirationDate: string }
  | { outcome: 'number_updated'; number: string }
  | { outcome: 'closed' };

/**
 * Sandbox test cards with a scripted answer (docs/sandbox.md, "Account updater outcomes"); every other number
 * answers `no_change`.
 */
export const ACCOUNT_UPDATER_TEST_CARDS: Readonly<Record<string, Exclude<AccountUpdaterOutcome, 'no_change'>>> = {
  '4111111111111111': 'expiration_date_updated',
  '5555555555554444': 'number_updated',
  '378282246310005': 'closed',
};

/** The same month, `years` later (`12/39` + 2 → `12/41`). */
export function extendExpirationDate(value: string, years: number): string | null {
  const parsed = parseExpirationDate(value);
  if (!parsed) return null;
  return `${String(parsed.month).padStart(2, '0')}/${String((parsed.year + years) % 100).padStart(2, '0')}`;
}

/**
 * A replacement number: the same issuer prefix (six digits, so the same scheme and length), the
 * account digits plus one, and a new Luhn check digit.
 */
export function replacementNumber(number: string): string {
  const prefix = number.slice(0, 6);
  const account = number.slice(6, -1);
  const next = ((BigInt(account) + 1n) % 10n ** BigInt(account.length)).toString().padStart(account.length, '0');
  return `${prefix}${next}${luhnCheckDigit(`${prefix}${next}`)}`;
}

/**
 * The simulated card network updater: pure and deterministic by card number. A real updater would
 * be a network call made outside any transaction (house style D4); this one needs no I/O.
 */
export function inquire(inquiry: UpdaterInquiry): UpdaterAnswer {
  switch (ACCOUNT_UPDATER_TEST_CARDS[inquiry.number]) {
    case 'expiration_date_updated': {
      const expirationDate = inquiry.expirationDate ? extendExpirationDate(inquiry.expirationDate, 2) : null;
      return expirationDate ? { outcome: 'expiration_date_updated', expirationDate } : { outcome: 'no_change' };
    }
    case 'number_updated':
      return { outcome: 'number_updated', number: replacementNumber(inquiry.number) };
    case 'closed':
      return { outcome: 'closed' };
    default:
      return { outcome: 'no_change' };
  }
}
