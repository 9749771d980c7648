import type { IncomingHttpHeaders } from 'node:http';
import type { RequestContext } from '../../context.ts';
import { withTransaction } from '../../db/transaction.ts';
import { AppError, fieldRefusal, tooManyRequests } from '../../errors/app-error.ts';
import { encodeRaw, type RawResponse } from '../../http/raw-response.ts';
import { uuidv7 } from '../../lib/ids.ts';
import { recordAudit } from '../audit-logs/audit-logs.service.ts';
import { consumeCheckoutSessionCard } from '../checkout-sessions/checkout-sessions.service.ts';
import { lockAndReleaseCard } from '../payment-methods/payment-methods.service.ts';
import { HOP_BY_HOP, readForwardRequest, refuseHeader, type ForwardRequest } from './forward-request.ts';
import {
  fillPlaceholders,
  maskCardNumbers,
  PlaceholderError,
  placeholdersOf,
  type CheckedBody,
  type ForwardCard,
} from './placeholders.ts';
import {
  applyAuthentications,
  loadAuthentications,
  type ForwardAuthentication,
  type Outgoing,
} from './forward-authentications.ts';
import { checkedTarget, type CheckedTarget } from './forward-target.ts';
import { decodedAnswer, UndecodableAnswer } from './answer-encoding.ts';
import { relay, RelayError } from '../../lib/relay.ts';
import * as configsRepo from './vault-forward-configs.repo.ts';

/** The largest answer passed back (and kept for replays); a target answering more gets a 502. */
export const MAX_RESPONSE_BYTES = 1024 * 1024;
/** A target that takes no connection within this is down or drops packets. */
const CONNECT_TIMEOUT_MS = 5_000;

const running = new Map<string, number>();

/** The cards of `x-vault-forward-payment-methods`, in order; each refusal names the position and the id. */
async function cardsOf(ctx: RequestContext, ids: readonly string[]): Promise<ForwardCard[]> {
  const cards: ForwardCard[] = [];
  for (const [i, id] of ids.entries()) {
    try {
      const card = await lockAndReleaseCard(ctx.deps.db, ctx, id, { lock: false });
      cards.push({ number: card.number, expirationDate: card.expirationDate, holderName: null, securityCode: null });
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const why =
        error.code === 'not_found'
          ? 'no such payment method in this merchant account'
          : 'not a stored card that can be used';
      throw refuseHeader(
        'x-vault-forward-payment-methods',
        `x-vault-forward-payment-methods: payment method ${i + 1} (${id}): ${why}`,
        error.code === 'not_found' ? 'not_found' : 'value_error',
      );
    }
  }
  return cards;
}

/**
 * `x-vault-forward-checkout-session`: the security code a checkout session holds for one of the
 * forwarded stored cards goes to that card's `CARD_SECURITY_CODE_n`; the session gives up its card
 * data and code (used once), as a payment does.
 */
async function takeSecurityCode(ctx: RequestContext, request: ForwardRequest, cards: ForwardCard[]): Promise<void> {
  const header = 'x-vault-forward-checkout-session';
  try {
    // A refusal below rolls the taking back: the session keeps its card data and code.
    await withTransaction(ctx.deps.db, async (tx) => {
      const held = await consumeCheckoutSessionCard(tx, ctx, request.checkoutSessionId!);
      if (held.method !== 'id')
        throw refuseHeader(
          header,
          `${header}: the checkout session holds a card that is not stored; store it (POST /payment-methods with the checkout session) and forward the stored card`,
        );
      const index = request.paymentMethodIds.indexOf(held.paymentMethodId.toLowerCase());
      if (index < 0)
        throw refuseHeader(
          header,
          `${header}: the checkout session holds the security code of payment method ${held.paymentMethodId}, which x-vault-forward-payment-methods does not list`,
        );
      if (held.securityCode === null)
        throw refuseHeader(header, `${header}: the checkout session holds no security code`);
      cards[index]!.securityCode = held.securityCode;
    });
  } catch (error) {
    if (error instanceof AppError && error.status < 500 && !error.details.some((d) => d.pointer === `/${header}`))
      throw refuseHeader(header, `${header}: ${error.message}`, error.code);
    throw error;
  }
}

/** A refusal of the body's placeholders as a 400 at the body. */
function refusingPlaceholders<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof PlaceholderError) throw fieldRefusal('body', '', error.message, 'placeholder');
    throw error;
  }
}

/** The body as text with its placeholders found and checked (null when nothing is sent): read once, filled later. */
function checkedBody(request: ForwardRequest, body: unknown, cardCount: number): CheckedBody | null {
  if (body === undefined || body === null || request.method === 'GET') return null;
  const text = JSON.stringify(body);
  return { text, placeholders: refusingPlaceholders(() => placeholdersOf(text, cardCount)) };
}

/**
 * The target's answer for the caller: its hop-by-hop headers dropped, its body decoded when the
 * target compressed it anyway (then passed back uncompressed), every forwarded card number masked.
 */
function answerOf(
  status: number,
  headers: IncomingHttpHeaders,
  body: Buffer,
  cards: readonly ForwardCard[],
): RawResponse {
  const decoded = decodedAnswer(headers['content-encoding'], body, MAX_RESPONSE_BYTES);
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || (decoded && name === 'content-encoding')) continue;
    kept[name] = Array.isArray(value) ? value.map((v) => maskCardNumbers(v, cards)) : maskCardNumbers(value, cards);
  }
  // Digits are ASCII in any ASCII-compatible encoding: latin1 keeps every other byte as it was.
  return {
    status,
    headers: kept,
    body: Buffer.from(maskCardNumbers((decoded ?? body).toString('latin1'), cards), 'latin1'),
  };
}

/** The request as it leaves: the forwarded headers, the body filled, then each authentication method applied in order. */
async function outgoingOf(
  request: ForwardRequest,
  target: CheckedTarget,
  payload: string | null,
  authentications: readonly ForwardAuthentication[],
): Promise<Outgoing> {
  const out: Outgoing = {
    method: request.method,
    url: target.url,
    // Uncompressed, so that an echoed card number can be found and masked.
    headers: {
      ...request.headers,
      ...(payload !== null ? { 'content-type': 'application/json' } : {}),
      'accept-encoding': 'identity',
    },
    body: payload,
    tls: null,
  };
  await applyAuthentications(out, authentications);
  return out;
}

/** One relay under the merchant account's concurrency cap; the answer masked, a failure as 502 or 504. */
async function send(
  ctx: RequestContext,
  target: CheckedTarget,
  out: Outgoing,
  timeoutSeconds: number,
  cards: readonly ForwardCard[],
): Promise<RawResponse> {
  const count = running.get(ctx.merchantAccountId) ?? 0;
  if (count >= ctx.deps.config.vaultForwardMaxConcurrent) throw tooManyRequests(1);
  running.set(ctx.merchantAccountId, count + 1);
  try {
    const response = await relay({
      url: out.url,
      address: target.address,
      family: target.family,
      method: out.method,
      headers: out.headers,
      body: out.body,
      tls: out.tls,
      timeoutMs: timeoutSeconds * 1000,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      maxResponseBytes: MAX_RESPONSE_BYTES,
    });
    return answerOf(response.status, response.headers, response.body, cards);
  } catch (error) {
    if (!(error instanceof RelayError || error instanceof UndecodableAnswer)) throw error;
    throw new AppError(
      error instanceof RelayError && error.kind === 'timeout' ? 'gateway_timeout' : 'bad_gateway',
      `The target ${target.url.host} did not answer usably: ${error.message}`,
    );
  } finally {
    const left = (running.get(ctx.merchantAccountId) ?? 1) - 1;
    if (left === 0) running.delete(ctx.merchantAccountId);
    else running.set(ctx.merchantAccountId, left);
  }
}

function auditName(request: ForwardRequest, target: CheckedTarget, status: number): string {
  const pms = request.paymentMethodIds.length ? ` (payment methods ${request.paymentMethodIds.join(', ')})` : '';
  const auths = request.authenticationIds.length
    ? ` (authentication methods ${request.authenticationIds.join(', ')})`
    : '';
  return `${request.method} ${target.url.host} → ${status}${pms}${auths}`;
}

/**
 * `POST /vault-forward`: the caller's JSON body, placeholders replaced with stored card data, sent
 * to the target with the named authentication methods applied; the target's answer comes back
 * (masked). Every refusal comes before anything is sent. The card data and the methods' secrets
 * are in memory for this one call only. The audit entry and the idempotent answer are written
 * together after it.
 */
export async function forwardRequest(
  ctx: RequestContext,
  headers: IncomingHttpHeaders,
  body: unknown,
): Promise<RawResponse> {
  const { config } = ctx.deps;
  const request = readForwardRequest(headers, config.vaultForwardTimeoutSeconds);
  const configs = await configsRepo.allConfigs(ctx.deps.db, ctx.merchantAccountId);
  const target = await checkedTarget(ctx, request.url, configs);
  const hasBody = body !== undefined && body !== null && request.method !== 'GET';
  const authentications = await loadAuthentications(ctx, request.authenticationIds, target.url, hasBody, configs);
  const cards = await cardsOf(ctx, request.paymentMethodIds);
  // Checked before a checkout session's security code is taken (it can be taken once only).
  const payload = checkedBody(request, body, cards.length);
  if (request.checkoutSessionId) await takeSecurityCode(ctx, request, cards);
  const filled = payload && refusingPlaceholders(() => fillPlaceholders(payload.text, cards, payload.placeholders));
  const out = await outgoingOf(request, target, filled, authentications);
  const answer = await send(ctx, target, out, request.timeoutSeconds ?? config.vaultForwardTimeoutSeconds, cards);
  await withTransaction(ctx.deps.db, async (tx) => {
    await recordAudit(tx, ctx, 'created', {
      type: 'vault-forward',
      id: uuidv7(),
      name: auditName(request, target, answer.status),
    });
    if (ctx.idempotency)
      ctx.idempotency.recorded = await ctx.idempotency.recordRaw(tx, answer.status, encodeRaw(answer));
  });
  return answer;
}
