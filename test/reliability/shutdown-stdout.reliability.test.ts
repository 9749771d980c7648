import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ROOT, SVC } from '../helpers/spawn-server.ts';
import { report } from './support/profile.ts';
import { bootstrapToken, freePort, openServerDatabase, type ServerDatabase } from './support/real-server.ts';

/**
 * Shutdown whatever stdout does (issue 51, defect 1): the server's stdout is a real pipe (a fifo)
 * that (a) nobody reads, so it fills, or (b) whose reader is gone, so writes fail with EPIPE, as
 * with `npm start | tee log` after Ctrl-C or a dead `| pino-pretty`. SIGINT and SIGTERM must end
 * the process within its drain time (1 s) plus the bounded log flush (0.5 s) plus a margin for a
 * loaded machine; a second signal must force the exit while a request still holds the shutdown.
 */
const BOUND_MS = 6_000;
/** Log lines written before the signal: far more than a pipe holds (64 KiB). */
const REQUESTS = 800;

interface Spawned {
  child: ChildProcess;
  baseUrl: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
  /** Ends the pipe's reader: further writes fail with EPIPE. */
  closeReader(): void;
}

const started: Array<{ child: ChildProcess; readerFd: number | null; db: ServerDatabase }> = [];
afterEach(async () => {
  for (const entry of started.splice(0)) {
    if (entry.child.exitCode === null && entry.child.signalCode === null) entry.child.kill('SIGKILL');
    if (entry.readerFd !== null) fs.closeSync(entry.readerFd);
    await entry.db.dispose();
  }
});
let target: Server | null = null;
afterAll(async () => new Promise<void>((resolve) => (target ? target.close(() => resolve()) : resolve())));

/** `svc serve` with stdout on a fifo whose read end the test holds and never reads. */
async function serveOnFifo(extraEnv: Record<string, string> = {}): Promise<Spawned> {
  const db = await openServerDatabase(process.env.TEST_DATABASE_URL);
  const fifo = path.join(db.env.DATA_DIR!, 'stdout.fifo');
  execFileSync('mkfifo', [fifo]);
  // Opened without blocking; the writer's open then finds a reader.
  let readerFd: number | null = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  const writerFd = fs.openSync(fifo, 'w');
  const port = await freePort();
  const child = spawn(process.execPath, [SVC, 'serve'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      LOG_LEVEL: 'info',
      PORT: String(port),
      ...db.env,
      ...extraEnv,
    },
    stdio: ['ignore', writerFd, 'pipe'],
  });
  fs.closeSync(writerFd);
  const entry: (typeof started)[number] = { child, readerFd, db };
  started.push(entry);
  let err = '';
  child.stderr!.on('data', (d) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${err}`);
    if (Date.now() > deadline) throw new Error(`server did not start: ${err}`);
    const up = await fetch(`${baseUrl}/healthz`).then(
      (res) => res.ok,
      () => false,
    );
    if (up) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    child,
    baseUrl,
    exited,
    stderr: () => err,
    closeReader() {
      fs.closeSync(readerFd!);
      readerFd = null;
      entry.readerFd = null;
    },
  };
}

/** Writes well over a pipe's worth of access-log lines; every request must still be answered. */
async function logALot(baseUrl: string): Promise<number> {
  let answered = 0;
  for (let i = 0; i < REQUESTS; i += 20) {
    const batch = Array.from({ length: 20 }, (_, j) =>
      fetch(`${baseUrl}/no-such-route-${i + j}-${'x'.repeat(100)}`).then(
        (res) => (res.body?.cancel(), 1),
        () => 0,
      ),
    );
    answered += (await Promise.all(batch)).reduce<number>((a, b) => a + b, 0);
  }
  return answered;
}

async function timeExit(
  server: Spawned,
  signal: NodeJS.Signals,
): Promise<{ ms: number; code: number | null; signal: NodeJS.Signals | null }> {
  const sent = Date.now();
  server.child.kill(signal);
  const result = await Promise.race([
    server.exited,
    new Promise<null>((resolve) => setTimeout(() => resolve(null), BOUND_MS * 3)),
  ]);
  return { ms: Date.now() - sent, code: result?.code ?? null, signal: result?.signal ?? null };
}

describe('shutdown with stdout on a pipe', () => {
  // Each server takes its start (migrations) to come up: the two signals are split between the two pipes.
  for (const [stdout, signal] of [
    ['full', 'SIGINT'],
    ['closed', 'SIGTERM'],
  ] as const) {
    it(`${signal} with stdout ${stdout === 'full' ? 'a full pipe nobody reads' : 'a pipe whose reader is gone (EPIPE)'}: exits 0 within the drain time`, async () => {
      const server = await serveOnFifo();
      if (stdout === 'closed') server.closeReader();
      const answered = await logALot(server.baseUrl);
      const exit = await timeExit(server, signal);
      report(`shutdown, stdout ${stdout}, ${signal}`, {
        exit_ms: exit.ms,
        bound_ms: BOUND_MS,
        exit_code: String(exit.code),
        answered_before: answered,
      });
      expect(answered).toBe(REQUESTS);
      expect(exit.ms).toBeLessThan(BOUND_MS);
      expect(exit).toMatchObject({ code: 0, signal: null });
      expect(server.stderr()).not.toMatch(/EPIPE|Error/);
    });
  }

  it('a second SIGTERM forces the exit while a request holds the shutdown (stdout a full pipe)', async () => {
    let held = 0;
    target = createServer((req, res) => {
      held += 1;
      req.resume();
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), 25_000).unref();
    });
    await new Promise<void>((resolve) => target!.listen(0, '127.0.0.1', resolve));
    const server = await serveOnFifo({ VAULT_FORWARD_ALLOW_PRIVATE_URLS: 'true' });
    await logALot(server.baseUrl);
    const token = await bootstrapToken(started.at(-1)!.db.env.DATA_DIR!);
    const card = await fetch(`${server.baseUrl}/payment-methods`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'card', number: '4111111111111111', expiration_date: '12/40' }),
    });
    const { id } = (await card.json()) as { id: string };
    const slow = fetch(`${server.baseUrl}/vault-forward`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'x-vault-forward-url': `http://127.0.0.1:${(target.address() as AddressInfo).port}/slow`,
        'x-vault-forward-payment-methods': id,
      },
      body: JSON.stringify({ pan: '{{CARD_NUMBER_1}}' }),
    }).catch(() => null);
    while (held < 1) await new Promise((resolve) => setTimeout(resolve, 20));
    server.child.kill('SIGTERM');
    // The first signal waits for the held request; a second one, a second later, ends it.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(server.child.exitCode).toBeNull();
    const exit = await timeExit(server, 'SIGTERM');
    await slow;
    report('shutdown, second SIGTERM, stdout full', { exit_ms: exit.ms, exit_code: String(exit.code) });
    expect(exit.ms).toBeLessThan(2_000);
    expect(exit).toMatchObject({ code: 1, signal: null });
  });
});
