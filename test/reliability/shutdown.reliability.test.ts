import { createServer, type Server } from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/spawn-server.ts';
import { runClient, type Answered, type TrafficCounts } from './support/crash-traffic.ts';
import { report } from './support/profile.ts';
import { bootstrapToken, client, openServerDatabase, type ServerDatabase } from './support/real-server.ts';

/**
 * SIGTERM under load: requests in flight finish (three vault forwards to a target that answers after
 * 2 s are the measurable ones), new connections are refused, jobs stop, and the process exits 0
 * within the documented bound (the longest handler still running + 5 s).
 */
const SLOW_TARGET_MS = 2_000;
const BOUND_MS = SLOW_TARGET_MS + 5_000;

let db: ServerDatabase;
let server: RunningServer;
let target: Server;
let targetReceived = 0;
afterAll(async () => {
  await server?.stop('SIGKILL');
  await db?.dispose();
  await new Promise((resolve) => target?.close(resolve));
});

const connects = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

describe('happy', () => {
  it('SIGTERM under load: in-flight requests finish, new connections are refused, exit 0 within the bound', async () => {
    target = createServer((req, res) => {
      targetReceived += 1;
      req.resume();
      req.on('end', () =>
        setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'), SLOW_TARGET_MS),
      );
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    db = await openServerDatabase(process.env.TEST_DATABASE_URL);
    server = await startServer({
      ...db.env,
      LOG_LEVEL: 'info',
      JOB_POLL_MS: '100',
      VAULT_FORWARD_ALLOW_PRIVATE_URLS: 'true',
    });
    const token = await bootstrapToken(db.env.DATA_DIR!);
    const call = client(() => server.baseUrl, token);
    const service = await call('POST', '/payment-services', {
      display_name: 'Mock card',
      payment_service_definition_id: 'mock-card',
      fields: [{ key: 'merchant_id', value: 'm-1' }],
      accepted_currencies: ['USD'],
      accepted_countries: ['US'],
    });
    expect(service.status).toBe(201);
    const card = await call('POST', '/payment-methods', {
      method: 'card',
      number: '4111111111111111',
      expiration_date: '12/40',
    });

    const answered: Answered[] = [];
    const counts: TrafficCounts = { sent: 0, answered: 0, unanswered: 0, refused: {}, serverErrors: [] };
    let stop = false;
    const load = [1, 2, 3].map(() =>
      runClient(
        { baseUrl: () => server.baseUrl, token, merchantAccountId: 'default', paymentServiceId: service.json.id },
        answered,
        counts,
        () => stop,
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const forwardTo = `http://127.0.0.1:${(target.address() as AddressInfo).port}/slow`;
    const slow = [1, 2, 3].map(() =>
      fetch(`${server.baseUrl}/vault-forward`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'x-vault-forward-url': forwardTo,
          'x-vault-forward-payment-methods': card.json.id,
        },
        body: JSON.stringify({ pan: '{{CARD_NUMBER_1}}' }),
      }).then(
        (res) => res.status,
        (error: Error) => error.message,
      ),
    );
    // In flight for certain: the target holds all three (the server is waiting on it).
    while (targetReceived < 3) await new Promise((resolve) => setTimeout(resolve, 20));
    const port = Number(new URL(server.baseUrl).port);
    const signalled = Date.now();
    const exited = server.stop('SIGTERM');
    while (!server.output().includes('shutting down')) await new Promise((resolve) => setTimeout(resolve, 20));
    const acceptsNew = await connects(port);
    stop = true;
    const code = await exited;
    const tookMs = Date.now() - signalled;
    const slowStatuses = await Promise.all(slow);
    await Promise.all(load);

    if (process.env.SHUTDOWN_LOG) (await import('node:fs')).writeFileSync(process.env.SHUTDOWN_LOG, server.output());
    const errorLines = server
      .output()
      .split('\n')
      .filter((line) => /"level":(50|60)/.test(line));
    report('graceful shutdown', {
      exit_code: String(code),
      exit_ms: tookMs,
      bound_ms: BOUND_MS,
      in_flight_finished: slowStatuses.filter((s) => s === 200).length,
      accepted_new_after_sigterm: String(acceptsNew),
      load_answered: counts.answered,
      server_errors: counts.serverErrors.length,
    });
    expect(slowStatuses).toEqual([200, 200, 200]);
    expect(acceptsNew).toBe(false);
    expect(code).toBe(0);
    expect(tookMs).toBeLessThan(BOUND_MS);
    expect(server.output()).toContain('shutdown complete');
    expect(errorLines).toEqual([]);
    expect(counts.serverErrors).toEqual([]);
    expect(counts.answered).toBeGreaterThan(0);
  });
});
