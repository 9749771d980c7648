import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a local receiver got: one entry per request, in arrival order. */
export interface Received {
  headers: IncomingHttpHeaders;
  /** The status this receiver answered. */
  status: number;
  body: string;
  json: {
    id: string;
    kind: string;
    resource: { type: string; id: string };
    payload: Record<string, unknown>;
    [key: string]: unknown;
  };
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Status answered to the next requests (200 by default). */
  respondWith(status: number): void;
  close(): Promise<void>;
}

/** A real HTTP receiver on 127.0.0.1 (an ephemeral port). */
export async function startReceiver(path = '/hooks'): Promise<Receiver> {
  const received: Received[] = [];
  let status = 200;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ headers: req.headers, status, body, json: JSON.parse(body) });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    respondWith: (s) => void (status = s),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The verification of docs/webhooks.md ("Verifying a delivery"), as a receiver runs it (5 minutes of tolerance, constant-time comparison). */
export function verifyWebhook(
  secret: string,
  headers: IncomingHttpHeaders,
  rawBody: string,
  now = Date.now(),
): boolean {
  const timestamp = Number(headers['x-svc-webhook-timestamp']);
  if (!Number.isInteger(timestamp) || Math.abs(now / 1000 - timestamp) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest();
  return String(headers['x-svc-webhook-signatures'] ?? '')
    .split(',')
    .some((signature) => {
      const given = Buffer.from(signature.trim(), 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/**
 * Runs the job queue until `done()` holds (or `timeoutMs` passes). Deliveries of one resource go out
 * in order: one that found an earlier delivery still in flight waits about a second, and a plain
 * drain does not wait for jobs due later.
 */
export async function drainUntil(
  deps: { queue: { drain(deps: never): Promise<number> } },
  done: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await deps.queue.drain(deps as never);
    if ((await done()) || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
