import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { paced } from '../../bench/paced.ts';

/**
 * The benchmark's open-loop load generator (bench/paced.ts) reads answers off raw sockets by their
 * content-length: it must count every answer once, by its status, and count what it cannot read.
 */
describe('bench/paced.ts', () => {
  let server: http.Server | null = null;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    server = null;
  });

  async function listen(handler: http.RequestListener): Promise<string> {
    server = http.createServer(handler);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  const options = { method: 'POST', path: '/things?x=1', headers: { 'content-type': 'application/json' }, body: '{"amount":1}', rate: 200, seconds: 0.5, connections: 4 };

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
    expect(result).toMatchObject({ errors: 0, timeouts: 0, non2xx: 20, requests: { total: 100 }, latency: { total: 100 } });
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
});
