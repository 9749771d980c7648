/**
 * An IBAN as ISO 13616 checks it: spaces ignored, a two-letter country, two check digits, up to
 * 30 letters and digits, and the whole, rearranged (the first four characters moved to the end,
 * letters as 10 to 35), leaving remainder 1 modulo 97. The country's own length is not checked.
 * Returns the IBAN without spaces in capitals, or null when it is not one.
 */
export function normalizedIban(text: string): string | null {
  const iban = text.split(' ').join('').toUpperCase();
  if (iban.length < 15 || iban.length > 34) return null;
  const letter = (c: string) => c >= 'A' && c <= 'Z';
  const digit = (c: string) => c >= '0' && c <= '9';
  if (!letter(iban[0]!) || !letter(iban[1]!) || !digit(iban[2]!) || !digit(iban[3]!)) return null;
  let remainder = 0;
  for (const c of iban.slice(4) + iban.slice(0, 4)) {
    if (!letter(c) && !digit(c)) return null;
    // A letter is two digits (A = 10); the remainder is carried digit by digit, never a big number.
    for (const d of letter(c) ? String(c.charCodeAt(0) - 55) : c) remainder = (remainder * 10 + Number(d)) % 97;
  }
  return remainder === 1 ? iban : null;
}
