/** Formatting shared by the pages: money in minor units, dates, and labels. */

const digitsCache = new Map<string, number>();

/** The number of minor-unit digits of a currency (2 for EUR, 0 for JPY, 3 for KWD). */
export function currencyDigits(currency: string): number {
  let digits = digitsCache.get(currency);
  if (digits === undefined) {
    try {
      digits =
        new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      digits = 2;
    }
    digitsCache.set(currency, digits);
  }
  return digits;
}

export function money(minor: number | null | undefined, currency: string | null | undefined): string {
  if (minor === null || minor === undefined) return '—';
  if (!currency) return String(minor);
  const digits = currencyDigits(currency);
  try {
    return new Intl.NumberFormat('en', {
      style: 'currency',
      currency,
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    }).format(minor / 10 ** digits);
  } catch {
    return `${minor} ${currency}`;
  }
}

/** "12.50" in EUR → 1250; null when it is not an amount. */
export function toMinor(text: string, currency: string): number | null {
  const digits = currencyDigits(currency);
  const trimmed = text.trim();
  if (trimmed === '' || Number.isNaN(Number(trimmed))) return null;
  const [whole = '0', fraction = ''] = trimmed.split('.');
  if (fraction.length > digits || whole.startsWith('-')) return null;
  return Number(whole) * 10 ** digits + Number(fraction.padEnd(digits, '0') || '0');
}

export function dateTime(value: string | null | undefined): string {
  if (!value) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime())
    ? value
    : date.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}

export const label = (value: string | null | undefined): string => (value ? value.replace(/[_-]/g, ' ') : '—');

export function percent(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : `${(value * 100).toFixed(1)} %`;
}

/** A file size for people: 812 B, 4.2 kB, 1.5 MB. */
export function bytes(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  if (value < 1000) return `${value} B`;
  if (value < 1_000_000) return `${(value / 1000).toFixed(1)} kB`;
  return `${(value / 1_000_000).toFixed(1)} MB`;
}
