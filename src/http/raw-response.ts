import type { FastifyReply } from 'fastify';

/**
 * An answer a route passes through as it came from elsewhere (vault forwarding: the target's
 * status, headers and bytes), rather than a resource serialized by its schema. Stored for
 * idempotent replays as JSON with the bytes in base64, so a replay sends the same bytes.
 */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

export const REPLAYED = 'idempotent-replayed';

/** The marker that tells a stored raw answer from an error body stored for the same route. */
const MARK = '{"raw_response":1,';

export const encodeRaw = (raw: RawResponse): string =>
  `${MARK}${JSON.stringify({ status: raw.status, headers: raw.headers, body: raw.body.toString('base64') }).slice(1)}`;

export const isEncodedRaw = (stored: string): boolean => stored.startsWith(MARK);

export function decodeRaw(stored: string): RawResponse {
  const parsed = JSON.parse(stored) as { status: number; headers: Record<string, string | string[]>; body: string };
  return { status: parsed.status, headers: parsed.headers, body: Buffer.from(parsed.body, 'base64') };
}

export function sendRaw(reply: FastifyReply, raw: RawResponse, replayed = false): FastifyReply {
  reply.code(raw.status);
  for (const [name, value] of Object.entries(raw.headers)) reply.header(name, value);
  if (replayed) reply.header(REPLAYED, 'true');
  return reply.send(raw.body);
}
