import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local HTTP listener that counts every TCP connection it accepts (a TLS hello counts too). */
export interface Listener {
  port: number;
  connections: number;
  requests: Array<{ method: string; url: string; body: string }>;
  close(): Promise<void>;
}

/**
 * Listens on all loopback addresses (dual-stack `::` when the machine has IPv6, else 127.0.0.1), so
 * 127.0.0.1, ::1, 0.0.0.0 and mapped forms all land here. `answer` writes the response (200 by default).
 */
export async function startListener(
  answer: (res: import('node:http').ServerResponse) => void = (res) => res.writeHead(200).end(),
): Promise<Listener> {
  const state = { connections: 0, requests: [] as Listener['requests'] };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      state.requests.push({ method: req.method!, url: req.url!, body });
      answer(res);
    });
  });
  server.on('connection', () => (state.connections += 1));
  await new Promise<void>((resolve) => {
    server.once('error', () => server.listen(0, '127.0.0.1', resolve));
    server.listen({ port: 0, host: '::', ipv6Only: false }, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    get connections() {
      return state.connections;
    },
    requests: state.requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
