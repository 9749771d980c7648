/** A card's expiration month: `month` 1-12, `year` with four digits. */
export interface ExpirationDate {
  month: number;
  year: number;
}

const MM_YY = /^(0[1-9]|1[0-2])\/(\d{2})$/;

/**
 * Parses the specification's `MM/YY` (two digits each, e.g. `04/29`). Years are 20YY: card
 * validity is at most about 20 years, so no century window is needed before 2100.
 */
export function parseExpirationDate(value: string): ExpirationDate | null {
  const match = MM_YY.exec(value);
  if (!match) return null;
  return { month: Number(match[1]), year: 2000 + Number(match[2]) };
}

/**
 * Whether the card has expired at `now`. A card is valid through the last day of its month, in
 * UTC: `04/29` works until 2029-04-30T23:59:59.999Z and has expired from 2029-05-01T00:00:00Z.
 * Throws RangeError on a value that is not `MM/YY` (validate it first).
 */
export function isExpired(expiration: string | ExpirationDate, now: Date): boolean {
  const parsed = typeof expiration === 'string' ? parseExpirationDate(expiration) : expiration;
  if (!parsed) throw new RangeError('The expiration date must have the form MM/YY');
  // Date.UTC months are 0-based, so passing the 1-based month gives the first day of the next one.
  return now.getTime() >= Date.UTC(parsed.year, parsed.month, 1);
}
