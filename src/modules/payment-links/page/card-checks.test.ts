import { describe, expect, it } from 'vitest';
import { cardChecks } from '../../../../test/helpers/page-card-checks.ts';

/** The page's card checks (assets/card-checks.js, the file the browser runs) with a fixed clock. */
const checks = cardChecks();
const JUNE_2026 = new Date('2026-06-15T12:00:00Z');

describe('luhnValid', () => {
  it.each([
    ['4111111111111111', true],
    ['4111111111111112', false],
    ['5555555555554444', true],
    ['378282246310005', true],
    ['6011111111111117', true],
    ['41111111111114', true],
    ['0000000000000', true],
    ['4000000000003220', true],
    ['4000000000003221', false],
    ['79927398713', true],
    ['79927398710', false],
  ])('%s → %s', (digits, valid) => {
    expect(checks.luhnValid(digits)).toBe(valid);
  });
});

describe('checkNumber', () => {
  it.each([
    ['4111111111111111', { value: '4111111111111111' }],
    ['4111 1111 1111 1111', { value: '4111111111111111' }],
    ['  3782 822463 10005 ', { value: '378282246310005' }],
    ['', { problem: 'number-required' }],
    ['   ', { problem: 'number-required' }],
    ['4111-1111-1111-1111', { value: '4111111111111111' }],
    ['4111a11111111111', { problem: 'number-format' }],
    ['４１１１', { problem: 'number-format' }],
    ['4111 1111 1111 1112', { problem: 'number-invalid' }],
    ['79927398713', { problem: 'number-invalid' }], // Luhn-valid, 11 digits: too short
    ['000000000000', { value: '000000000000' }], // 12 digits, the shortest
    ['41111111111111111119', { problem: 'number-invalid' }], // 20 digits
  ])('%j → %j', (raw, answer) => {
    expect(checks.checkNumber(raw)).toEqual(answer);
  });
});

describe('checkExpiry (the clock: 15 June 2026, UTC)', () => {
  it.each([
    ['06/26', { value: '06/26' }],
    ['0626', { value: '06/26' }],
    ['6/26', { value: '06/26' }],
    ['06 / 26', { value: '06/26' }],
    ['06/2026', { value: '06/26' }],
    ['12/40', { value: '12/40' }],
    ['01/27', { value: '01/27' }],
    ['05/26', { problem: 'expiry-past' }],
    ['12/25', { problem: 'expiry-past' }],
    ['01/20', { problem: 'expiry-past' }],
    ['00/30', { problem: 'expiry-month' }],
    ['13/30', { problem: 'expiry-month' }],
    ['1330', { problem: 'expiry-month' }],
    ['', { problem: 'expiry-required' }],
    ['1/2', { problem: 'expiry-format' }],
    ['06-26', { problem: 'expiry-format' }],
    ['06/2126', { problem: 'expiry-format' }],
    ['062026', { problem: 'expiry-format' }],
    ['ab/cd', { problem: 'expiry-format' }],
  ])('%j → %j', (raw, answer) => {
    expect(checks.checkExpiry(raw, JUNE_2026)).toEqual(answer);
  });

  it('a card is good through the last moment of its month in UTC, as the server counts it', () => {
    expect(checks.checkExpiry('06/26', new Date('2026-06-30T23:59:59.999Z'))).toEqual({ value: '06/26' });
    expect(checks.checkExpiry('06/26', new Date('2026-07-01T00:00:00.000Z'))).toEqual({ problem: 'expiry-past' });
  });
});

describe('checkCode', () => {
  it.each([
    ['123', true, { value: '123' }],
    ['1234', true, { value: '1234' }],
    [' 123 ', true, { value: '123' }],
    ['', true, { problem: 'code-required' }],
    ['', false, { value: null }],
    ['12', false, { problem: 'code-invalid' }],
    ['12345', true, { problem: 'code-invalid' }],
    ['12a', true, { problem: 'code-invalid' }],
  ])('%j (required %s) → %j', (raw, required, answer) => {
    expect(checks.checkCode(raw, required)).toEqual(answer);
  });
});

describe('checkCard', () => {
  it('flags every required field of an empty form, in the order of the fields', () => {
    expect(checks.checkCard({ stored: false, number: '', expiry: '', code: '' }, JUNE_2026)).toEqual({
      problems: [
        { field: 'card-number', problem: 'number-required' },
        { field: 'expiration-date', problem: 'expiry-required' },
        { field: 'security-code', problem: 'code-required' },
      ],
      card: null,
    });
  });

  it('answers the values to send for a good card', () => {
    expect(
      checks.checkCard({ stored: false, number: '4111 1111 1111 1111', expiry: '1230', code: '123' }, JUNE_2026),
    ).toEqual({ problems: [], card: { number: '4111111111111111', expiration_date: '12/30', security_code: '123' } });
  });

  it('with a stored card, checks only the security code, which may be left out', () => {
    expect(checks.checkCard({ stored: true, number: '', expiry: '', code: '' }, JUNE_2026)).toEqual({
      problems: [],
      card: { security_code: null },
    });
    expect(checks.checkCard({ stored: true, number: 'x', expiry: 'y', code: '12' }, JUNE_2026)).toEqual({
      problems: [{ field: 'security-code', problem: 'code-invalid' }],
      card: null,
    });
  });
});

describe('cardRefusal', () => {
  it('reads a 400 whose details point at a card field, and a 422 whose loc names one', () => {
    const luhn = {
      type: 'error',
      code: 'bad_request',
      status: 400,
      details: [{ location: 'body', pointer: '/payment_method/number', type: 'card_number_luhn' }],
    };
    expect(checks.cardRefusal(luhn)).toEqual([{ field: 'card-number', problem: 'number-invalid' }]);
    const expired = {
      details: [{ location: 'body', pointer: '/payment_method/expiration_date', type: 'card_expired' }],
    };
    expect(checks.cardRefusal(expired)).toEqual([{ field: 'expiration-date', problem: 'expiry-past' }]);
    const storedExpired = { details: [{ location: 'body', pointer: '/payment_method/id', type: 'card_expired' }] };
    expect(checks.cardRefusal(storedExpired)).toEqual([{ field: null, problem: 'expiry-past' }]);
    const schema = {
      detail: [
        { loc: ['body', 'payment_method', 'number'], type: 'string_pattern_mismatch' },
        { loc: ['body', 'payment_method', 'security_code'], type: 'string_pattern_mismatch' },
      ],
    };
    expect(checks.cardRefusal(schema)).toEqual([
      { field: 'card-number', problem: 'number-invalid' },
      { field: 'security-code', problem: 'code-invalid' },
    ]);
  });

  it('is null for an answer about something else', () => {
    for (const body of [
      null,
      {},
      { details: [{ pointer: '/payment_link_id', type: 'payment_link_not_payable' }] },
      { details: [{ pointer: '/checkout_session_id', type: 'value_error' }] },
      { detail: [{ loc: ['body', 'cardholder_name'] }] },
      { code: 'not_found' },
    ]) {
      expect(checks.cardRefusal(body)).toBeNull();
    }
  });
});
