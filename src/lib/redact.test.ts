import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { luhnValid } from './card-schemes.ts';
import { DEPTH_LIMIT, scrub, scrubString } from './redact.ts';

describe('happy', () => {
  it('masks Luhn-valid card numbers in text, keeping the last four digits', () => {
    expect(scrubString('card 4111111111111111 declined')).toBe('card [CARD ************1111] declined');
    expect(scrubString('amex 3782-822463-10005')).toBe('amex [CARD ***********0005]');
    expect(scrubString('order 1234567890 total')).toBe('order 1234567890 total');
  });

  it('redacts values under sensitive keys at any depth', () => {
    const out = scrub({
      headers: { authorization: 'Bearer x', 'x-request-id': 'r' },
      body: {
        payment_method: { number: '4111111111111111', security_code: '123', expiration_date: '12/30' },
        password: 'p',
        secret: 's',
      },
    });
    expect(out).toEqual({
      headers: { authorization: '[REDACTED]', 'x-request-id': 'r' },
      body: {
        payment_method: { number: '[REDACTED]', security_code: '[REDACTED]', expiration_date: '12/30' },
        password: '[REDACTED]',
        secret: '[REDACTED]',
      },
    });
  });

  it("redacts the vault's keys and the Vault token under their keys (issue 56)", () => {
    const out = scrub({
      headers: { 'X-Vault-Token': 'hvs.abc', 'content-type': 'application/json' },
      vault_token: 'hvs.def',
      master_key: 'k1',
      previous_master_key: 'k2',
      data_key: 'k3',
      unwrapped_data_key: 'k4',
      master_key_id: 'aws-kms:arn:aws:kms:eu-west-1:1:key/x',
    });
    expect(out).toEqual({
      headers: { 'X-Vault-Token': '[REDACTED]', 'content-type': 'application/json' },
      vault_token: '[REDACTED]',
      master_key: '[REDACTED]',
      previous_master_key: '[REDACTED]',
      data_key: '[REDACTED]',
      unwrapped_data_key: '[REDACTED]',
      master_key_id: 'aws-kms:arn:aws:kms:eu-west-1:1:key/x',
    });
  });

  it('redacts the secrets of wallet payloads and sessions (Paze) under their keys', () => {
    const out = scrub({
      token: { paymentToken: '4895370012003478' },
      dynamicData: [{ dynamicDataValue: 'AgAA', dynamicDataType: 'T' }],
      accessToken: 'a',
      checkout_token: 'c',
      completeResponse: 'x.y.z',
      securePayload: 'j',
    });
    expect(out).toEqual({
      token: '[REDACTED]',
      dynamicData: [{ dynamicDataValue: '[REDACTED]', dynamicDataType: 'T' }],
      accessToken: '[REDACTED]',
      checkout_token: '[REDACTED]',
      completeResponse: '[REDACTED]',
      securePayload: '[REDACTED]',
    });
    expect(scrub({ paymentToken: '4895370012003478' })).toEqual({ paymentToken: '[REDACTED]' });
    // Payment-service credential names of the connectors (Stripe, dLocal, Checkout.com, Adyen), and Riskified's.
    expect(
      scrub({
        secret_key: 's',
        x_trans_key: 't',
        webhook_signature_key: 'w',
        hmac_key: 'h',
        merchant_id: 'm',
        auth_token: 'a',
      }),
    ).toEqual({
      auth_token: '[REDACTED]',
      secret_key: '[REDACTED]',
      x_trans_key: '[REDACTED]',
      webhook_signature_key: '[REDACTED]',
      hmac_key: '[REDACTED]',
      merchant_id: 'm',
    });
    // A merchant account's secrets, but not the key ids beside them.
    expect(
      scrub({
        loon_secret_key: 's',
        account_updater_request_encryption_key: 'k',
        account_updater_response_decryption_key: 'k',
        account_updater_request_encryption_key_id: 'kid-1',
      }),
    ).toEqual({
      loon_secret_key: '[REDACTED]',
      account_updater_request_encryption_key: '[REDACTED]',
      account_updater_response_decryption_key: '[REDACTED]',
      account_updater_request_encryption_key_id: 'kid-1',
    });
  });

  it('redacts tokens and private keys inside text', () => {
    expect(scrubString('token eyJhbGciOiJFUzUxMiJ9.eyJzY29wZXMiOltdfQ.abcdefgh end')).toBe(
      'token [REDACTED TOKEN] end',
    );
    expect(scrubString('-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----')).toBe('[REDACTED PRIVATE KEY]');
    expect(scrubString('signed with whsec_AbC-12_xyzXYZ0123456789abcdefABCDEF0123456789 ok')).toBe(
      'signed with whsec_[REDACTED] ok',
    );
    expect(scrubString('masked whsec_…wxyz stays')).toBe('masked whsec_…wxyz stays');
  });

  it('scrubs errors, keeping their message and stack', () => {
    const out = scrub(new Error('bad card 5555555555554444')) as { message: string; stack: string };
    expect(out.message).toBe('bad card [CARD ************4444]');
    expect(out.stack).not.toContain('5555555555554444');
  });
});

describe('security', () => {
  it('replaces what lies deeper than its depth limit with a marker, never returning it unscrubbed', () => {
    let deep: Record<string, unknown> = { note: 'card 4111111111111111', number: '5555555555554444' };
    for (let level = 0; level < 20; level++) deep = { level, inner: deep };
    const text = JSON.stringify(scrub({ body: deep, list: [[[[[[[[[[[{ pan: '4012888888881881' }]]]]]]]]]]] }));
    expect(text).not.toContain('4111111111111111');
    expect(text).not.toContain('5555555555554444');
    expect(text).not.toContain('4012888888881881');
    expect(text).toContain(DEPTH_LIMIT);
    // Shallow objects are untouched by the limit, and a cycle ends at the marker instead of looping.
    expect(scrub({ a: { b: 1 } })).toEqual({ a: { b: 1 } });
    const cycle: Record<string, unknown> = { name: 'loop' };
    cycle.self = cycle;
    expect(JSON.stringify(scrub(cycle))).toContain(DEPTH_LIMIT);
  });

  it('masks a digit run exactly when one of its windows of 12 to 19 digits passes Luhn (property)', () => {
    const windowPasses = (digits: string) => {
      for (let length = 12; length <= 19; length++)
        for (let start = 0; start + length <= digits.length; start++)
          if (luhnValid(digits.slice(start, start + length))) return true;
      return false;
    };
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 12, maxLength: 40 }), (list) => {
        const digits = list.join('');
        expect(scrubString(`x ${digits} y`) !== `x ${digits} y`).toBe(windowPasses(digits));
      }),
      { numRuns: 2000 },
    );
  });

  it('redacts tokens exactly as the pattern eyJ…\\.….\\.… did, glued or not (property)', () => {
    const JWT = /eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;
    const piece = fc.constantFrom('eyJ', 'a', 'ab', 'abcd', 'abcde', 'abcdef', '.', '-', '_', ' ', 'x.y', 'eyJhbGciOi');
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 16 }).map((p) => p.join('')),
        (text) => {
          expect(scrubString(text)).toBe(text.replace(JWT, '[REDACTED TOKEN]'));
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('masks a private key to the end of the text when its END line is missing', () => {
    expect(scrubString('key -----BEGIN EC PRIVATE KEY-----\nMHcCAQEE')).toBe('key [REDACTED PRIVATE KEY]');
    expect(
      scrubString('a -----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY----- b -----BEGIN RSA PRIVATE KEY----- c'),
    ).toBe('a [REDACTED PRIVATE KEY] b [REDACTED PRIVATE KEY]');
  });

  it('never lets a Luhn-valid 13..19 digit number through (property)', () => {
    const pan = fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 12, maxLength: 18 }).map((digits) => {
      const body = digits.join('');
      for (let check = 0; check <= 9; check++) if (luhnValid(body + check)) return body + check;
      return `${body}0`;
    });
    fc.assert(
      fc.property(pan, fc.string(), (number, text) => !scrubString(`${text} ${number} ${text}`).includes(number)),
    );
  });
});
