import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../../test/helpers/build-test-app.ts';
import { runScopeTests } from '../../../../test/helpers/scope-tests.ts';
import { mintToken } from '../../../cli/token.ts';
import { bin, TEST_CARDS } from '../../../lib/card-schemes.ts';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t.close());

const lookup = (value: string) => ({ method: 'GET' as const, url: `/card-details?bin=${encodeURIComponent(value)}` });

describe('happy', () => {
  it('answers the card detail of an 8-digit BIN', async () => {
    const res = await t.request(lookup('41111111'));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      type: 'card-detail',
      id: '41111111',
      scheme: 'visa',
      additional_schemes: [],
      scheme_icon_url: `${t.config.publicUrl}/assets/card-schemes/visa.svg`,
      card_type: null,
      country: null,
      number_lengths: [13, 16, 19],
    });
  });

  it('answers 6-digit BINs, co-badged ranges and domestic schemes', async () => {
    expect((await t.request(lookup('378282'))).json()).toMatchObject({
      id: '378282',
      scheme: 'amex',
      number_lengths: [15],
    });
    expect((await t.request(lookup('6221260'))).json()).toMatchObject({
      scheme: 'unionpay',
      additional_schemes: ['discover'],
    });
    expect((await t.request(lookup('50669911'))).json()).toMatchObject({ scheme: 'elo', country: 'BR' });
    expect((await t.request(lookup('45710000'))).json()).toMatchObject({
      scheme: 'visa',
      additional_schemes: ['dankort'],
      country: 'DK',
    });
  });

  it('answers `other` for a BIN no range covers', async () => {
    expect((await t.request(lookup('99999999'))).json()).toMatchObject({
      scheme: 'other',
      scheme_icon_url: `${t.config.publicUrl}/assets/card-schemes/other.svg`,
      number_lengths: [12, 13, 14, 15, 16, 17, 18, 19],
    });
  });

  it('detects the scheme of every sandbox test card from its BIN', async () => {
    for (const card of TEST_CARDS) {
      const res = await t.request(lookup(bin(card.number)));
      expect(res.json(), card.number).toMatchObject({
        id: bin(card.number),
        scheme: card.scheme,
        additional_schemes: card.additionalSchemes ?? [],
      });
    }
  });
});

describe('errors', () => {
  it('refuses a full card number with 400, saying to send only the BIN, without repeating it', async () => {
    for (const pan of ['4111111111111111', '4111 1111 1111 1111', '4111-1111-1111-1111', '411111111']) {
      const res = await t.request(lookup(pan));
      expect(res.statusCode, pan).toBe(400);
      const message = 'Send only the BIN, the first 6 to 8 digits of the card number, never the full card number';
      expect(res.json()).toEqual({
        type: 'error',
        code: 'bad_request',
        status: 400,
        message,
        details: [{ location: 'query', pointer: '/bin', message, type: 'bin_too_long' }],
      });
      expect(res.body).not.toContain('41111111');
    }
  });

  it('refuses a BIN that is too short or not digits', async () => {
    const short = await t.request(lookup('41111'));
    expect(short.statusCode).toBe(400);
    expect(short.json()).toMatchObject({
      message: 'The BIN must have 6 to 8 digits',
      details: [{ pointer: '/bin', type: 'bin_too_short' }],
    });
    const letters = await t.request(lookup('4111abcd'));
    expect(letters.statusCode).toBe(400);
    expect(letters.json()).toMatchObject({
      message: 'The BIN must contain only digits',
      details: [{ pointer: '/bin', type: 'bin_not_digits' }],
    });
  });

  it('answers 422 without bin, with an empty or an overlong one', async () => {
    const missing = await t.request({ method: 'GET', url: '/card-details' });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().detail).toEqual([{ loc: ['query', 'bin'], msg: 'Field required', type: 'missing' }]);
    expect((await t.request(lookup(''))).statusCode).toBe(422);
    const long = await t.request(lookup('4'.repeat(65)));
    expect(long.statusCode).toBe(422);
    expect(long.body).not.toContain('4444444444');
  });
});

describe('security', () => {
  runScopeTests(() => t, { request: () => lookup('41111111'), scope: 'payment-methods.read' });

  it('is open to embed tokens (a checkout front end looks up the BIN as the buyer types)', async () => {
    const token = await mintToken({ privateKeyPem: t.keys.privateKeyPem, scopes: ['embed'], lifetimeSeconds: 3600 });
    expect((await t.request({ ...lookup('55555555'), token })).json()).toMatchObject({ scheme: 'mastercard' });
  });

  it('never writes a card number sent as the BIN to the log, Luhn-valid or not', async () => {
    const before = t.logs.length;
    const pans = ['4111111111111111', '4111111111111112', '5555 5555 5555 4444', '6011000990139424', '378282246310005'];
    for (const pan of pans) expect((await t.request(lookup(pan))).statusCode).toBe(400);
    // The same numbers in a path no route matches (a client guessing `/card-details/{bin}`).
    for (const pan of pans)
      expect((await t.request({ method: 'GET', url: `/card-details/${encodeURIComponent(pan)}` })).statusCode).toBe(
        404,
      );
    const written = t.logs.slice(before);
    expect(written.filter((line) => line.includes('"operationId":"getCardDetails"')).length).toBe(pans.length);
    expect(written.length).toBeGreaterThanOrEqual(2 * pans.length);
    const text = written.join('\n');
    for (const pan of pans) {
      const digits = pan.replace(/\D/g, '');
      expect(text).not.toContain(digits);
      expect(text).not.toContain(pan);
      expect(text).not.toContain(encodeURIComponent(pan));
      expect(text).not.toContain(digits.slice(0, 12));
    }
  });
});
