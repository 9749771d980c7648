import type { FastifyServerOptions } from 'fastify';
import type { DestinationStream } from 'pino';
import type { Config } from '../config.ts';
import { scrub, scrubString } from '../lib/redact.ts';

/**
 * pino options for Fastify. Every log object and message passes through the scrubber, so a card
 * number, token, secret or password never reaches a log line, whichever code logged it.
 */
export function loggerOptions(
  config: Pick<Config, 'logLevel'>,
  stream?: DestinationStream,
): FastifyServerOptions['logger'] {
  return {
    level: config.logLevel,
    ...(stream ? { stream } : {}),
    base: { pid: process.pid },
    formatters: {
      log: (object: Record<string, unknown>) => scrub(object) as Record<string, unknown>,
    },
    serializers: {
      err: (error: Error) => scrub(error) as Record<string, unknown>,
      error: (error: Error) => scrub(error) as Record<string, unknown>,
    },
    hooks: {
      logMethod(this: unknown, args: unknown[], method: (...a: unknown[]) => void) {
        const scrubbed = args.map((arg) => (typeof arg === 'string' ? scrubString(arg) : arg));
        return method.apply(this, scrubbed);
      },
    },
  } as unknown as FastifyServerOptions['logger'];
}
