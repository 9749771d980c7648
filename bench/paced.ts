/**
 * An open-loop load at a fixed rate: request i is due at `start + i / rate`, whatever the answers
 * before it, and its latency runs from that due time to its answer's end (so a request that waited
 * for a free connection, or for the client itself, counts the wait: no coordinated omission).
 *
 * autocannon's `overallRate` is not that: each connection sends its share of a second's requests
 * as fast as it can when the second starts, then waits for the next one, so its latencies are
 * those of a burst of `connections` concurrent requests once a second (decision 0087).
 *
 * The generator shares the host's CPUs with the server and PostgreSQL it measures, so it writes
 * one prebuilt request's bytes on raw kept-alive sockets and reads each answer by its
 * content-length: 0.20 ms of CPU per request on the development host, against 0.36 ms with
 * undici's pool and 0.51 ms with node:http's client (decision 0090).
 */
import net from 'node:net';

export interface PacedOptions {
  baseUrl: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  /** Requests per second, evenly spaced. */
  rate: number;
  seconds: number;
  /** Sockets at most (kept alive); a request due while all are busy waits for one. */
  connections: number;
  /**
   * Called at each answer with its due time (ms after the start), its latency in ms (from when it
   * was due), how late it was written (ms after it was due: waiting for a free connection, or the
   * generator's own event loop) and the answer's head, lower-cased.
   */
  onAnswer?: (dueMs: number, latencyMs: number, detail: { lateMs: number; head: string }) => void;
}

interface Histogram {
  average: number;
  p50: number;
  p99: number;
  total: number;
}

/** The fields of an autocannon result that bench/run.ts reads; paced() answers the same. */
export interface LoadResult {
  requests: Histogram;
  latency: Histogram;
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
}

/** One kept-alive socket sending the same request bytes, one request at a time. */
interface Connection {
  socket: net.Socket;
  /** When the request in flight was due; null when the connection is free. */
  due: number | null;
  /** When it was written. */
  sentAt: number;
  received: Buffer[];
  length: number;
}

/**
 * The request as bytes, built once, with its content-length. The server's answers are read by
 * their content-length; an answer without one (chunked) counts as an error, and one that says
 * `connection: close` retires its socket.
 */
function requestBytes(options: PacedOptions, target: URL): Buffer {
  const body = Buffer.from(options.body);
  const lines = [`${options.method} ${target.pathname}${target.search} HTTP/1.1`, `host: ${target.host}`];
  for (const [name, value] of Object.entries(options.headers))
    if (name.toLowerCase() !== 'content-length') lines.push(`${name}: ${value}`);
  lines.push(`content-length: ${body.length}`, '', '');
  return Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), body]);
}

/** The status of a complete answer in `data`, -1 while it is incomplete, null when it cannot be read. */
function answer(data: Buffer): { status: number; close: boolean; head: string } | -1 | null {
  const end = data.indexOf('\r\n\r\n', 0, 'latin1');
  if (end < 0) return -1;
  const head = data.toString('latin1', 0, end).toLowerCase();
  const length = /\r\ncontent-length: *(\d+)/.exec(head);
  if (!length) return null;
  const total = end + 4 + Number(length[1]);
  if (data.length < total) return -1;
  if (data.length > total) return null;
  return { status: Number(head.slice(9, 12)), close: /\r\nconnection: *close/.test(head), head };
}

/** Requests still unanswered this long after the last one was due count as timeouts. */
const DRAIN_MS = 10_000;

export async function paced(options: PacedOptions): Promise<LoadResult> {
  const target = new URL(options.path, options.baseUrl);
  if (target.protocol !== 'http:') throw new Error(`paced() speaks plain HTTP/1.1 only, not ${target.protocol}`);
  const bytes = requestBytes(options, target);
  const latencies: number[] = [];
  const statusCodeStats: Record<string, { count: number }> = {};
  let errors = 0;
  let non2xx = 0;
  let outstanding = 0;
  let drained: (() => void) | null = null;
  const connections = new Set<Connection>();
  const free: Connection[] = [];
  /** Due times of requests waiting for a free connection, oldest first. */
  const waiting: number[] = [];

  const done = (due: number, status: number | null, sentAt = due, head = '') => {
    if (status === null) errors++;
    else {
      const latency = performance.now() - due;
      latencies.push(latency);
      options.onAnswer?.(due - start, latency, { lateMs: sentAt - due, head });
      statusCodeStats[status] = { count: (statusCodeStats[status]?.count ?? 0) + 1 };
      if (status < 200 || status > 299) non2xx++;
    }
    if (--outstanding === 0) drained?.();
  };
  const write = (connection: Connection, due: number) => {
    connection.due = due;
    connection.sentAt = performance.now();
    connection.socket.write(bytes);
  };
  /** The connection is free again: the oldest waiting request goes on it. */
  const release = (connection: Connection) => {
    const due = waiting.shift();
    if (due === undefined) free.push(connection);
    else write(connection, due);
  };
  const retire = (connection: Connection) => {
    if (!connections.delete(connection)) return;
    connection.socket.destroy();
    const at = free.indexOf(connection);
    if (at >= 0) free.splice(at, 1);
    if (connection.due !== null) done(connection.due, null);
    connection.due = null;
    // A request waiting for a connection gets a new one.
    const due = waiting.shift();
    if (due !== undefined) open(due);
  };
  const open = (due: number) => {
    const socket = net.connect({ host: target.hostname, port: Number(target.port || 80), noDelay: true });
    const connection: Connection = { socket, due: null, sentAt: 0, received: [], length: 0 };
    connections.add(connection);
    socket.on('data', (chunk: Buffer) => {
      connection.received.push(chunk);
      connection.length += chunk.length;
      const data = connection.received.length === 1 ? chunk : Buffer.concat(connection.received, connection.length);
      const found = answer(data);
      if (found === -1) return;
      connection.received = [];
      connection.length = 0;
      const due = connection.due;
      if (found === null || due === null) return retire(connection);
      connection.due = null;
      done(due, found.status, connection.sentAt, found.head);
      if (found.close) retire(connection);
      else release(connection);
    });
    socket.on('error', () => retire(connection));
    socket.on('close', () => retire(connection));
    write(connection, due);
  };
  const send = (due: number) => {
    outstanding++;
    const connection = free.pop();
    if (connection) write(connection, due);
    else if (connections.size < options.connections) open(due);
    else waiting.push(due);
  };

  const interval = 1000 / options.rate;
  const total = Math.round(options.rate * options.seconds);
  const start = performance.now();
  let sent = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor((performance.now() - start) / interval) + 1);
      for (; sent < due; sent++) send(start + sent * interval);
      if (sent < total) setTimeout(tick, Math.max(0, start + sent * interval - performance.now()));
      else resolve();
    };
    tick();
  });
  const finished = await Promise.race([
    new Promise<boolean>((resolve) => {
      drained = () => resolve(true);
      if (outstanding === 0) resolve(true);
    }),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), DRAIN_MS).unref()),
  ]);
  const duration = (performance.now() - start) / 1000;
  const timeouts = finished ? 0 : outstanding;
  for (const connection of [...connections]) {
    connections.delete(connection);
    connection.socket.destroy();
  }

  latencies.sort((a, b) => a - b);
  // Whole milliseconds, as autocannon gives them.
  const at = (q: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  const answered = latencies.length;
  const average = answered === 0 ? 0 : latencies.reduce((sum, ms) => sum + ms, 0) / answered;
  return {
    requests: { average: answered / duration, p50: answered / duration, p99: answered / duration, total: answered },
    latency: { average: Math.round(average), p50: at(0.5), p99: at(0.99), total: answered },
    duration,
    errors,
    timeouts,
    non2xx,
    statusCodeStats,
  };
}
