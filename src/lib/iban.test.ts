import { describe, expect, it } from 'vitest';
import { normalizedIban } from './iban.ts';

describe('normalizedIban', () => {
  it('accepts valid IBANs, with or without spaces, in any case', () => {
    expect(normalizedIban('DE89 3704 0044 0532 0130 00')).toBe('DE89370400440532013000');
    expect(normalizedIban('nl91abna0417164300')).toBe('NL91ABNA0417164300');
    expect(normalizedIban('GB29 NWBK 6016 1331 9268 19')).toBe('GB29NWBK60161331926819');
  });

  it('refuses a wrong check digit, a bad shape, other characters and bad lengths', () => {
    expect(normalizedIban('DE88 3704 0044 0532 0130 00')).toBeNull();
    expect(normalizedIban('1289 3704 0044 0532 0130 00')).toBeNull();
    expect(normalizedIban('DE89-3704-0044-0532-0130-00')).toBeNull();
    expect(normalizedIban('DE89 3704')).toBeNull();
    expect(normalizedIban('')).toBeNull();
  });
});
