import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/spawn-server.ts';
import { report } from './support/profile.ts';
import { openServerDatabase, type ServerDatabase } from './support/real-server.ts';

/**
 * SIGTERM and keep-alive connections (docs/reliability.md, "Graceful shutdown"): a request sent on an
 * already-open connection just before or at the signal is answered, or refused with 503 and
 * `connection: close`; the server never resets a connection that carries a request, and closes
 * the others only after an answer that said `connection: close`.
 */
let db: ServerDatabase;
let server: RunningServer;
afterAll(async () => {
  await server?.stop('SIGKILL');
  await db?.dispose();
});

type Outcome = { kind: 'answered'; status: number; close: boolean } | { kind: 'failed'; error: string };

/** One HTTP/1.1 keep-alive connection spoken by hand, so nothing retries or hides a reset. */
class Connection {
  private buffer = Buffer.alloc(0);
  private waiting: ((outcome: Outcome) => void) | null = null;
  private ended: string | null = null;
  readonly socket: net.Socket;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.on('data', (chunk) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.deliver();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => this.end(error.code ?? error.message));
    socket.on('close', () => this.end('closed before an answer'));
  }

  static open(port: number): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(new Connection(socket)));
      socket.once('error', reject);
    });
  }

  /** Writes a request now; the promise settles with its answer or with what ended the connection. */
  send(path = '/healthz'): Promise<Outcome> {
    if (this.ended) return Promise.resolve({ kind: 'failed', error: `already ${this.ended}` });
    const answer = new Promise<Outcome>((resolve) => (this.waiting = resolve));
    this.socket.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: keep-alive\r\n\r\n`);
    return answer;
  }

  private deliver(): void {
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end < 0 || !this.waiting) return;
    const head = this.buffer.subarray(0, end).toString('latin1').split('\r\n');
    const headers = new Map(
      head
        .slice(1)
        .map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    const length = Number(headers.get('content-length') ?? 0);
    if (this.buffer.length < end + 4 + length) return;
    this.buffer = this.buffer.subarray(end + 4 + length);
    const resolve = this.waiting;
    this.waiting = null;
    resolve({
      kind: 'answered',
      status: Number(head[0]!.split(' ')[1]),
      close: /\bclose\b/i.test(headers.get('connection') ?? ''),
    });
  }

  private end(reason: string): void {
    this.ended ??= reason;
    const resolve = this.waiting;
    this.waiting = null;
    resolve?.({ kind: 'failed', error: reason });
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('happy', () => {
  it('answers every request sent on an open keep-alive connection just before or at SIGTERM, and resets none', async () => {
    db = await openServerDatabase(process.env.TEST_DATABASE_URL);
    server = await startServer({ ...db.env, LOG_LEVEL: 'info' });
    const port = Number(new URL(server.baseUrl).port);

    // Idle keep-alive connections, each already used once (as a load balancer's pool holds them).
    const idle = await Promise.all(Array.from({ length: 60 }, () => Connection.open(port)));
    for (const connection of idle)
      expect(await connection.send()).toMatchObject({ kind: 'answered', status: 200, close: false });
    // Clients sending request after request on their connection until an answer says close.
    const busy = await Promise.all(Array.from({ length: 10 }, () => Connection.open(port)));
    const busyOutcomes: Outcome[] = [];
    const loops = busy.map(async (connection) => {
      for (;;) {
        const outcome = await connection.send('/readyz');
        busyOutcomes.push(outcome);
        if (outcome.kind === 'failed' || outcome.close) return;
      }
    });
    await sleep(300);

    // Half the idle connections send over the 100 ms before the signal, the other half at it.
    const sent: Array<Promise<Outcome>> = [];
    for (let i = 0; i < 30; i++) {
      sent.push(idle[i]!.send());
      await sleep(100 / 30);
    }
    const exited = server.stop('SIGTERM');
    for (let i = 30; i < 60; i++) sent.push(idle[i]!.send());
    const outcomes = await Promise.all(sent);
    await Promise.all(loops);
    const code = await exited;

    const all = [...outcomes, ...busyOutcomes];
    const failed = all.filter((o) => o.kind === 'failed');
    const refusedKeptOpen = all.filter((o) => o.kind === 'answered' && o.status !== 200 && !o.close);
    report('keep-alive at SIGTERM', {
      requests: all.length,
      answered_200: all.filter((o) => o.kind === 'answered' && o.status === 200).length,
      answered_503: all.filter((o) => o.kind === 'answered' && o.status === 503).length,
      reset_or_dropped: failed.length,
    });
    expect(failed).toEqual([]);
    expect(refusedKeptOpen).toEqual([]);
    // Every looping client stopped on an answer that closed its connection.
    expect(busyOutcomes.filter((o) => o.kind === 'answered' && o.close)).toHaveLength(busy.length);
    expect(code).toBe(0);
    expect(server.output()).toContain('shutdown complete');
  });
});
