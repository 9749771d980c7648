import { currencyDigits, money, toMinor } from '../ui/format.ts';

/**
 * A payment service's fee schedule (docs/routing.md, "Fee schedules"): entries as the API gives
 * them, the form's drafts, and the checks the API makes, in words a person can act on.
 */

export interface FeeEntry {
  scheme: string | null;
  card_type: string | null;
  currency: string | null;
  country: string | null;
  percent: string;
  fixed_fee: { amount: number; currency: string } | null;
}

export interface FeeSchedule {
  payment_service_id: string;
  entries: FeeEntry[];
  updated_at: string | null;
}

/** Every text as typed; empty match fields mean "any". */
export interface FeeDraft {
  scheme: string;
  card_type: string;
  currency: string;
  country: string;
  percent: string;
  fixed_amount: string;
  fixed_currency: string;
}

export const CARD_TYPES = ['credit', 'debit', 'prepaid'] as const;
/** Entries per service (the API's limit). */
export const MAX_FEE_ENTRIES = 100;

export const EMPTY_FEE: FeeDraft = {
  scheme: '',
  card_type: '',
  currency: '',
  country: '',
  percent: '',
  fixed_amount: '',
  fixed_currency: '',
};

/** A stored entry as the form's draft: the fixed fee in its currency's units ("0.25"). */
export function feeDraft(entry: FeeEntry): FeeDraft {
  const fee = entry.fixed_fee;
  const digits = fee ? currencyDigits(fee.currency) : 0;
  return {
    scheme: entry.scheme ?? '',
    card_type: entry.card_type ?? '',
    currency: entry.currency ?? '',
    country: entry.country ?? '',
    percent: entry.percent,
    fixed_amount: fee ? (fee.amount / 10 ** digits).toFixed(digits) : '',
    fixed_currency: fee && fee.currency !== entry.currency ? fee.currency : '',
  };
}

const isDigits = (s: string) => s.length > 0 && [...s].every((c) => c >= '0' && c <= '9');
const isLetters = (s: string, n: number) => s.length === n && [...s].every((c) => c >= 'A' && c <= 'Z');

/** "2.9" as the API takes it (0 to 100, at most 4 decimals, no leading zero), or null. */
export function percentText(text: string): string | null {
  const trimmed = text.trim().replace(',', '.');
  const [whole = '', fraction, extra] = trimmed.split('.');
  if (extra !== undefined || (whole === '' && fraction === undefined)) return null;
  if (whole !== '' && !isDigits(whole)) return null;
  if (fraction !== undefined && (!isDigits(fraction) || fraction.length > 4)) return null;
  const value = Number(`${whole || '0'}.${fraction ?? '0'}`);
  if (value > 100) return null;
  const normalized = String(Number(whole || '0'));
  return fraction === undefined ? normalized : `${normalized}.${fraction}`;
}

const any = (value: string | null) => value ?? 'any';
const matchKey = (e: FeeEntry) => [e.scheme, e.card_type, e.currency, e.country].join('|');

/** What an entry matches, in words: "visa debit cards in EUR, any country". */
export function describeMatch(e: FeeEntry): string {
  return `scheme ${any(e.scheme)}, card type ${any(e.card_type)}, currency ${any(e.currency)}, country ${any(e.country)}`;
}

/** An entry's fee: "1.4 % + €0.25". */
export function describeFee(e: FeeEntry): string {
  return e.fixed_fee ? `${e.percent} % + ${money(e.fixed_fee.amount, e.fixed_fee.currency)}` : `${e.percent} %`;
}

function entryOf(d: FeeDraft, n: number): FeeEntry | string {
  const currency = d.currency.trim().toUpperCase() || null;
  const country = d.country.trim().toUpperCase() || null;
  if (currency && !isLetters(currency, 3))
    return `Entry ${n}: the currency is a 3-letter code such as EUR, or empty for any currency.`;
  if (country && !isLetters(country, 2))
    return `Entry ${n}: the country is a 2-letter code such as DE, or empty for any country.`;
  const percent = percentText(d.percent);
  if (percent === null)
    return `Entry ${n}: the percentage is a number from 0 to 100 with at most 4 decimals, such as 2.9 (0 for none).`;
  let fixed: FeeEntry['fixed_fee'] = null;
  if (d.fixed_amount.trim() !== '') {
    // An entry for one currency charges its fixed fee in it (the API refuses another: no conversion).
    const feeCurrency = currency ?? d.fixed_currency.trim().toUpperCase();
    if (!feeCurrency)
      return `Entry ${n}: give the fixed fee's currency (the entry applies to every currency), or set the entry's currency.`;
    if (!isLetters(feeCurrency, 3)) return `Entry ${n}: the fixed fee's currency is a 3-letter code such as EUR.`;
    const amount = toMinor(d.fixed_amount, feeCurrency);
    if (amount === null || amount > 99_999_999)
      return `Entry ${n}: the fixed fee is an amount in ${feeCurrency} such as ${(25 / 10 ** currencyDigits(feeCurrency)).toFixed(currencyDigits(feeCurrency))}, or empty for none.`;
    fixed = { amount, currency: feeCurrency };
  }
  return { scheme: d.scheme || null, card_type: d.card_type || null, currency, country, percent, fixed_fee: fixed };
}

/** The PUT body's entries, or one message per entry at fault (null: that entry is fine). */
export function feeEntries(drafts: readonly FeeDraft[]): { entries: FeeEntry[] } | { errors: Array<string | null> } {
  if (drafts.length > MAX_FEE_ENTRIES) return { errors: drafts.map(() => `At most ${MAX_FEE_ENTRIES} entries.`) };
  const results = drafts.map((d, i) => entryOf(d, i + 1));
  const errors = results.map((r) => (typeof r === 'string' ? r : null));
  const seen = new Map<string, number>();
  results.forEach((r, i) => {
    if (typeof r === 'string') return;
    const first = seen.get(matchKey(r));
    if (first === undefined) seen.set(matchKey(r), i);
    else
      errors[i] =
        `Entry ${i + 1} matches the same payments as entry ${first + 1} (${describeMatch(r)}): give each combination one entry.`;
  });
  if (errors.some((e) => e !== null)) return { errors };
  return { entries: results as FeeEntry[] };
}
