import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signatures, verifySignatures } from '../modules/events/signatures.ts';
import { ApiError, type ApiClient } from './api-client.ts';

export interface ListenOptions {
  client: ApiClient;
  /** Interface and port of the local receiver (port 0: any free one). */
  host: string;
  port: number;
  /** Where each verified event is also POSTed, as it came (headers and raw body). */
  forwardTo: string | null;
  /** Print each event's whole envelope as one JSON line instead of a summary. */
  json: boolean;
  /**
   * This machine's signing secret (listen-secret.ts): forwarded events are signed with it, so the
   * local app's secret stays the same from one run to the next.
   */
  signingSecret: { secret: string; file: string; created: boolean };
  out: (line: string) => void;
  err: (line: string) => void;
}

interface Envelope {
  id?: string;
  kind?: string;
  created_at?: string;
  resource?: { type?: string; id?: string };
}

/** How long a forward target may take: the server gives up on a delivery after 10 s. */
const FORWARD_TIMEOUT_MS = 8_000;

/**
 * `svc listen`: a local receiver, a temporary webhook subscription of the merchant account pointing
 * at it, each delivery verified and printed (and forwarded), and the subscription deleted when
 * `stop` resolves (SIGINT, SIGTERM). Returns the exit code.
 */
export async function listen(options: ListenOptions, stop: Promise<string>): Promise<number> {
  let secret = '';
  const server = createServer((req, res) => void receive(options, () => secret, req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}/webhooks`;
  let subscription: { id: string; secret: string };
  try {
    subscription = (await options.client.call('POST', '/webhook-subscriptions', { url })).body as typeof subscription;
  } catch (error) {
    await close(server);
    options.err(explainRefusal(error));
    return 1;
  }
  secret = subscription.secret;
  options.out(
    `Ready: events of merchant account ${options.client.merchantAccountId} arrive at ${url} (subscription ${subscription.id}, deleted on exit; Ctrl-C to stop)`,
  );
  const stored = `${options.signingSecret.created ? 'created in' : 'kept in'} ${options.signingSecret.file}, the same on every run`;
  options.out(
    `Signing secret: ${options.signingSecret.secret} (${stored})${options.forwardTo ? `   forwarding to ${options.forwardTo}` : ''}`,
  );
  const signal = await stop;
  options.out(`${signal}: deleting subscription ${subscription.id}`);
  await close(server);
  try {
    await options.client.call('DELETE', `/webhook-subscriptions/${subscription.id}`);
  } catch (error) {
    options.err(
      `could not delete subscription ${subscription.id}: ${(error as Error).message}; delete it with DELETE /webhook-subscriptions/${subscription.id}`,
    );
    return 1;
  }
  options.out(`subscription ${subscription.id} deleted`);
  return 0;
}

function explainRefusal(error: unknown): string {
  const message = (error as Error).message;
  if (error instanceof ApiError && error.status === 400) {
    return `${message}\nThe server refuses local webhook addresses: a sandbox server allows loopback unless started with WEBHOOK_ALLOW_PRIVATE_URLS=false; production delivers to public https addresses only.`;
  }
  return message;
}

/** One delivery: verified, printed, forwarded; the answer tells the server whether to retry. */
async function receive(
  options: ListenOptions,
  secret: () => string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  const header = (name: string) => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : undefined);
  const problem =
    req.method === 'POST'
      ? verifySignatures(secret(), header('x-svc-webhook-timestamp'), header('x-svc-webhook-signatures'), body)
      : `${req.method} is not a delivery`;
  const event = parse(body);
  if (problem) {
    options.err(`${new Date().toISOString()}  ${event.kind ?? '(unreadable body)'}  signature INVALID: ${problem}`);
    res.writeHead(400).end();
    return;
  }
  const forwarded = options.forwardTo
    ? await forward(options.forwardTo, options.signingSecret.secret, req, body)
    : null;
  options.out(options.json ? body : summary(event, forwarded));
  // A failed forward is retried by the server, as it would be for the real receiver.
  res.writeHead(forwarded === null || forwarded.ok ? 200 : 502).end();
}

function summary(event: Envelope, forwarded: { ok: boolean; text: string } | null): string {
  const resource = `${event.resource?.type ?? '?'} ${event.resource?.id ?? '?'}`;
  return `${event.created_at ?? new Date().toISOString()}  ${event.kind ?? '?'}  ${resource}  event ${event.id ?? '?'}  signature ok${forwarded ? `  -> ${forwarded.text}` : ''}`;
}

function parse(body: string): Envelope {
  try {
    return JSON.parse(body) as Envelope;
  } catch {
    return {};
  }
}

/**
 * POSTs the delivery to the developer's own endpoint (the CLI runs on their machine and sends to the
 * address they typed; the server's SSRF rules protect the server, not this): the body and its
 * timestamp as they came, signed again with this machine's secret.
 */
async function forward(
  target: string,
  secret: string,
  req: IncomingMessage,
  body: string,
): Promise<{ ok: boolean; text: string }> {
  const headers: Record<string, string> = {};
  for (const name of ['content-type', 'user-agent', 'x-svc-webhook-timestamp']) {
    if (typeof req.headers[name] === 'string') headers[name] = req.headers[name] as string;
  }
  // Verified before forwarding, so the timestamp header is a number within the tolerance.
  headers['x-svc-webhook-signatures'] = signatures([secret], Number(headers['x-svc-webhook-timestamp']), body);
  try {
    const response = await fetch(target, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await response.arrayBuffer();
    return { ok: response.status >= 200 && response.status < 300, text: `${target} answered ${response.status}` };
  } catch (error) {
    return { ok: false, text: `${target} failed: ${(error as Error).message}` };
  }
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
