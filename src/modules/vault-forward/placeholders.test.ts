import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  fillPlaceholders,
  maskCardNumbers,
  PlaceholderError,
  placeholdersOf,
  type ForwardCard,
} from './placeholders.ts';

const visa: ForwardCard = {
  number: '4111111111111111',
  expirationDate: '07/30',
  holderName: 'Ada "The" Lovelace',
  securityCode: null,
};
const mc: ForwardCard = { number: '5555555555554444', expirationDate: '12/29', holderName: null, securityCode: '123' };

describe('fillPlaceholders', () => {
  it('replaces both forms and the finer expiry forms, by position', () => {
    const body = JSON.stringify({
      a: '{{CARD_NUMBER_1}}',
      b: '{{ CARD_NUMBER_2 }}',
      exp: '{{CARD_EXPIRATION_DATE_1}}',
      m: '{{CARD_EXPIRATION_MONTH_1}}',
      ms: '{{ CARD_EXPIRATION_MONTH_SHORT_1 }}',
      y: '{{CARD_EXPIRATION_YEAR_2}}',
      ys: '{{CARD_EXPIRATION_YEAR_SHORT_2}}',
      cvv: '{{CARD_SECURITY_CODE_2}}',
      name: '{{CARD_HOLDER_NAME_1}}',
    });
    expect(JSON.parse(fillPlaceholders(body, [visa, mc]))).toEqual({
      a: visa.number,
      b: mc.number,
      exp: '07/30',
      m: '07',
      ms: '7',
      y: '2029',
      ys: '29',
      cvv: '123',
      name: 'Ada "The" Lovelace',
    });
  });

  it('refuses unknown placeholders, indexes without a payment method, and data that is not there', () => {
    expect(() => placeholdersOf('{"x":"{{CARD_NUMBR_1}}"}', 1)).toThrow(/Unknown placeholder \{\{CARD_NUMBR_1\}\}/);
    expect(() => placeholdersOf('{"x":"{{CARD_NUMBER_2}}"}', 1)).toThrow(
      /names payment method 2, but x-vault-forward-payment-methods lists 1/,
    );
    expect(() => placeholdersOf('{"x":"{{CARD_NUMBER_0}}"}', 1)).toThrow(PlaceholderError);
    expect(() => fillPlaceholders('{"x":"{{CARD_SECURITY_CODE_1}}"}', [visa])).toThrow(
      /x-vault-forward-checkout-session/,
    );
    expect(() => fillPlaceholders('{"x":"{{CARD_HOLDER_NAME_2}}"}', [visa, mc])).toThrow(/no cardholder name/);
  });

  it('leaves a body without placeholders as it is', () => {
    expect(fillPlaceholders('{"amount": 100, "text": "{ not one }"}', [])).toBe(
      '{"amount": 100, "text": "{ not one }"}',
    );
  });
});

/**
 * The former implementation, kept as the reference for the grammar: its pattern backtracks (time
 * cubic in an unclosed `{{` followed by spaces) but agrees with the scan wherever it finishes.
 */
const FORMER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const SHAPE = /^([A-Z_]+?)_(\d{1,2})$/;
const FIELDS = [
  'CARD_NUMBER',
  'CARD_EXPIRATION_DATE',
  'CARD_EXPIRATION_MONTH',
  'CARD_EXPIRATION_MONTH_SHORT',
  'CARD_EXPIRATION_YEAR',
  'CARD_EXPIRATION_YEAR_SHORT',
  'CARD_HOLDER_NAME',
  'CARD_SECURITY_CODE',
];
function formerFill(body: string, cards: readonly ForwardCard[]): string {
  for (const [, inner] of body.matchAll(FORMER)) {
    const shape = SHAPE.exec(inner!);
    // The one intended difference: a refusal names at most 64 characters of what a placeholder holds.
    const named = inner!.length > 64 ? `${inner!.slice(0, 64)}…` : inner;
    if (!shape || !FIELDS.includes(shape[1]!)) throw new PlaceholderError(`Unknown placeholder {{${named}}}`);
    if (Number(shape[2]) < 1 || Number(shape[2]) > cards.length)
      throw new PlaceholderError(`Placeholder {{${named}}} names payment method ${Number(shape[2])}`);
  }
  return body.replace(FORMER, (_m, inner: string) => {
    const [, field, index] = SHAPE.exec(inner)!;
    return fillPlaceholders(`{{${field}_${index}}}`, cards);
  });
}
const outcome = (fill: () => string): string => {
  try {
    return `filled ${fill()}`;
  } catch (error) {
    // The former messages, less what follows the placeholder's name.
    return `refused ${(error as Error).message.replace(/^(Unknown placeholder \{\{.*?\}\}|Placeholder \{\{.*?\}\} names payment method \d+).*$/s, '$1')}`;
  }
};

describe('the placeholder grammar: "{{", no brace, "}}"; what it holds trimmed', () => {
  const cards = [visa, mc];
  it.each([
    ['a third brace before', '{{{CARD_NUMBER_1}}', `{${visa.number}`],
    ['a third brace after', '{{CARD_NUMBER_1}}}', `${visa.number}}`],
    [
      'tabs, new lines, no-break and other Unicode spaces inside',
      '{{\t\n\u00a0CARD_NUMBER_2\u2028\u3000\ufeff}}',
      mc.number,
    ],
    ['a two-digit position with a leading zero', '{{CARD_NUMBER_02}}', mc.number],
    ['one closing brace only', '{{ CARD_NUMBER_1 }', '{{ CARD_NUMBER_1 }'],
    ['no closing brace', '{{CARD_NUMBER_1', '{{CARD_NUMBER_1'],
    ['a brace inside', '{{CARD_{NUMBER}_1}}', '{{CARD_{NUMBER}_1}}'],
    ['single braces', '{CARD_NUMBER_1}', '{CARD_NUMBER_1}'],
    ['two placeholders back to back', '{{CARD_NUMBER_1}}{{ CARD_NUMBER_2 }}', `${visa.number}${mc.number}`],
    ['an unclosed one before a closed one', '{{ x {{CARD_NUMBER_1}}', `{{ x ${visa.number}`],
  ])('%s', (_name, body, filled) => {
    expect(fillPlaceholders(body, cards)).toBe(filled);
  });

  it.each([
    ['empty', '{{}}', /Unknown placeholder \{\{\}\}/],
    ['spaces only', '{{   }}', /Unknown placeholder \{\{\}\}/],
    ['a space inside the name', '{{CARD NUMBER_1}}', /Unknown placeholder \{\{CARD NUMBER_1\}\}/],
    ['lower case', '{{card_number_1}}', /Unknown placeholder/],
    ['three digits', '{{CARD_NUMBER_100}}', /Unknown placeholder \{\{CARD_NUMBER_100\}\}/],
    ['no position', '{{CARD_NUMBER}}', /Unknown placeholder/],
    ['position 0', '{{CARD_NUMBER_0}}', /names payment method 0/],
  ])('refuses %s', (_name, body, message) => {
    expect(() => fillPlaceholders(body, cards)).toThrow(message);
  });

  it('names a long unknown placeholder by its first 64 characters only', () => {
    const inner = 'A'.repeat(100_000);
    expect(() => placeholdersOf(`{{ ${inner} }}`, 1)).toThrow(/Unknown placeholder \{\{A{64}…\}\}; use/);
  });

  it('agrees with the former pattern on short bodies (where that pattern finishes quickly)', () => {
    const piece = fc.constantFrom(
      '{',
      '}',
      '{{',
      '}}',
      ' ',
      '\t',
      '\n',
      '\u00a0',
      '\u2028',
      '_',
      '1',
      '2',
      '3',
      'x',
      'A',
      '"',
      'CARD_NUMBER_1',
      'CARD_NUMBER',
      '_2',
      'CARD_EXPIRATION_YEAR_SHORT_1',
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 24 }).map((pieces) => pieces.join('')),
        (body) => {
          expect(outcome(() => fillPlaceholders(body, cards))).toBe(outcome(() => formerFill(body, cards)));
        },
      ),
      { numRuns: 5000 },
    );
  });
});

describe('maskCardNumbers', () => {
  it('masks every echo of a forwarded card number', () => {
    expect(maskCardNumbers(`got ${visa.number} and ${visa.number}`, [visa])).toBe(
      'got 411111******1111 and 411111******1111',
    );
  });

  const amex: ForwardCard = {
    number: '378282246310005',
    expirationDate: '07/30',
    holderName: null,
    securityCode: null,
  };
  it.each([
    ['spaces', '4111 1111 1111 1111', '4111 11** **** 1111'],
    ['dashes', 'card: 4111-1111-1111-1111.', 'card: 4111-11**-****-1111.'],
    ['dots', '4111.1111.1111.1111', '4111.11**.****.1111'],
    ['spaced dashes', '4111 - 1111 - 1111 - 1111', '4111 - 11** - **** - 1111'],
    ['tabs and new lines', '4111\t1111\n1111\r\n1111', '4111\t11**\n****\r\n1111'],
    ['no-break spaces', '4111\u00a01111\u202f1111\u20071111', '4111\u00a011**\u202f****\u20071111'],
    ['Unicode dashes', '4111\u20131111\u20141111\u22121111', '4111\u201311**\u2014****\u22121111'],
    [
      'UTF-8 no-break spaces read as latin1',
      '4111\u00c2\u00a01111\u00c2\u00a01111\u00c2\u00a01111',
      '4111\u00c2\u00a011**\u00c2\u00a0****\u00c2\u00a01111',
    ],
    [
      'form encoding',
      'pan=4111+1111+1111+1111&x=%204111%201111%201111%201111',
      'pan=4111+11**+****+1111&x=%204111%2011**%20****%201111',
    ],
    [
      'UTF-16 read byte by byte',
      '4\u00001\u00001\u00001\u0000 \u00001\u00001\u00001\u00001\u0000 \u00001\u00001\u00001\u00001\u0000 \u00001\u00001\u00001\u00001\u0000',
      '4\u00001\u00001\u00001\u0000 \u00001\u00001\u0000*\u0000*\u0000 \u0000*\u0000*\u0000*\u0000*\u0000 \u00001\u00001\u00001\u00001\u0000',
    ],
    ['an American Express grouping', 'amex 3782 822463 10005', 'amex 3782 82**** *0005'],
    ['glued to other digits', 'ref 99 4111111111111111 07/30', 'ref 99 411111******1111 07/30'],
  ])('in %s', (_name, text, masked) => {
    expect(maskCardNumbers(text, [visa, mc, amex])).toBe(masked);
  });

  it('leaves other numbers, and groups set apart by more than three separators, as they are', () => {
    for (const text of [
      '4000 0000 0000 0002',
      '4111 1111 1111    1111',
      '4111 1111 1111 111',
      'order 12345678901234567890',
      '',
    ]) {
      expect(maskCardNumbers(text, [visa, mc])).toBe(text);
    }
  });

  it('masks echoes that overlap, so none escapes behind another', () => {
    const repeating: ForwardCard = { ...visa, number: '4242424242424242' };
    // Found at 0 and at 2: the second's middle digits (8 to 13) reach past the first's (6 to 11).
    expect(maskCardNumbers('424242424242424242', [repeating])).toBe('424242********4242');
    expect(maskCardNumbers('42 4242424242424242', [repeating])).toBe('42 4242********4242');
  });
});
