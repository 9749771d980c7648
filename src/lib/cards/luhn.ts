/**
 * The Luhn (mod 10) check of ISO/IEC 7812, a plain loop without allocations. Card number validation
 * uses it; the log scrubber (`lib/redact.ts`) checks every window of a long digit run at once with
 * running sums of the same weights (its tests compare the two).
 */
export function luhnValid(digits: string): boolean {
  if (digits.length === 0) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** The digit that makes `body + digit` pass the Luhn check (used to build test numbers). */
export function luhnCheckDigit(body: string): string {
  for (let digit = 0; digit <= 9; digit++) if (luhnValid(`${body}${digit}`)) return String(digit);
  throw new RangeError('luhnCheckDigit expects digits only');
}
