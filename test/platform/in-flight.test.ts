import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.ts';

/** A graceful shutdown waits for handlers still running, even when their client went away. */
let t: TestApp;
let release: () => void = () => undefined;
let started: () => void = () => undefined;
beforeAll(async () => {
  t = await buildTestApp(
    {},
    {
      plugins: [
        async (app) => {
          app.get('/test-slow', async () => {
            started();
            await new Promise<void>((resolve) => (release = resolve));
            return { ok: true };
          });
          app.get('/test-throws', async () => {
            throw new Error('boom');
          });
          // A plain (not async) handler that sends its answer and returns the reply, as plugins do.
          app.get('/test-sends', (_request, reply) => reply.type('text/plain').send('sent'));
        },
      ],
    },
  );
});
afterAll(async () => t.close());

describe('happy', () => {
  it('counts a running handler until it ends', async () => {
    expect(t.app.inFlight.count).toBe(0);
    const running = new Promise<void>((resolve) => (started = resolve));
    const response = t.app.inject({ method: 'GET', url: '/test-slow' });
    await running;
    expect(t.app.inFlight.count).toBe(1);
    expect(await t.app.inFlight.drained(50)).toBe(false);
    const drained = t.app.inFlight.drained(5_000);
    release();
    expect(await drained).toBe(true);
    expect((await response).json()).toEqual({ ok: true });
    expect(t.app.inFlight.count).toBe(0);
  });
});

describe('errors', () => {
  it('a handler that throws is no longer counted', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/test-throws' })).statusCode).toBe(500);
    expect(t.app.inFlight.count).toBe(0);
    expect(await t.app.inFlight.drained(10)).toBe(true);
  });

  it('lets a plain handler that returns the reply answer, and counts it done', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/test-sends' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('sent');
    expect(t.app.inFlight.count).toBe(0);
  });
});
