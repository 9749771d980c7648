import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loggerOptions } from './logger.ts';

/** A logger built like the server's, writing its lines into an array. */
function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const log = pino(loggerOptions({ logLevel: 'info' }) as pino.LoggerOptions, stream);
  return { log, lines };
}

describe('security', () => {
  it('writes no card number nested 20 levels deep in a logged object: the depth limit leaves a marker', () => {
    const { log, lines } = capture();
    let deep: Record<string, unknown> = { detail: 'paid with 4111111111111111' };
    for (let level = 0; level < 20; level++) deep = { inner: deep };
    log.info({ provider: deep }, 'provider answer');
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('4111111111111111');
    expect(lines[0]).toContain('[depth limit]');
    expect(JSON.parse(lines[0]!)).toMatchObject({
      msg: 'provider answer',
      provider: { inner: { inner: expect.any(Object) } },
    });
  });
});
