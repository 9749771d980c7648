import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pemBlocks } from './authentication-fields.ts';

describe('pemBlocks', () => {
  it('finds what the former pattern found, each block from a BEGIN line to the first END line after it (property)', () => {
    const FORMER = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;
    const piece = fc.constantFrom(
      '-----BEGIN CERTIFICATE-----',
      '-----END CERTIFICATE-----',
      '\n',
      'MIIB',
      '-',
      '-----',
      'x',
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 12 }).map((p) => p.join('')),
        (text) => {
          expect(pemBlocks(text)).toEqual(text.match(FORMER) ?? []);
        },
      ),
      { numRuns: 5000 },
    );
  });
});
