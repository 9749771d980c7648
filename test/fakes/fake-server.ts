import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a fake provider received (tests assert on what the connector sent). */
export interface FakeRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What a fake's handler answers: a JSON body (or a file's `text`), a delayed one, or a connection dropped after acting. */
export type FakeAnswer =
  | { status: number; json: unknown; text?: string; delayMs?: number; headers?: Record<string, string> }
  | { drop: true };

export interface FakeServer {
  url: string;
  requests: FakeRequest[];
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 (an ephemeral port) running one handler per request. */
export async function startFakeServer(
  handle: (req: FakeRequest) => FakeAnswer | Promise<FakeAnswer>,
): Promise<FakeServer> {
  const requests: FakeRequest[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const request = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(request);
      const answer = await handle(request);
      if ('drop' in answer) return void res.socket?.destroy();
      if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
      if (res.destroyed) return;
      if (answer.text !== undefined)
        return void res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers }).end(answer.text);
      res
        .writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers })
        .end(JSON.stringify(answer.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
