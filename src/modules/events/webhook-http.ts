import { Agent as HttpAgent, request as httpRequest, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
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
 * Idle connections to receivers are kept this long for the next deliveries (decision 0156): below
 * the 5 s a Node receiver keeps one by default (`keepAliveTimeout`), so the connection is seldom
 * reused just as the receiver closes it.
 */
export const IDLE_CONNECTION_MS = 4_000;
/** Receivers (origin and checked address) with an agent at once: the least recently used goes past it. */
const MAX_AGENTS = 256;
const agents = new Map<string, HttpAgent>();

/**
 * The keep-alive agent of one receiver at one checked address. Its connections were all opened to
 * `address`, the one `resolveDeliveryAddress` checked for this delivery: a pooled connection never
 * leads to an address checked for another delivery only (a name that now resolves elsewhere gets
 * another agent, and its connections are checked again).
 */
function agentFor(url: URL, address: string): HttpAgent {
  const key = `${url.protocol}//${url.host}|${address}`;
  const known = agents.get(key);
  if (known) {
    agents.delete(key);
    agents.set(key, known);
    return known;
  }
  const options = { keepAlive: true, timeout: IDLE_CONNECTION_MS, scheduling: 'lifo' as const };
  const agent = url.protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
  agents.set(key, agent);
  if (agents.size > MAX_AGENTS) {
    const [oldestKey, oldest] = agents.entries().next().value!;
    agents.delete(oldestKey);
    oldest.destroy();
  }
  return agent;
}

/** Closes the kept connections (tests; a process that stops). */
export function closeIdleConnections(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}

/**
 * POSTs the body. The URL's host name is kept as the host to connect to, so the Host header and the
 * TLS server name (SNI and certificate check) stay the receiver's; only the DNS step is replaced.
 * The connection is kept for the next deliveries to the same receiver at the same address
 * (`agentFor`); one that the receiver closed while idle fails before any answer (`ECONNRESET` on
 * a reused connection), and the request is then sent once more on a new one, as Node's
 * documentation advises.
 */
export async function postWebhook(req: PostRequest): Promise<PostOutcome> {
  const started = performance.now();
  const first = await postOnce(req, started);
  return first.retry ? (await postOnce(req, started)).outcome : first.outcome;
}

function postOnce(req: PostRequest, started: number): Promise<{ outcome: PostOutcome; retry: boolean }> {
  const send = req.url.protocol === 'https:' ? httpsRequest : httpRequest;
  const options: RequestOptions = {
    method: 'POST',
    hostname: req.url.hostname.replace(/^\[|\]$/g, ''),
    port: req.url.port || undefined,
    path: `${req.url.pathname}${req.url.search}`,
    headers: { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) },
    lookup: pinnedLookup(req.address, req.family),
    agent: agentFor(req.url, req.address),
  };
  return new Promise((resolve) => {
    let settled = false;
    let answered = false;
    const finish = (statusCode: number | null, error: string | null, retry = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      clearTimeout(totalTimer);
      resolve({ outcome: { statusCode, error, durationMs: Math.round(performance.now() - started) }, retry });
    };
    const outgoing = send(options, (res) => {
      answered = true;
      res.resume();
      res.on('end', () => finish(res.statusCode ?? null, null));
      res.on('error', (e) => finish(res.statusCode ?? null, e.message));
    });
    const connectTimer = setTimeout(
      () => outgoing.destroy(new Error(`no connection within ${CONNECT_TIMEOUT_MS} ms`)),
      CONNECT_TIMEOUT_MS,
    );
    // The total counts from the first try: a second one only has what is left of it.
    const totalTimer = setTimeout(
      () => outgoing.destroy(new Error(`no complete response within ${TOTAL_TIMEOUT_MS} ms`)),
      Math.max(0, TOTAL_TIMEOUT_MS - (performance.now() - started)),
    );
    outgoing.on('socket', (socket) => {
      // A kept connection is connected already: no 'connect' comes.
      if (!socket.connecting) clearTimeout(connectTimer);
      else socket.once('connect', () => clearTimeout(connectTimer));
    });
    outgoing.on('error', (e: NodeJS.ErrnoException) =>
      finish(null, e.message, outgoing.reusedSocket && !answered && e.code === 'ECONNRESET'),
    );
    outgoing.end(req.body);
  });
}
