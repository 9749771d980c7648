import { request as httpRequest, type IncomingHttpHeaders, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { pinnedLookup } from './pinned-lookup.ts';

/**
 * One outbound call to an address already checked by the SSRF guard (vault forwards, real provider
 * connectors, Apple Pay merchant sessions): to the checked address only (no second DNS answer), no
 * redirect followed (node's client never follows one), a fresh connection, bounded in time and in
 * the size of the answer.
 */

export interface RelayRequest {
  url: URL;
  address: string;
  family: 4 | 6;
  method: string;
  headers: Record<string, string>;
  body: string | null;
  /** From the start to the end of the answer. */
  timeoutMs: number;
  /** No connection within this: the target is down or drops packets. */
  connectTimeoutMs: number;
  maxResponseBytes: number;
  /** Mutual TLS (https only): the client certificate and key presented (vault forwarding's mtls methods, Apple Pay merchant sessions), and CAs trusted besides the default roots. */
  tls?: RelayTls | null;
}

export interface RelayTls {
  cert: string;
  key: string;
  passphrase?: string;
  /** Replaces the default trust store when set, so it carries the default roots too. */
  ca?: string[];
}

export interface RelayResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export class RelayError extends Error {
  constructor(
    readonly kind: 'timeout' | 'too_large' | 'unreachable',
    message: string,
  ) {
    super(message);
    this.name = 'RelayError';
  }
}

export function relay(req: RelayRequest): Promise<RelayResponse> {
  const send = req.url.protocol === 'https:' ? httpsRequest : httpRequest;
  const options: RequestOptions = {
    method: req.method,
    hostname: req.url.hostname.replace(/^\[|\]$/g, ''),
    port: req.url.port || undefined,
    path: `${req.url.pathname}${req.url.search}`,
    headers: {
      ...req.headers,
      ...(req.body !== null ? { 'content-length': String(Buffer.byteLength(req.body)) } : {}),
    },
    lookup: pinnedLookup(req.address, req.family),
    // A fresh connection each time: no TLS session or socket is shared between forwards (nor client certificates).
    agent: false,
    ...(req.tls
      ? {
          cert: req.tls.cert,
          key: req.tls.key,
          passphrase: req.tls.passphrase,
          ...(req.tls.ca ? { ca: req.tls.ca } : {}),
        }
      : {}),
  };
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (error: RelayError) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      clearTimeout(totalTimer);
      outgoing.destroy();
      reject(error);
    };
    const outgoing = send(options, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > req.maxResponseBytes)
          return fail(new RelayError('too_large', `the target's answer exceeds ${req.maxResponseBytes} bytes`));
        chunks.push(chunk);
      });
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(connectTimer);
        clearTimeout(totalTimer);
        resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) });
      });
      res.on('error', () =>
        fail(new RelayError('unreachable', 'the connection to the target broke during its answer')),
      );
    });
    const connectTimer = setTimeout(
      () => fail(new RelayError('timeout', `no connection to the target within ${req.connectTimeoutMs} ms`)),
      req.connectTimeoutMs,
    );
    const totalTimer = setTimeout(
      () => fail(new RelayError('timeout', `no complete answer from the target within ${req.timeoutMs} ms`)),
      req.timeoutMs,
    );
    outgoing.on('socket', (socket) => socket.once('connect', () => clearTimeout(connectTimer)));
    outgoing.on('error', (e) =>
      fail(
        new RelayError(
          'unreachable',
          `the target could not be reached (${(e as NodeJS.ErrnoException).code ?? 'connection error'})`,
        ),
      ),
    );
    outgoing.end(req.body ?? undefined);
  });
}
