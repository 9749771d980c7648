/**
 * The CPU one access line costs (decision 0092): BENCH_LOG_LINES lines
 * (default 200,000) through this server's logger options (src/http/logger.ts, the scrubber
 * included), each from a child logger carrying a request id as Fastify makes one per request, with
 * the access line's fields, written to stdout. Run it with stdout on a pipe, as a container
 * runtime reads it: `npm run bench:log-line | cat > /dev/null`. Printed on stderr, per line: CPU
 * (user, system) for this logger with pino's default synchronous destination, the same logger
 * without the scrubber, and this logger with pino's asynchronous destination (4 KB buffer), in
 * alternating rounds.
 */
import { randomUUID } from 'node:crypto';
import pino, { type DestinationStream, type LoggerOptions } from 'pino';
import { loggerOptions } from '../src/http/logger.ts';

const LINES = Number(process.env.BENCH_LOG_LINES ?? 200_000);
const ROUNDS = 2;
const FIELDS = {
  method: 'POST',
  route: '/transactions',
  operationId: 'createTransaction',
  status: 201,
  durationMs: 14.02,
  dbMs: 6.41,
  connectorMs: 0.35,
  merchantAccountId: 'default',
};

const ours = loggerOptions({ logLevel: 'info' }) as LoggerOptions;
// The same options less the three places the scrubber runs (object, error serializers, messages).
const { formatters: _formatters, serializers: _serializers, hooks: _hooks, ...withoutScrubber } = ours;
const variants: Record<
  string,
  () => { options: LoggerOptions; destination: DestinationStream & { flushSync(): void } }
> = {
  'this logger, synchronous': () => ({ options: ours, destination: pino.destination({ dest: 1, sync: true }) }),
  'without the scrubber': () => ({ options: withoutScrubber, destination: pino.destination({ dest: 1, sync: true }) }),
  'this logger, asynchronous (4 KB)': () => ({
    options: ours,
    destination: pino.destination({ dest: 1, sync: false, minLength: 4096 }),
  }),
};

const ids = Array.from({ length: LINES }, () => randomUUID());
for (let round = 1; round <= ROUNDS; round++) {
  for (const [name, make] of Object.entries(variants)) {
    const { options, destination } = make();
    const logger = pino(options, destination);
    const before = process.cpuUsage();
    for (let i = 0; i < LINES; i++) logger.child({ reqId: ids[i] }).info(FIELDS, 'request completed');
    destination.flushSync();
    const used = process.cpuUsage(before);
    const perLine = (micros: number) => (micros / LINES).toFixed(2);
    process.stderr.write(
      `round ${round}, ${name}: ${perLine(used.user + used.system)} µs CPU per line (user ${perLine(used.user)}, system ${perLine(used.system)})\n`,
    );
  }
}
