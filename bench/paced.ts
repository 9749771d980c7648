/**
 * An open-loop load at a fixed rate: request i is due at `start + i / rate`, whatever the answers
 * before it, and its latency runs from that due time to its answer's end (so a request that waited
 * for a free connection, or for the client itself, counts the wait: no coordinated omission).
 *
 * autocannon's `overallRate` is not that: each connection sends its share of a second's requests
 * as fast as it can when the second starts, then waits for the next one, so its latencies are
 * those of a burst of `connections` concurrent requests once a second (docs/decisions.md,
 * "Latency at a fixed offered rate").
 */
import http from 'node:http';

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

/** Requests still unanswered this long after the last one was due count as timeouts. */
const DRAIN_MS = 10_000;

export async function paced(options: PacedOptions): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const url = new URL(options.path, options.baseUrl);
  const headers = { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) };
  const latencies: number[] = [];
  const statusCodeStats: Record<string, { count: number }> = {};
  let errors = 0;
  let non2xx = 0;
  let outstanding = 0;
  let drained: (() => void) | null = null;

  const send = (due: number) => {
    outstanding++;
    const done = (status: number | null) => {
      if (status === null) errors++;
      else {
        latencies.push(performance.now() - due);
        statusCodeStats[status] = { count: (statusCodeStats[status]?.count ?? 0) + 1 };
        if (status < 200 || status > 299) non2xx++;
      }
      if (--outstanding === 0) drained?.();
    };
    const request = http.request(url, { method: options.method, headers, agent }, (response) => {
      response.on('data', () => undefined);
      response.on('end', () => done(response.statusCode ?? 0));
      response.on('error', () => done(null));
    });
    request.on('error', () => done(null));
    request.end(options.body);
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
  agent.destroy();

  latencies.sort((a, b) => a - b);
  // Whole milliseconds, as autocannon gives them.
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
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
