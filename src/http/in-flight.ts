import type { FastifyInstance, RouteOptions } from 'fastify';

/**
 * Handlers still running. A client that goes away does not stop its handler: a payment whose
 * connector call is under way finishes and records its answer. The HTTP server's close only waits
 * for open connections, so a graceful shutdown also waits here before it closes the database.
 */
export interface InFlight {
  readonly count: number;
  /** Resolves true once no handler runs, or false after `timeoutMs` with some still running. */
  drained(timeoutMs: number): Promise<boolean>;
}

declare module 'fastify' {
  interface FastifyInstance {
    inFlight: InFlight;
  }
}

/** Counts every route handler of `app` (call before the routes are registered). */
export function trackInFlight(app: FastifyInstance): InFlight {
  let count = 0;
  let waiters: Array<() => void> = [];
  const done = () => {
    count--;
    if (count > 0) return;
    for (const wake of waiters) wake();
    waiters = [];
  };
  app.addHook('onRoute', (route: RouteOptions) => {
    const handler = route.handler;
    route.handler = function tracked(this: FastifyInstance, request, reply) {
      count++;
      let result: unknown;
      try {
        result = handler.call(this, request, reply);
      } catch (error) {
        done();
        throw error;
      }
      // A handler that sent its answer itself returns the reply, which is thenable but no promise
      // (no `finally`): its work is done.
      if (result !== reply && result && typeof (result as Promise<unknown>).then === 'function')
        return (result as Promise<unknown>).finally(done);
      done();
      return result;
    } as RouteOptions['handler'];
  });
  const inFlight: InFlight = {
    get count() {
      return count;
    },
    drained(timeoutMs) {
      if (count === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        waiters.push(() => {
          clearTimeout(timer);
          resolve(true);
        });
      });
    },
  };
  app.decorate('inFlight', inFlight);
  return inFlight;
}
