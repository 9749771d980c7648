import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fromBase64url, toBase64url } from '../../console/src/webauthn.ts';

describe('happy', () => {
  it("encodes and decodes base64url as Node does, every length's padding included", () => {
    for (let length = 0; length < 40; length++) {
      const bytes = randomBytes(length);
      const text = toBase64url(bytes);
      expect(text).toBe(bytes.toString('base64url'));
      expect(Buffer.from(fromBase64url(text))).toEqual(bytes);
    }
    expect(toBase64url(new Uint8Array([0xfb, 0xff, 0xfe]).buffer)).toBe('-__-');
  });
});
