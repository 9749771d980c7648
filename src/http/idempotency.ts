import { translatePgError } from '../errors/pg-errors.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps, IdempotencyHandle, RecordedResponse } from '../context.ts';
import { withTransaction, type Executor, type Tx } from '../db/transaction.ts';
import { fieldRefusal, forbidden, tooEarly } from '../errors/app-error.ts';
import * as repo from '../modules/idempotency-keys/idempotency-keys.repo.ts';
import { MerchantAccountCache } from '../modules/merchant-accounts/merchant-account-cache.ts';
import type { Sealed } from '../vault/vault.ts';
import { renderError } from './error-handler.ts';
import { decodeRaw, isEncodedRaw, sendRaw } from './raw-response.ts';
import { credentialHash, matchStoredHash, requestHash, responseBinding } from './idempotency-fingerprint.ts';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';

/**
 * How long a claim protects a request that is still running. A duplicate within it gets 425; after
 * it, the claim is taken as abandoned (its process died) and the duplicate runs. Longer than any
 * request can take: connector calls time out well before (see connectors/README.md).
 */
const LEASE_MS = 120_000;

type Outcome =
  | { kind: 'claimed' | 'running' | 'mismatch' | 'credentials' }
  /** `sealedUnder`: the request hash the response was sealed with (an older form for a key stored before migration 0038). */
  | { kind: 'replay'; status: number; sealed: Sealed; sealedUnder: string }
  /** The claim was taken over and its request had recorded this resource (it died or failed after). */
  | { kind: 'resume'; resourceId: string };

/** Claims the key, or says why not. Runs in one transaction, the row locked. */
async function claimKey(tx: Tx, claim: Claim, now: number): Promise<Outcome> {
  if (await repo.insertClaim(tx, claim)) return { kind: 'claimed' };
  const row = await repo.lockKey(tx, claim);
  if (!row) {
    // Released (a 500 before any resource was bound) or purged since the insert above; if another
    // request claimed it in between, that request runs and this one must not.
    return (await repo.insertClaim(tx, claim)) ? { kind: 'claimed' } : { kind: 'running' };
  }
  if (row.expires_at.getTime() <= now) {
    await repo.renewClaim(tx, claim);
    return { kind: 'claimed' };
  }
  const sealedUnder = await claim.matchStoredHash(tx, row.request_hash);
  if (sealedUnder === null) return { kind: 'mismatch' };
  // NULL: a claim made before migration 0012, which can never complete (see that migration).
  if (row.credential_hash !== null && row.credential_hash !== claim.credentialHash) return { kind: 'credentials' };
  if (row.state === 'completed') {
    return {
      kind: 'replay',
      status: row.response_status ?? 200,
      sealed: { ciphertext: row.response_body ?? '', keyId: row.response_key_id ?? '' },
      sealedUnder,
    };
  }
  if (row.locked_until.getTime() > now) return { kind: 'running' };
  // Abandoned (its process died) or released after a 5xx: a resource it recorded is kept and resumed.
  await repo.renewClaim(tx, claim, row.resource_id);
  return row.resource_id === null ? { kind: 'claimed' } : { kind: 'resume', resourceId: row.resource_id };
}

/** A claim, and how to tell whether a stored request hash is its request's (see `matchStoredHash`). */
interface Claim extends repo.NewClaim {
  matchStoredHash(db: Executor, stored: string): Promise<string | null>;
}

/** The request hash is the vault's keyed MAC: its key comes from the vault's cache, no round trip once warm. */
async function newClaim(
  deps: Deps,
  request: FastifyRequest,
  key: string,
  now: number,
  ttlSeconds: number,
  leaseMs: number,
): Promise<Claim> {
  const ctx = request.ctx;
  const merchantAccountId = ctx.merchantAccountId;
  const hash = await requestHash(deps.vault, deps.db, merchantAccountId, request);
  return {
    merchantAccountId,
    owner: ctx.principal?.keyPairId ?? 'anonymous',
    key,
    method: request.method,
    path: request.url,
    requestHash: hash,
    credentialHash: credentialHash(ctx.principal),
    lockedUntil: new Date(now + leaseMs),
    expiresAt: new Date(now + ttlSeconds * 1000),
    matchStoredHash: (db, stored) =>
      matchStoredHash(stored, hash, { vault: deps.vault, db, merchantAccountId, request }),
  };
}

const refused = (message: string, detail: string, type: string) =>
  fieldRefusal('header', '/idempotency-key', detail, type, message);

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
  const merchants = new MerchantAccountCache(deps.db);
  return async function idempotency(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> {
    const key = request.headers[IDEMPOTENCY_HEADER];
    if (typeof key !== 'string' || key === '') return;
    const ctx = request.ctx;
    // Responses are sealed under the key's merchant account, which must exist. Authentication
    // checks it for merchant-scoped operations only; instance-wide ones may name any account.
    if (request.routeOptions.config.merchantScoped === false && !(await merchants.exists(ctx.merchantAccountId))) {
      throw forbidden(
        `Merchant account ${ctx.merchantAccountId} does not exist or is not accessible with this credential`,
      );
    }
    const now = Date.now();
    // The crash-safety test shortens the lease (observability/test-faults.ts); production cannot.
    const claim = await newClaim(
      deps,
      request,
      key,
      now,
      deps.config.idempotencyTtlSeconds,
      deps.config.testFaults.idempotencyLeaseMs ?? LEASE_MS,
    );
    // A new key (the common case) is claimed by one insert, with no transaction around it; a key
    // that exists is examined under its row lock.
    const inserted = await repo.insertClaim(deps.db, claim).catch((error: unknown) => {
      throw translatePgError(error);
    });
    const outcome: Outcome = inserted
      ? { kind: 'claimed' }
      : await withTransaction(deps.db, (tx) => claimKey(tx, claim, now));
    switch (outcome.kind) {
      case 'mismatch':
        throw refused(
          'This idempotency-key was already used with other parameters (method, path or body); send a new key for a different request',
          'Key reused with a different request',
          'idempotency_mismatch',
        );
      case 'credentials':
        throw refused(
          'This idempotency-key was already used by a token with other scopes or embed pins; retry with a token like the first, or send a new key',
          'Key reused with different credentials or scopes',
          'idempotency_credentials_mismatch',
        );
      case 'running':
        throw tooEarly('A request with this idempotency-key is still being processed; retry it shortly');
      case 'replay': {
        const body = await deps.vault.decrypt(
          deps.db,
          claim.merchantAccountId,
          outcome.sealed,
          responseBinding({ ...claim, requestHash: outcome.sealedUnder }),
        );
        request.log.info({ operationId: ctx.operationId }, 'idempotent replay');
        // A raw route's answer was stored whole (status, headers, bytes); its errors as usual.
        if (request.routeOptions.config.rawResponse && isEncodedRaw(body)) return sendRaw(reply, decodeRaw(body), true);
        return sendStored(reply, outcome.status, body, true);
      }
      case 'resume':
        ctx.idempotency = createHandle(deps, claim, reply);
        // A route without `resume` runs its handler again, as for any abandoned claim.
        if (request.routeOptions.config.resume) return resume(request, reply, outcome.resourceId);
        return;
      case 'claimed':
        ctx.idempotency = createHandle(deps, claim, reply);
        return;
    }
  };
}

/**
 * Answers a taken-over claim whose request had recorded its resource: the route's `resume` answers
 * for it (finishing a provider call whose answer was never recorded as one without an answer, and
 * storing its answer with that write), with the route's success status, recorded on the key so
 * that later retries replay it. The handler does not run (it would create a second resource and
 * call the connector again; docs/security.md, "Crash safety").
 */
async function resume(request: FastifyRequest, reply: FastifyReply, resourceId: string): Promise<FastifyReply> {
  const ctx = request.ctx;
  const handle = ctx.idempotency as SettleableHandle;
  let recorded: RecordedResponse;
  try {
    const resource = await request.routeOptions.config.resume!(ctx, resourceId, {
      params: request.params,
      body: request.body,
      headers: request.headers,
    });
    // A resume that finished the request's record stored its answer with that write.
    recorded =
      handle.recorded ?? (await withTransaction(ctx.deps.db, (tx) => handle.record(tx, ctx.successStatus, resource)));
  } catch (error) {
    await handle.settle(error);
    throw error;
  }
  handle.recorded = recorded;
  request.log.info({ operationId: ctx.operationId, resourceId }, 'idempotent resume');
  // Marked as replayed: this request did not run, it answers for the one that did.
  return sendStored(reply, recorded.status, recorded.body, true);
}

function createHandle(
  deps: Deps,
  claim: repo.NewClaim,
  reply: FastifyReply,
): IdempotencyHandle & { settle(error: unknown): Promise<void> } {
  /** Seals the body under the merchant account's data key, bound to this row and claim. */
  const seal = (db: Executor, body: string) =>
    deps.vault.encrypt(db, claim.merchantAccountId, body, responseBinding(claim));
  const complete = async (tx: Tx, status: number, body: string) =>
    repo.completeKey(tx, claim, status, await seal(tx, body));
  /** The body a replay sends: the route's serializer for `status`, as the first answer was sent. */
  const serialize = (status: number, result: unknown) =>
    status === 204 || result === undefined
      ? ''
      : (reply.serializeInput(result as Record<string, unknown>, String(status)) as string);
  const handle = {
    recorded: null as RecordedResponse | null,
    async record(tx: Tx, status: number, result: unknown): Promise<RecordedResponse> {
      const body = serialize(status, result);
      await complete(tx, status, body);
      return { status, body };
    },
    async recordWrite(db: Executor, status: number, result: unknown) {
      const body = serialize(status, result);
      return { write: repo.completeKeyQuery(db, claim, status, await seal(db, body)), recorded: { status, body } };
    },
    async recordRaw(tx: Tx, status: number, encoded: string): Promise<RecordedResponse> {
      await complete(tx, status, encoded);
      return { status, body: encoded };
    },
    async bindResource(tx: Tx, resourceId: string): Promise<void> {
      await repo.bindResourceQuery(tx, claim, resourceId).execute();
    },
    bindResourceWrite: (db: Executor, resourceId: string) => repo.bindResourceQuery(db, claim, resourceId),
    /**
     * After a failure: a client error is a completed outcome and is stored (a retry gets the same
     * answer); a server error, a timeout or a rate limit releases the key so a retry runs again
     * (or resumes the resource the request had bound, see `releaseKey`).
     */
    async settle(error: unknown): Promise<void> {
      const rendered = renderError(error, deps.config.bodyLimit);
      const final =
        rendered.status < 500 && rendered.status !== 425 && rendered.status !== 429 && rendered.status !== 422;
      if (final) {
        const body = reply.serializeInput(
          rendered.body as unknown as Record<string, unknown>,
          String(rendered.status),
        ) as string;
        await withTransaction(deps.db, (tx) => complete(tx, rendered.status, body));
      } else {
        await withTransaction(deps.db, (tx) => repo.releaseKey(tx, claim));
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
