import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps, IdempotencyHandle, RecordedResponse } from '../context.ts';
import { withTransaction, type Tx } from '../db/transaction.ts';
import { AppError, tooEarly } from '../errors/app-error.ts';
import * as repo from '../modules/idempotency-keys/idempotency-keys.repo.ts';
import { renderError } from './error-handler.ts';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';

/**
 * How long a claim protects a request that is still running. A duplicate within it gets 425; after
 * it, the claim is taken as abandoned (its process died) and the duplicate runs. Longer than any
 * request can take: connector calls time out well before (see connectors/README.md).
 */
const LEASE_MS = 120_000;

/** JSON with sorted keys, so the same body sent with other whitespace or key order matches. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function requestHash(request: FastifyRequest): string {
  const raw = request.rawBody;
  let body = '';
  if (raw !== undefined && raw !== '') {
    try {
      body = canonical(JSON.parse(raw));
    } catch {
      body = raw;
    }
  }
  return createHash('sha256').update(`${request.method} ${request.url}\n${body}`).digest('hex');
}

function sendStored(reply: FastifyReply, status: number, body: string, replayed: boolean): FastifyReply {
  reply.code(status);
  if (replayed) reply.header(REPLAYED_HEADER, 'true');
  if (status === 204 || body === '') return reply.send();
  return reply.type('application/json; charset=utf-8').send(body);
}

/**
 * preHandler of idempotent routes. With an `idempotency-key` header it claims the key (or replays,
 * refuses, or asks to retry) and puts a handle on the request context; the response is then stored
 * in the transaction that does the work (see `withRequestTransaction`).
 */
export function createIdempotencyHook(deps: Deps) {
  return async function idempotency(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> {
    const key = request.headers[IDEMPOTENCY_HEADER];
    if (typeof key !== 'string' || key === '') return;
    const ctx = request.ctx;
    const id: repo.KeyId = { merchantAccountId: ctx.merchantAccountId, owner: ctx.principal?.keyPairId ?? 'anonymous', key };
    const now = Date.now();
    const claim: repo.NewClaim = {
      ...id,
      method: request.method,
      path: request.url,
      requestHash: requestHash(request),
      lockedUntil: new Date(now + LEASE_MS),
      expiresAt: new Date(now + deps.config.idempotencyTtlSeconds * 1000),
    };
    const outcome = await withTransaction(deps.db, async (tx) => {
      if (await repo.insertClaim(tx, claim)) return { kind: 'claimed' as const };
      const row = await repo.lockKey(tx, id);
      if (!row) {
        // Released (a 500) or purged since the insert above; if another request claimed it in
        // between, that request runs and this one must not.
        return (await repo.insertClaim(tx, claim)) ? { kind: 'claimed' as const } : { kind: 'running' as const };
      }
      if (row.expires_at.getTime() <= now) {
        await repo.renewClaim(tx, claim);
        return { kind: 'claimed' as const };
      }
      if (row.request_hash !== claim.requestHash) return { kind: 'mismatch' as const };
      if (row.state === 'completed') return { kind: 'replay' as const, status: row.response_status ?? 200, body: row.response_body ?? '' };
      if (row.locked_until.getTime() > now) return { kind: 'running' as const };
      await repo.renewClaim(tx, claim);
      return { kind: 'claimed' as const };
    });

    switch (outcome.kind) {
      case 'mismatch':
        throw new AppError(
          'bad_request',
          'This idempotency-key was already used with other parameters (method, path or body); send a new key for a different request',
          { details: [{ location: 'header', pointer: '/idempotency-key', message: 'Key reused with a different request', type: 'idempotency_mismatch' }] },
        );
      case 'running':
        throw tooEarly('A request with this idempotency-key is still being processed; retry it shortly');
      case 'replay':
        request.log.info({ operationId: ctx.operationId }, 'idempotent replay');
        return sendStored(reply, outcome.status, outcome.body, true);
      case 'claimed':
        ctx.idempotency = createHandle(deps, id, reply);
        return;
    }
  };
}

function createHandle(deps: Deps, id: repo.KeyId, reply: FastifyReply): IdempotencyHandle & { settle(error: unknown): Promise<void> } {
  const handle = {
    recorded: null as RecordedResponse | null,
    async record(tx: Tx, status: number, result: unknown): Promise<RecordedResponse> {
      const body = status === 204 || result === undefined ? '' : (reply.serializeInput(result as Record<string, unknown>, String(status)) as string);
      await repo.completeKey(tx, id, status, body);
      return { status, body };
    },
    /**
     * After a failure: a client error is a completed outcome and is stored (a retry gets the same
     * answer); a server error, a timeout or a rate limit releases the key so a retry runs again.
     */
    async settle(error: unknown): Promise<void> {
      const rendered = renderError(error, deps.config.bodyLimit);
      const final = rendered.status < 500 && rendered.status !== 425 && rendered.status !== 429 && rendered.status !== 422;
      if (final) {
        const body = reply.serializeInput(rendered.body as unknown as Record<string, unknown>, String(rendered.status)) as string;
        await withTransaction(deps.db, (tx) => repo.completeKey(tx, id, rendered.status, body));
      } else {
        await withTransaction(deps.db, (tx) => repo.releaseKey(tx, id));
      }
    },
  };
  return handle;
}

export type SettleableHandle = ReturnType<typeof createHandle>;

/** Sends the recorded response (byte for byte what a replay will send). */
export function sendRecorded(reply: FastifyReply, recorded: { status: number; body: string }): FastifyReply {
  return sendStored(reply, recorded.status, recorded.body, false);
}
