import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { buildApp } from './app.ts';
import { bootstrap } from './bootstrap.ts';
import { ConfigError, type Config } from './config.ts';
import { createRuntime } from './deps.ts';
import { loggerOptions } from './http/logger.ts';
import { warnOfSandboxPaymentServices } from './modules/payment-services/payment-services.service.ts';
import { localUrl, productionPublicUrlProblem } from './http/public-url.ts';
import { LogDestination } from './observability/log-destination.ts';
import { inBackground } from './db/session-lanes.ts';

const SVC_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'svc.mjs');

/**
 * How long the connections open at SIGTERM are kept (http/drain.ts): a request a client sent just
 * before the signal is read and answered within it, even on a busy event loop. A connection that
 * sends nothing meanwhile is then closed as idle.
 */
const DRAIN_GRACE_MS = 1_000;

/** How long a handler whose client went away may still run to record its outcome (connector calls are bounded at 30 s). */
const HANDLER_GRACE_MS = 35_000;

/** How long the last log lines may take to leave at exit: a stdout nobody reads holds no exit. */
const LOG_FLUSH_MS = 500;

/**
 * The whole shutdown's bound: past it the process exits whatever is still waiting (a database
 * that does not close, a stuck handler). Nothing on stdout counts against it (LogDestination).
 */
const SHUTDOWN_BOUND_MS = DRAIN_GRACE_MS + HANDLER_GRACE_MS + 5_000;

/**
 * A signal repeated within this time is the same request: Ctrl-C under `npm start` reaches the
 * process twice, from the terminal and forwarded by npm. A later one forces the exit.
 */
const REPEAT_WINDOW_MS = 500;

/** The HTTP process: config → dependencies → app → listen, and a graceful close on SIGTERM/SIGINT. */
export async function serve(config: Config): Promise<void> {
  const noPublicUrl = productionPublicUrlProblem(config.environment, config.publicUrlSet);
  if (noPublicUrl) throw new ConfigError('PUBLIC_URL', noPublicUrl);
  // Said at once, not after the migrations and the database are up.
  await checkPortFree(config.host, config.port);
  const stdout = new LogDestination();
  const log = pino(loggerOptions(config) as pino.LoggerOptions, stdout);
  // A server answers requests that open card data: it must be able to open the database's data keys.
  const runtime = await createRuntime(config, { log, checkKeyring: true });
  const boot = await bootstrap(runtime.deps);
  await warnOfSandboxPaymentServices(runtime.deps, log);
  const app = await buildApp(runtime.deps, { logStream: stdout });
  // Its polls and jobs wait behind requests for PGlite's one session (src/db/session-lanes.ts).
  if (config.runWorker) inBackground(() => runtime.deps.queue.start(runtime.deps));
  await app.listen({ port: config.port, host: config.host });

  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  // Where this machine reaches it (an unspecified HOST shown as loopback), whatever PUBLIC_URL says.
  const baseUrl = localUrl(config.host, port);
  printBanner(stdout, baseUrl, config, boot.keyFile, boot.created, runtime.deps.keyring.describe());

  let closingSince: number | null = null;
  const exit = async (code: number) => {
    if (!(await stdout.flush(LOG_FLUSH_MS))) stdout.abandon();
    process.exit(code);
  };
  const shutdown = async (signal: string) => {
    if (closingSince !== null) {
      if (Date.now() - closingSince < REPEAT_WINDOW_MS) return;
      log.warn({ signal }, 'second signal: exiting now');
      stdout.abandon();
      process.exit(1);
    }
    closingSince = Date.now();
    setTimeout(() => {
      log.error({ boundMs: SHUTDOWN_BOUND_MS }, 'shutdown did not finish within its bound: exiting now');
      stdout.abandon();
      process.exit(1);
    }, SHUTDOWN_BOUND_MS).unref();
    const drained = app.drain.begin(DRAIN_GRACE_MS);
    log.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
    try {
      await drained;
      // close() ends the connections idle at that moment. Every answer since the signal closed its
      // connection; one whose headers left before it would stay open for the keep-alive timeout
      // (72 s) and hold the exit that long: each is closed as soon as it goes idle.
      const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
      await app.close();
      clearInterval(sweep);
      // A handler whose client went away is not waited for by close(): let it record its outcome
      // (connector calls are bounded at 30 s) before the database goes.
      if (!(await app.inFlight.drained(HANDLER_GRACE_MS)))
        log.warn({ handlers: app.inFlight.count }, 'closing with handlers still running');
      await runtime.close();
      log.info({ ...(stdout.dropped ? { droppedLogLines: stdout.dropped } : {}) }, 'shutdown complete');
      await exit(0);
    } catch (error) {
      log.error({ err: error }, 'shutdown failed');
      await exit(1);
    }
  };
  // Listeners stay installed: a second signal reaches shutdown() and forces the exit.
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/** Throws a one-line explanation when HOST:PORT cannot be listened on (in use, not allowed). */
async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE')
        reject(
          new Error(
            `port ${port} on ${host} is already in use (another svc serve?): stop that process, or choose another port, e.g. PORT=${port + 1}, or PORT=0 for any free one`,
          ),
        );
      else if (error.code === 'EACCES')
        reject(
          new Error(
            `port ${port} on ${host} needs privileges this process lacks: use a port above 1023, e.g. PORT=8080, or PORT=0 for any free one`,
          ),
        );
      else if (error.code === 'EADDRNOTAVAIL')
        reject(
          new Error(
            `HOST=${host} is not an address of this machine: use 127.0.0.1, 0.0.0.0 (every interface) or one of its own addresses`,
          ),
        );
      else reject(error);
    });
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

function printBanner(
  stdout: LogDestination,
  baseUrl: string,
  config: Config,
  keyFile: string,
  created: boolean,
  masterKey: string,
): void {
  const keyExists = fs.existsSync(keyFile);
  const lines = [
    '',
    `svc payments server listening on ${baseUrl}`,
    `  environment: ${config.environment}   database: ${config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${path.join(config.dataDir, 'pgdata')}`}`,
    // Its provider and id only: never the key.
    `  vault master key: ${masterKey}`,
    keyExists
      ? `  bootstrap private key: ${keyFile}${created ? ' (created now; keep it safe, it has full access)' : ''}`
      : `  bootstrap private key: ${keyFile} is not on this machine (another process created it)`,
    `  API reference: ${baseUrl}/docs   OpenAPI: ${baseUrl}/openapi.json`,
    `  dashboard: ${baseUrl}/dashboard/   first administrator: svc users create --email ... --role administrator`,
    config.publicUrlSet
      ? `  public URL (PUBLIC_URL, in links it hands out): ${config.publicUrl}`
      : `  links it hands out start with ${config.publicUrl}: set PUBLIC_URL to the address others reach it at`,
  ];
  if (keyExists) {
    lines.push(
      '',
      'Try it:',
      `  curl -s ${baseUrl}/merchant-accounts -H "Authorization: Bearer $(node ${SVC_BIN} token --key ${keyFile})"`,
    );
  }
  stdout.write(`${lines.join('\n')}\n\n`);
}
