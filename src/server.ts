import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { buildApp } from './app.ts';
import { bootstrap } from './bootstrap.ts';
import type { Config } from './config.ts';
import { createRuntime } from './deps.ts';
import { loggerOptions } from './http/logger.ts';
import { warnOfSandboxPaymentServices } from './modules/payment-services/payment-services.service.ts';

const SVC_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'svc.mjs');

/**
 * How long the connections open at SIGTERM are kept (http/drain.ts): a request a client sent just
 * before the signal is read and answered within it, even on a busy event loop. A connection that
 * sends nothing meanwhile is then closed as idle.
 */
const DRAIN_GRACE_MS = 1_000;

/** The HTTP process: config → dependencies → app → listen, and a graceful close on SIGTERM/SIGINT. */
export async function serve(config: Config): Promise<void> {
  const log = pino(loggerOptions(config) as pino.LoggerOptions);
  // A server answers requests that open card data: it must be able to open the database's data keys.
  const runtime = await createRuntime(config, { log, checkKeyring: true });
  const boot = await bootstrap(runtime.deps);
  await warnOfSandboxPaymentServices(runtime.deps, log);
  const app = await buildApp(runtime.deps);
  if (config.runWorker) runtime.deps.queue.start(runtime.deps);
  await app.listen({ port: config.port, host: config.host });

  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const baseUrl = config.publicUrl.replace(`:${config.port}`, `:${port}`);
  printBanner(baseUrl, config, boot.keyFile, boot.created);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) {
      log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    closing = true;
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
      if (!(await app.inFlight.drained(35_000))) log.warn({ handlers: app.inFlight.count }, 'closing with handlers still running');
      await runtime.close();
      log.info('shutdown complete');
      process.exit(0);
    } catch (error) {
      log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

function printBanner(baseUrl: string, config: Config, keyFile: string, created: boolean): void {
  const keyExists = fs.existsSync(keyFile);
  const lines = [
    '',
    `svc payments server listening on ${baseUrl}`,
    `  environment: ${config.environment}   database: ${config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${path.join(config.dataDir, 'pgdata')}`}`,
    keyExists
      ? `  bootstrap private key: ${keyFile}${created ? ' (created now; keep it safe, it has full access)' : ''}`
      : `  bootstrap private key: ${keyFile} is not on this machine (another process created it)`,
    `  API reference: ${baseUrl}/docs   OpenAPI: ${baseUrl}/openapi.json`,
  ];
  if (keyExists) {
    lines.push(
      '',
      'Try it:',
      `  curl -s ${baseUrl}/merchant-accounts -H "Authorization: Bearer $(node ${SVC_BIN} token --key ${keyFile})"`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);
}
