import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { currencyExponent } from '../../../lib/currencies.ts';
import { PAGE_LOCALES } from '../payment-links.schemas.ts';

/**
 * The hosted page's texts, one JSON file per locale in `locales/` (read once). A locale the page has
 * no file for falls back to its language (`es-MX` → `es`), then to English; a key missing from a
 * file falls back to English too.
 */
export type PageLocale = (typeof PAGE_LOCALES)[number];
export type MessageKey = keyof typeof ENGLISH;

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'locales');
const read = (locale: string) =>
  JSON.parse(fs.readFileSync(path.join(DIR, `${locale}.json`), 'utf8')) as Record<string, string>;
const ENGLISH = read('en') as Record<string, string> & { page_title: string };
const CATALOGUES: Record<string, Record<string, string>> = Object.fromEntries(
  PAGE_LOCALES.map((locale) => [locale, read(locale)]),
);

/** The locale the page is shown in for a link's `locale`. */
export function pageLocale(requested: string | null): PageLocale {
  if (!requested) return 'en';
  const exact = PAGE_LOCALES.find((l) => l.toLowerCase() === requested.toLowerCase());
  if (exact) return exact;
  const language = requested.split('-')[0]!.toLowerCase();
  return PAGE_LOCALES.find((l) => l === language) ?? 'en';
}

export interface Translator {
  locale: PageLocale;
  t(key: MessageKey, vars?: Record<string, string | number>): string;
  money(amount: number, currency: string): string;
}

export function translator(locale: PageLocale): Translator {
  const catalogue = CATALOGUES[locale]!;
  return {
    locale,
    t: (key, vars = {}) =>
      (catalogue[key] ?? ENGLISH[key] ?? key).replace(/\{(\w+)\}/g, (_m, name: string) => String(vars[name] ?? '')),
    money: (amount, currency) => {
      const exponent = currencyExponent(currency);
      return new Intl.NumberFormat(locale, {
        style: 'currency',
        currency,
        minimumFractionDigits: exponent,
        maximumFractionDigits: exponent,
      }).format(amount / 10 ** exponent);
    },
  };
}

/** The message key for a declined or failed payment's error code: what the buyer can act on. */
export function declineMessage(errorCode: string | null): MessageKey {
  switch (errorCode) {
    case 'insufficient_funds':
      return 'declined_insufficient_funds';
    case 'expired_card':
      return 'declined_expired_card';
    case 'incorrect_cvv':
      return 'declined_incorrect_cvv';
    case 'three_d_secure_authentication_failed':
    case 'authentication_required':
      return 'declined_authentication';
    // The card-testing guard throttled the source (docs/risk.md): nothing the buyer's card can fix now.
    case 'flow_card_testing_suspected':
      return 'declined_try_later';
    case 'service_error':
    case 'service_network_error':
    case 'buyer_approval_timeout':
      return 'payment_failed';
    default:
      return 'declined_generic';
  }
}
