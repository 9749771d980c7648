import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { pinnedLookup } from '../../lib/pinned-lookup.ts';

/**
 * Delivery timeouts. A receiver should answer at once and do its work later; these bound how long a
 * worker slot is held by a slow or unreachable one:
 * - connect: 5 s covers a TCP + TLS handshake across continents many times over, while a host that
 *   drops SYNs (firewalled, gone) would otherwise hold the slot for the OS default of ~2 minutes.
 * - total: 10 s from the start to the end of the response, so a receiver that accepts the
 *   connection then stalls is cut off too. It stays well below the 60 s delivery lease, so a second
 *   worker never sends the same delivery while this one is still waiting.
 */
export const CONNECT_TIMEOUT_MS = 5_000;
export const TOTAL_TIMEOUT_MS = 10_000;

export interface PostRequest {
  url: URL;
  /** The address `resolveDeliveryAddress` checked: the connection goes there, not to a new DNS answer. */
  address: string;
  family: 4 | 6;
  headers: Record<string, string>;
  body: string;
}

export interface PostOutcome {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

/**
 * POSTs the body. The URL's host name is kept as the host to connect to, so the Host header and the
 * TLS server name (SNI and certificate check) stay the receiver's; only the DNS step is replaced.
 */
export function postWebhook(req: PostRequest): Promise<PostOutcome> {
  const started = performance.now();
  const send = req.url.protocol === 'https:' ? httpsRequest : httpRequest;
  const options: RequestOptions = {
    method: 'POST',
    hostname: req.url.hostname.replace(/^\[|\]$/g, ''),
    port: req.url.port || undefined,
    path: `${req.url.pathname}${req.url.search}`,
    headers: { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) },
    lookup: pinnedLookup(req.address, req.family),
    // A fresh connection per delivery: a pooled socket could lead to an address checked earlier.
    agent: false,
  };
  return new Promise((resolve) => {
    let settled = false;
    const finish = (statusCode: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      clearTimeout(totalTimer);
      resolve({ statusCode, error, durationMs: Math.round(performance.now() - started) });
    };
    const outgoing = send(options, (res) => {
      res.resume();
      res.on('end', () => finish(res.statusCode ?? null, null));
      res.on('error', (e) => finish(res.statusCode ?? null, e.message));
    });
    const connectTimer = setTimeout(
      () => outgoing.destroy(new Error(`no connection within ${CONNECT_TIMEOUT_MS} ms`)),
      CONNECT_TIMEOUT_MS,
    );
    const totalTimer = setTimeout(
      () => outgoing.destroy(new Error(`no complete response within ${TOTAL_TIMEOUT_MS} ms`)),
      TOTAL_TIMEOUT_MS,
    );
    outgoing.on('socket', (socket) => socket.once('connect', () => clearTimeout(connectTimer)));
    outgoing.on('error', (e) => finish(null, e.message));
    outgoing.end(req.body);
  });
}
