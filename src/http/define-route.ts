import type { FastifyReply, FastifyRequest, HTTPMethods, RouteOptions } from 'fastify';
import { Type, type Static, type TSchema } from 'typebox';
import type { RequestContext } from '../context.ts';
import { withTransaction } from '../db/transaction.ts';
import { IDEMPOTENCY_HEADER, sendRecorded, type SettleableHandle } from './idempotency.ts';
import { encodeRaw, sendRaw, type RawResponse } from './raw-response.ts';
import { MERCHANT_HEADER } from './auth.ts';
import { crashPoint } from '../observability/test-faults.ts';
import type { Scope } from './scopes.ts';

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  headers: FastifyRequest['headers'];
  ctx: RequestContext;
  request: FastifyRequest;
  reply: FastifyReply;
}

type StaticOf<T> = T extends TSchema ? Static<T> : undefined;

/** What a `resume` sees of the retry: the same path and body as the request it answers for (the key's fingerprint). */
export interface ResumeInput<P, B> {
  params: P;
  body: B;
  headers: FastifyRequest['headers'];
}

export interface RouteDefinition<
  P extends TSchema | undefined,
  Q extends TSchema | undefined,
  B extends TSchema | undefined,
  R extends TSchema | null,
> {
  /** camelCase of the file name; also the name in logs and audit entries. */
  operationId: string;
  method: HTTPMethods;
  /** Full path, e.g. `/merchant-accounts/:merchant_account_id`. */
  url: string;
  /** Required scope, or `null` for an operation that needs no bearer token. */
  scope: Scope | null;
  tags: readonly string[];
  summary: string;
  description?: string;
  /** The success status, matched exactly by clients (201 creates, 204 deletes, 200 otherwise). */
  status: 200 | 201 | 204;
  params?: P;
  querystring?: Q;
  body?: B;
  /** An absent body counts as `{}` (operations whose body fields are all optional). */
  bodyOptional?: boolean;
  /** Extra request headers beyond the shared ones. */
  headers?: Record<string, TSchema>;
  response: R;
  /** Accepts `idempotency-key`; default: every POST. */
  idempotent?: boolean;
  /** Sends and checks `x-svc-merchant-account-id`; default true. */
  merchantScoped?: boolean;
  /** Also answers 204 with no body when the handler returns null (an operation whose spec allows 201 or 204). */
  noContentWhenNull?: boolean;
  /** Open to `embed` tokens; the token's pinned values apply to the body (see http/embed.ts). */
  embed?: boolean;
  /** Rate limited for embed tokens and checkout sessions (enumeration prevention). */
  enumerationLimited?: boolean;
  /**
   * `checkout-session`: the session id in the path is the credential instead of a bearer token;
   * `transaction-session`: the transaction's session token in `?token=` is.
   */
  credential?: 'bearer' | 'checkout-session' | 'transaction-session';
  /**
   * The handler returns a `RawResponse` (http/raw-response.ts) sent as it is: status, headers and
   * bytes from elsewhere; `response` then only documents it. Idempotent replays send it again.
   */
  rawResponse?: boolean;
  /**
   * The answer for the resource a request bound to its idempotency key (`ctx.idempotency.bindResource`).
   * A retry that takes over the claim of a request which died (or failed with a 5xx) after binding
   * answers with it instead of running the handler again; it never calls a provider, and records a
   * call whose answer the request never recorded as one without an answer (connectors/call.ts,
   * `UNANSWERED`), storing its answer with that write.
   */
  resume?: (
    ctx: RequestContext,
    resourceId: string,
    input: ResumeInput<StaticOf<P>, StaticOf<B>>,
  ) => Promise<R extends TSchema ? Static<R> : void>;
  /** Returns the response body; null only with `noContentWhenNull`. */
  handler: (
    input: RouteInput<StaticOf<P>, StaticOf<Q>, StaticOf<B>>,
  ) => Promise<R extends TSchema ? Static<R> | null : void>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    operationId?: string;
    scope?: string | null;
    idempotent?: boolean;
    merchantScoped?: boolean;
    successStatus?: number;
    rawResponse?: boolean;
    resume?: (ctx: RequestContext, resourceId: string, input: ResumeInput<any, any>) => Promise<unknown>;
  }
}

const ERROR_REF = Type.Ref('Error');
const VALIDATION_REF = Type.Ref('HTTPValidationError');

/** Every operation can answer these (spec "Errors"). */
export const ERROR_RESPONSES: Record<number, TSchema> = {
  400: ERROR_REF,
  401: ERROR_REF,
  403: ERROR_REF,
  404: ERROR_REF,
  405: ERROR_REF,
  409: ERROR_REF,
  422: VALIDATION_REF,
  425: ERROR_REF,
  429: ERROR_REF,
  500: ERROR_REF,
  502: ERROR_REF,
  504: ERROR_REF,
};

/** A raw route's answer, recorded for replays unless the service recorded it with its own write. */
async function sendRawResult(ctx: RequestContext, reply: FastifyReply, raw: RawResponse): Promise<FastifyReply> {
  if (ctx.idempotency && !ctx.idempotency.recorded) {
    const encoded = encodeRaw(raw);
    ctx.idempotency.recorded = await withTransaction(ctx.deps.db, (tx) =>
      ctx.idempotency!.recordRaw(tx, raw.status, encoded),
    );
  }
  return sendRaw(reply, raw);
}

/** Builds the Fastify route of an operation: schemas, shared error responses, scope, idempotency. */
export function defineRoute<
  P extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  B extends TSchema | undefined = undefined,
  R extends TSchema | null = null,
>(def: RouteDefinition<P, Q, B, R>): RouteOptions {
  const idempotent = def.idempotent ?? def.method === 'POST';
  const merchantScoped = def.merchantScoped ?? true;
  const headerProps: Record<string, TSchema> = { ...def.headers };
  if (merchantScoped && def.scope !== null) {
    headerProps[MERCHANT_HEADER] = Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: "The merchant account the request acts on (default: the credential's account, else `default`)",
      }),
    );
  }
  if (idempotent) {
    headerProps[IDEMPOTENCY_HEADER] = Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 255,
        description: 'Makes the request idempotent for 24 hours; a random value such as a UUIDv4',
      }),
    );
  }
  const success = def.response === null ? Type.Null({ description: 'No Content' }) : def.response;
  const schema = {
    operationId: def.operationId,
    tags: [...def.tags],
    summary: def.summary,
    ...(def.description ? { description: def.description } : {}),
    ...(def.scope === null ? { security: [] } : {}),
    ...(def.params ? { params: def.params } : {}),
    ...(def.querystring ? { querystring: def.querystring } : {}),
    ...(def.body ? { body: def.body } : {}),
    ...(Object.keys(headerProps).length > 0 ? { headers: Type.Object(headerProps) } : {}),
    response: {
      [def.status]: success,
      ...(def.noContentWhenNull ? { 204: Type.Null({ description: 'No Content' }) } : {}),
      ...(def.scope === null && (def.credential ?? 'bearer') === 'bearer' ? {} : ERROR_RESPONSES),
    },
  };

  return {
    method: def.method,
    url: def.url,
    schema,
    config: {
      operationId: def.operationId,
      scope: def.scope,
      idempotent,
      merchantScoped,
      successStatus: def.status,
      embed: def.embed ?? false,
      enumerationLimited: def.enumerationLimited ?? false,
      credential: def.credential ?? 'bearer',
      rawResponse: def.rawResponse ?? false,
      ...(def.resume ? { resume: def.resume } : {}),
    },
    ...(def.bodyOptional
      ? {
          preValidation: async (request: FastifyRequest) => {
            if (request.body === undefined || request.body === null) request.body = {};
          },
        }
      : {}),
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const ctx = request.ctx;
      try {
        const result = await def.handler({
          params: request.params as never,
          query: request.query as never,
          body: request.body as never,
          headers: request.headers,
          ctx,
          request,
          reply,
        });
        if (def.rawResponse) return await sendRawResult(ctx, reply, result as unknown as RawResponse);
        const status = def.noContentWhenNull && result === null ? 204 : def.status;
        if (ctx.idempotency) {
          if (!ctx.idempotency.recorded) {
            // The service did not record the response with its own write (read-only outcome): record it now.
            ctx.idempotency.recorded = await withTransaction(ctx.deps.db, (tx) =>
              ctx.idempotency!.record(tx, status, result),
            );
          }
          crashPoint('after-answer', def.operationId);
          return sendRecorded(reply, ctx.idempotency.recorded);
        }
        crashPoint('after-answer', def.operationId);
        reply.code(status);
        return status === 204 ? reply.send() : result;
      } catch (error) {
        if (ctx.idempotency) await (ctx.idempotency as SettleableHandle).settle(error);
        throw error;
      }
    },
  };
}
