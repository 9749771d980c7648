import type { Server } from 'node:http';
import net from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * The first step of a graceful shutdown (src/server.ts; docs/reliability.md, "Graceful shutdown").
 * Closing the HTTP server ends every keep-alive connection idle at that moment, and a request a
 * client has just sent on one, not yet read, would be met by a reset. So the server first stops
 * accepting connections and keeps the open ones a short while: what arrives on them is read and
 * answered, each answer with `connection: close`, and the connection then ends cleanly.
 */
export interface Drain {
  readonly draining: boolean;
  /**
   * From now on every answer closes its connection (answers still being prepared too); no new
   * connection is accepted. Resolves after `graceMs`, or sooner once no connection is left open.
   */
  begin(graceMs: number): Promise<void>;
}

declare module 'fastify' {
  interface FastifyInstance {
    drain: Drain;
  }
}

/** Adds `app.drain` (call before the routes are registered: the hook must cover them all). */
export function installDrain(app: FastifyInstance): void {
  let draining = false;
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (draining) reply.header('connection', 'close');
    done(null, payload);
  });
  app.decorate('drain', {
    get draining() {
      return draining;
    },
    begin(graceMs: number) {
      draining = true;
      return stopAccepting(app.server, graceMs);
    },
  } satisfies Drain);
}

function stopAccepting(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, graceMs);
    server.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    // net.Server's close, not http.Server's: the latter also ends the idle keep-alive connections
    // at once. This one only stops listening; 'close' follows when the last connection has ended.
    net.Server.prototype.close.call(server);
  });
}
