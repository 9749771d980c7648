import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { paced } from '../../bench/paced.ts';
import { p99BySecond } from '../../bench/percentile.ts';

/**
 * The benchmark's open-loop load generator (bench/paced.ts) reads answers off raw sockets by their
 * content-length: it must count every answer once, by its status, and count what it cannot read.
 */
describe('bench/paced.ts', () => {
  let server: http.Server | null = null;
  afterEach(async () => {
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server!.close(resolve));
    server = null;
  });

  async function listen(handler: http.RequestListener): Promise<string> {
    server = http.createServer(handler);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  const options = {
    method: 'POST',
    path: '/things?x=1',
    headers: { 'content-type': 'application/json' },
    body: '{"amount":1}',
    rate: 200,
    seconds: 0.5,
    connections: 4,
  };

  it('sends the request as given, paced, over at most `connections` sockets, and counts the answers by status', async () => {
    const seen: string[] = [];
    const sockets = new Set<unknown>();
    let n = 0;
    const baseUrl = await listen((request, response) => {
      sockets.add(request.socket);
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        seen.push(`${request.method} ${request.url} ${request.headers['content-type']} ${body}`);
        // Every fifth answer a 500, with a body larger than one read.
        response.statusCode = ++n % 5 === 0 ? 500 : 201;
        response.end(n % 5 === 0 ? 'x'.repeat(200_000) : '{"id":"t"}');
      });
    });
    const started = performance.now();
    const result = await paced({ ...options, baseUrl });
    expect(performance.now() - started).toBeGreaterThanOrEqual(450);
    expect(seen).toHaveLength(100);
    expect(new Set(seen)).toEqual(new Set(['POST /things?x=1 application/json {"amount":1}']));
    expect(sockets.size).toBeLessThanOrEqual(4);
    expect(result.statusCodeStats).toEqual({ 201: { count: 80 }, 500: { count: 20 } });
    expect(result).toMatchObject({
      errors: 0,
      timeouts: 0,
      non2xx: 20,
      requests: { total: 100 },
      latency: { total: 100 },
    });
    expect(result.latency.p99).toBeGreaterThanOrEqual(result.latency.p50);
  });

  it('retires a socket the server closes, and counts an answer it cannot read (chunked) as an error', async () => {
    let n = 0;
    const baseUrl = await listen((request, response) => {
      request.resume();
      request.on('end', () => {
        n++;
        if (n % 10 === 0) {
          // Chunked: no content-length to read it by.
          response.write('{"a":');
          response.end('1}');
        } else if (n % 4 === 0) {
          response.setHeader('connection', 'close');
          response.end('{}');
        } else response.end('{}');
      });
    });
    const result = await paced({ ...options, baseUrl });
    expect(n).toBe(100);
    expect(result.errors).toBe(10);
    expect(result.statusCodeStats).toEqual({ 200: { count: 90 } });
    expect(result.timeouts).toBe(0);
  });

  it('reports each answer with its due time and latency, the due times evenly spaced from the start', async () => {
    const baseUrl = await listen((request, response) => {
      request.resume();
      // Every answer 20 ms late, so its latency counts from when it was due.
      request.on('end', () => setTimeout(() => response.end('{}'), 20));
    });
    const points: Array<[number, number]> = [];
    const result = await paced({ ...options, baseUrl, onAnswer: (due, latency) => points.push([due, latency]) });
    expect(points).toHaveLength(result.latency.total);
    expect(points).toHaveLength(100);
    const dues = points.map(([due]) => due).sort((a, b) => a - b);
    // Request i is due i / rate seconds after the start: 0, 5, 10 … 495 ms at 200/s.
    dues.forEach((due, i) => expect(due).toBeCloseTo(i * 5, 6));
    for (const [, latency] of points) expect(latency).toBeGreaterThanOrEqual(19);
  });

  it("says how late each request was written and hands over the answer's head", async () => {
    const baseUrl = await listen((request, response) => {
      request.resume();
      // 20 ms per answer on one socket at one request due every 5 ms: each waits for the one before.
      request.on('end', () => setTimeout(() => response.setHeader('server-timing', 'app;dur=20.00').end('{}'), 20));
    });
    const answers: Array<{ due: number; latency: number; lateMs: number; head: string }> = [];
    await paced({
      ...options,
      seconds: 0.1,
      connections: 1,
      baseUrl,
      onAnswer: (due, latency, detail) => answers.push({ due, latency, ...detail }),
    });
    expect(answers).toHaveLength(20);
    answers.sort((a, b) => a.due - b.due);
    // The first goes out when due; the last waited for the 19 before it (about 19 × 20 − 19 × 5 ms).
    expect(answers[0]!.lateMs).toBeLessThan(15);
    expect(answers[19]!.lateMs).toBeGreaterThan(200);
    for (const a of answers) {
      expect(a.lateMs).toBeGreaterThanOrEqual(0);
      expect(a.latency).toBeGreaterThanOrEqual(a.lateMs + 19);
      expect(a.head).toMatch(/^http\/1\.1 200 ok\r\n/);
      expect(a.head).toContain('\r\nserver-timing: app;dur=20.00');
    }
  });

  it('gives the 99th percentile of each second by due time, seconds without answers left out', () => {
    const points: Array<[number, number]> = [];
    for (let i = 1; i <= 100; i++) points.push([i * 9.99, i]);
    points.push([2500, 7]);
    expect(p99BySecond(points)).toEqual([
      { second: 0, answered: 100, p99: 99 },
      { second: 2, answered: 1, p99: 7 },
    ]);
    expect(p99BySecond([])).toEqual([]);
  });
});
