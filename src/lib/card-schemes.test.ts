import fs from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bin,
  CARD_SCHEME_DISPLAY_NAMES,
  CARD_SCHEMES,
  cardNumberProblem,
  cardSchemeIconPath,
  describeLengths,
  detectScheme,
  detectSchemes,
  IIN_RANGES,
  last4,
  luhnCheckDigit,
  luhnValid,
  numberLengths,
  renderCardSchemeIcon,
  TEST_CARDS,
  validateCardNumber,
  type CardScheme,
  type IinRange,
} from './card-schemes.ts';

const within = (digits: string, range: IinRange) => {
  const lead = Number(digits.slice(0, range.prefixLength));
  return digits.length >= range.prefixLength && lead >= range.low && lead <= range.high;
};

/** A Luhn-valid number of `length` digits inside `range`. */
const numberIn = (range: IinRange, lengths: readonly number[]) =>
  fc
    .tuple(
      fc.integer({ min: range.low, max: range.high }),
      fc.constantFrom(...lengths.filter((l) => l > range.prefixLength)),
      fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 18, maxLength: 18 }),
    )
    .map(([lead, length, fill]) => {
      const body =
        String(lead).padStart(range.prefixLength, '0') + fill.slice(0, length - range.prefixLength - 1).join('');
      return body + luhnCheckDigit(body);
    });

describe('happy', () => {
  it.each<[string, CardScheme]>([
    ['4', 'visa'],
    ['401177', 'visa'],
    ['51', 'mastercard'],
    ['55', 'mastercard'],
    ['2221', 'mastercard'],
    ['2720', 'mastercard'],
    ['34', 'amex'],
    ['37', 'amex'],
    ['6011', 'discover'],
    ['644', 'discover'],
    ['649', 'discover'],
    ['65', 'discover'],
    ['65214', 'discover'],
    ['65315', 'discover'],
    ['62', 'unionpay'],
    ['622125', 'unionpay'],
    ['622926', 'unionpay'],
    ['810', 'unionpay'],
    ['8171', 'unionpay'],
    ['3528', 'jcb'],
    ['3589', 'jcb'],
    ['300', 'diners-club'],
    ['305', 'diners-club'],
    ['36', 'diners-club'],
    ['38', 'diners-club'],
    ['39', 'diners-club'],
    ['384101', 'diners-club'],
    ['5018', 'maestro'],
    ['5020', 'maestro'],
    ['5038', 'maestro'],
    ['5893', 'maestro'],
    ['6304', 'maestro'],
    ['6759', 'maestro'],
    ['6761', 'maestro'],
    ['6763', 'maestro'],
    ['401178', 'elo'],
    ['506699', 'elo'],
    ['509999', 'elo'],
    ['627780', 'elo'],
    ['650031', 'elo'],
    ['655058', 'elo'],
    ['606282', 'hipercard'],
    ['384100', 'hipercard'],
    ['384160', 'hipercard'],
    ['2200', 'mir'],
    ['2204', 'mir'],
    ['5085', 'rupay'],
    ['60698', 'rupay'],
    ['6078', 'rupay'],
    ['6085', 'rupay'],
    ['65215', 'rupay'],
    ['6529', 'rupay'],
    ['6530', 'rupay'],
    ['65314', 'rupay'],
    ['8172', 'rupay'],
    ['8201', 'rupay'],
    ['5019', 'dankort'],
    ['1', 'uatp'],
    ['2220', 'other'],
    ['2721', 'other'],
    ['2205', 'other'],
    ['50', 'other'],
    ['56', 'other'],
    ['3527', 'other'],
    ['3590', 'other'],
    ['306', 'other'],
    ['643', 'other'],
    ['6764', 'other'],
    ['8202', 'other'],
    ['9', 'other'],
    ['7', 'other'],
    ['0', 'other'],
    ['', 'other'],
  ])('detects %s as %s (longest matching prefix)', (digits, scheme) => {
    expect(detectScheme(digits)).toBe(scheme);
  });

  it('reports co-badged ranges with their additional scheme, and the country of domestic schemes', () => {
    expect(detectSchemes('622126')).toEqual({ scheme: 'unionpay', additionalSchemes: ['discover'], country: null });
    expect(detectSchemes('622925')).toEqual({ scheme: 'unionpay', additionalSchemes: ['discover'], country: null });
    expect(detectSchemes('4571')).toEqual({ scheme: 'visa', additionalSchemes: ['dankort'], country: 'DK' });
    expect(detectSchemes('506699')).toEqual({ scheme: 'elo', additionalSchemes: [], country: 'BR' });
    expect(detectSchemes('411111')).toEqual({ scheme: 'visa', additionalSchemes: [], country: null });
  });

  it('lists every sandbox test card as a unique, Luhn-valid number detected as its scheme', () => {
    expect(new Set(TEST_CARDS.map((c) => c.number)).size).toBe(TEST_CARDS.length);
    for (const card of TEST_CARDS) {
      expect(luhnValid(card.number), card.number).toBe(true);
      expect(validateCardNumber(card.number), card.number).toMatchObject({
        ok: true,
        scheme: card.scheme,
        additionalSchemes: card.additionalSchemes ?? [],
      });
    }
    const covered = new Set(TEST_CARDS.map((c) => c.scheme));
    for (const range of IIN_RANGES) expect(covered.has(range.scheme), range.scheme).toBe(true);
  });

  it('matches the table "Test cards" of docs/sandbox.md, number for number', () => {
    const readme = fs.readFileSync(new URL('../../docs/sandbox.md', import.meta.url), 'utf8');
    const start = readme.indexOf('## Test cards');
    // Up to the next heading of any level: sub-tables (account updater outcomes) follow.
    const section = readme.slice(start, readme.indexOf('\n#', start + 1));
    const rows = [...section.matchAll(/^\| `(\d+)` \| `([a-z-]+)`/gm)].map(([, number, scheme]) => [number, scheme]);
    expect(rows).toEqual(TEST_CARDS.map((c) => [c.number, c.scheme]));
  });

  it('includes the test numbers the project relies on', () => {
    const numbers = TEST_CARDS.map((c) => c.number);
    for (const n of [
      '4111111111111111',
      '4242424242424242',
      '5555555555554444',
      '2223003122003222',
      '378282246310005',
      '6011111111111117',
      '3530111333300000',
      '36227206271667',
      '6200000000000005',
      '6759649826438453',
    ]) {
      expect(numbers).toContain(n);
    }
  });

  it('takes 8 digits as the BIN of numbers of 16 digits or more, else 6; last4 is the last four', () => {
    expect(bin('4111111111111111')).toBe('41111111');
    expect(bin('6205500000000000004')).toBe('62055000');
    expect(bin('378282246310005')).toBe('378282');
    expect(bin('36227206271667')).toBe('362272');
    expect(last4('378282246310005')).toBe('0005');
  });

  it('describes lengths in words', () => {
    expect(describeLengths([16])).toBe('16');
    expect(describeLengths([13, 16, 19])).toBe('13, 16 or 19');
    expect(describeLengths([15, 16])).toBe('15 or 16');
    expect(describeLengths([12, 13, 14, 15, 16, 17, 18, 19])).toBe('12 to 19');
  });

  it('has a display name and an icon for every scheme', () => {
    for (const scheme of CARD_SCHEMES) {
      expect(CARD_SCHEME_DISPLAY_NAMES[scheme].length).toBeGreaterThan(0);
      expect(cardSchemeIconPath(scheme)).toBe(`/assets/card-schemes/${scheme}.svg`);
      const svg = renderCardSchemeIcon(scheme);
      expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>.*<\/svg>\n$/s);
      expect(svg).toContain(`<title>${CARD_SCHEME_DISPLAY_NAMES[scheme]}</title>`);
      expect(svg).not.toMatch(/<script|href|on[a-z]+=/i);
    }
    expect(CARD_SCHEME_DISPLAY_NAMES.amex).toBe('American Express');
  });
});

describe('properties', () => {
  it("detects generated Luhn-valid numbers of every range and allowed length as that range's scheme", () => {
    for (const range of IIN_RANGES) {
      const lengths = numberLengths(range.scheme);
      fc.assert(
        fc.property(numberIn(range, lengths), (pan) => {
          // A longer range of another scheme inside this one takes precedence: not this range's number.
          fc.pre(
            !IIN_RANGES.some(
              (other) => other !== range && other.prefixLength > range.prefixLength && within(pan, other),
            ),
          );
          expect(validateCardNumber(pan)).toEqual({
            ok: true,
            scheme: range.scheme,
            additionalSchemes: range.additionalSchemes,
            country: range.country,
          });
          expect(detectSchemes(bin(pan))).toEqual(detectSchemes(pan));
        }),
        { numRuns: 60 },
      );
    }
  });

  it('breaks Luhn with any single-digit change', () => {
    const valid = fc
      .array(fc.integer({ min: 0, max: 9 }), { minLength: 11, maxLength: 18 })
      .map((digits) => digits.join('') + luhnCheckDigit(digits.join('')));
    fc.assert(
      fc.property(valid, fc.nat(), fc.integer({ min: 1, max: 9 }), (pan, at, shift) => {
        const i = at % pan.length;
        const changed = pan.slice(0, i) + String((Number(pan[i]) + shift) % 10) + pan.slice(i + 1);
        expect(luhnValid(pan)).toBe(true);
        expect(luhnValid(changed)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('never puts the number into a validation message', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{12,19}$/), (pan) => {
        const check = validateCardNumber(pan);
        if (!check.ok) expect(cardNumberProblem(check)).not.toContain(pan.slice(0, 6));
      }),
    );
  });
});

describe('errors', () => {
  it('refuses anything but digits', () => {
    for (const pan of [
      '4111 1111 1111 1111',
      '4111-1111-1111-1111',
      '411111111111111a',
      ' 4111111111111111',
      '４１１１',
    ]) {
      const check = validateCardNumber(pan);
      expect(check).toEqual({ ok: false, reason: 'not_digits' });
      expect(cardNumberProblem(check as never)).toBe(
        'The card number must contain only digits, without spaces or separators',
      );
    }
  });

  it('refuses a length the scheme does not allow, naming the allowed lengths', () => {
    const visa15 = '411111111111116';
    expect(validateCardNumber(visa15)).toEqual({
      ok: false,
      reason: 'length',
      scheme: 'visa',
      allowedLengths: [13, 16, 19],
    });
    expect(cardNumberProblem(validateCardNumber(visa15) as never)).toBe('Visa card numbers have 13, 16 or 19 digits');
    expect(cardNumberProblem(validateCardNumber('3782822463100055') as never)).toBe(
      'American Express card numbers have 15 digits',
    );
    expect(cardNumberProblem(validateCardNumber('99999999999') as never)).toBe('Card numbers have 12 to 19 digits');
    expect(validateCardNumber('')).toMatchObject({ ok: false, reason: 'length', scheme: 'other' });
    expect(validateCardNumber('41111111111111111111')).toMatchObject({ ok: false, reason: 'length' });
  });

  it('refuses a wrong check digit', () => {
    const check = validateCardNumber('4111111111111112');
    expect(check).toEqual({ ok: false, reason: 'luhn', scheme: 'visa' });
    expect(cardNumberProblem(check as never)).toBe(
      'The card number is not valid: its check digit does not match (Luhn)',
    );
  });

  it('Luhn: refuses empty input and non-digits; check digits are computed', () => {
    expect(luhnValid('')).toBe(false);
    expect(luhnValid('4111a11111111111')).toBe(false);
    expect(luhnCheckDigit('411111111111111')).toBe('1');
    expect(() => luhnCheckDigit('4x')).toThrow(RangeError);
  });

  it('the IIN table has no two overlapping ranges of the same prefix length', () => {
    const overlaps: string[] = [];
    for (const a of IIN_RANGES) {
      for (const b of IIN_RANGES) {
        if (a !== b && a.prefixLength === b.prefixLength && a.low <= b.high && b.low <= a.high)
          overlaps.push(`${a.scheme} ${a.low}-${a.high} / ${b.scheme} ${b.low}-${b.high}`);
      }
    }
    expect(overlaps).toEqual([]);
    for (const range of IIN_RANGES) expect(CARD_SCHEMES).toContain(range.scheme);
  });
});
