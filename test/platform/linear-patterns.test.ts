import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';
import { createMerchantAccount } from '../helpers/factories.ts';
import { CPU_LIMIT_MS, cpuMs, MIB } from './linear-patterns.support.ts';

/**
 * Every pattern the server applies to request data runs in linear time (docs/security.md,
 * "Patterns applied to request data"): each is applied to adversarial inputs of 1 MiB, through
 * HTTP where a route reaches it, and must take under 100 ms of CPU.
 */

let t: TestApp;
let target: Server;
let base: string;
beforeAll(async () => {
  // The target answers small and fast: the CPU measured is the server's own work on the body.
  target = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  t = await buildTestApp({ VAULT_FORWARD_ALLOW_PRIVATE_URLS: 'true' });
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => target.close(resolve));
});

/** A JSON body `{"note": <text>}` of exactly `size` bytes: `text` is `head`, filled with `fill` to size, then `tail`. */
function noteBody(size: number, head: string, fill: string, tail = ''): string {
  const room = size - JSON.stringify({ note: head + tail }).length;
  const filler = fill.repeat(Math.ceil(room / fill.length)).slice(0, room);
  const body = JSON.stringify({ note: head + filler + tail });
  expect(Buffer.byteLength(body)).toBe(size);
  return body;
}

describe('security', () => {
  describe('POST /vault-forward: the placeholders of a 1 MiB adversarial body', () => {
    let m: string;
    let card: string;
    beforeAll(async () => {
      m = await createMerchantAccount(t.deps);
      const res = await t.request({ method: 'POST', url: '/payment-methods', merchantAccountId: m, payload: { method: 'card', number: '4111111111111111', expiration_date: '07/30' } });
      card = res.json().id;
    });
    const forward = (body: string) =>
      t.request({ method: 'POST', url: '/vault-forward', merchantAccountId: m, headers: { 'content-type': 'application/json', 'x-vault-forward-url': `${base}/`, 'x-vault-forward-payment-methods': card }, payload: body });

    // The body (1,515 bytes froze the process for 3 s) first: on a super-linear pattern it
    // fails within seconds, and the larger bodies after it are skipped rather than hang the file.
    const cases: Array<{ name: string; size: number; body: (size: number) => string; status: number }> = [
      { name: '"{{" then spaces, 1,515 bytes', size: 1515, body: (s) => noteBody(s, '{{', ' '), status: 200 },
      { name: '"{{" then spaces', size: MIB, body: (s) => noteBody(s, '{{', ' '), status: 200 },
      { name: '"{{" then spaces, then an unknown placeholder', size: MIB, body: (s) => noteBody(s, '{{', ' ', '{{CARD_NUMBR_1}}'), status: 400 },
      { name: 'a placeholder padded with spaces inside its braces', size: MIB, body: (s) => noteBody(s, '{{ CARD_NUMBER_1', ' ', ' }}'), status: 200 },
      { name: '"{{ A" repeated', size: MIB, body: (s) => noteBody(s, '', '{{ A'), status: 200 },
      { name: '"{{" repeated', size: MIB, body: (s) => noteBody(s, '', '{{'), status: 200 },
      { name: '"{{ " then letters, one brace short', size: MIB, body: (s) => noteBody(s, '{{ ', 'A_', ' }'), status: 200 },
      { name: 'a placeholder repeated', size: MIB, body: (s) => noteBody(s, '', '{{CARD_NUMBER_1}}'), status: 200 },
    ];
    let slow: string | null = null;
    for (const c of cases) {
      it(`${c.name}: answered ${c.status} in under ${CPU_LIMIT_MS} ms of CPU, and a concurrent GET /healthz is not held up`, async (ctx) => {
        if (slow) ctx.skip(`skipped: the smaller body "${slow}" was already too slow`);
        await forward(JSON.stringify({ note: 'warm-up {{CARD_NUMBER_1}}' }));
        const body = c.body(c.size);
        // The least of up to three tries: a collection or a neighbour on a shared machine can land in any one.
        let best = { cpu: Infinity, healthMs: Infinity, status: 0 };
        for (let attempt = 0; attempt < 3 && best.cpu >= CPU_LIMIT_MS; attempt++) {
          let healthMs = 0;
          let status = 0;
          const started = performance.now();
          const cpu = await cpuMs(async () => {
            const health = t.app.inject({ method: 'GET', url: '/healthz' }).then((res) => {
              healthMs = performance.now() - started;
              return res.statusCode;
            });
            const [res, healthStatus] = await Promise.all([forward(body), health]);
            status = res.statusCode;
            expect(healthStatus).toBe(200);
          });
          if (cpu < best.cpu) best = { cpu, healthMs, status };
        }
        if (best.cpu >= CPU_LIMIT_MS) slow = c.name;
        expect(best.status).toBe(c.status);
        expect(best.cpu, `CPU of the forward of ${c.size} bytes (and of GET /healthz)`).toBeLessThan(CPU_LIMIT_MS);
        // Wall time on a shared test machine is noisy; a blocked event loop holds it for seconds.
        expect(best.healthMs, 'GET /healthz sent alongside').toBeLessThan(1000);
      });
    }
  });
});
