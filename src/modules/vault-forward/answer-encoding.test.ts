import { brotliCompressSync, deflateRawSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodedAnswer, UndecodableAnswer } from './answer-encoding.ts';

const text = Buffer.from('4111 1111 1111 1111');

describe('decodedAnswer', () => {
  it('leaves an answer without codings alone', () => {
    for (const header of [undefined, '', 'identity', ' Identity '])
      expect(decodedAnswer(header, text, 1024)).toBeNull();
  });

  it('undoes the codings last first, in any case, and raw deflate streams', () => {
    expect(decodedAnswer('gzip, br', brotliCompressSync(gzipSync(text)), 1024)).toEqual(text);
    expect(decodedAnswer('identity, GZip', gzipSync(text), 1024)).toEqual(text);
    expect(decodedAnswer('deflate', deflateRawSync(text), 1024)).toEqual(text);
  });

  it('refuses unknown codings, chains of more than two, corrupt data and answers over the bound', () => {
    expect(() => decodedAnswer('zstd', text, 1024)).toThrow(UndecodableAnswer);
    expect(() => decodedAnswer('gzip, gzip, gzip', gzipSync(gzipSync(gzipSync(text))), 1024)).toThrow(
      /content-encoding "gzip, gzip, gzip"/,
    );
    expect(() => decodedAnswer('br', text, 1024)).toThrow(/not valid br data/);
    expect(() => decodedAnswer('gzip', gzipSync(Buffer.alloc(2048)), 1024)).toThrow(
      /exceeds 1024 bytes once decoded \(gzip\)/,
    );
    expect(() => decodedAnswer('deflate', deflateRawSync(Buffer.alloc(2048)), 1024)).toThrow(/exceeds 1024 bytes/);
  });
});
