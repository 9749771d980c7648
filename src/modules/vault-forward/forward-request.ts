import type { IncomingHttpHeaders } from 'node:http';
import { fieldRefusal } from '../../errors/app-error.ts';

/**
 * The control headers of `POST /vault-forward` (specification, "POST /vault-forward"), read and
 * checked. Pure. Each refusal names the header and why.
 */

export interface ForwardRequest {
  url: string;
  method: string;
  /** `x-vault-forward-header-<name>` → `<name>` toward the target. */
  headers: Record<string, string>;
  paymentMethodIds: string[];
  authenticationIds: string[];
  /** Seconds, when the caller asks for less than the server's bound. */
  timeoutSeconds: number | null;
  /** `x-vault-forward-checkout-session`: a session holding the security code of one of the payment methods. */
  checkoutSessionId: string | null;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PREFIX = 'x-vault-forward-header-';
export const MAX_PAYMENT_METHODS = 10;

/** Headers never forwarded from the caller: they describe the connection, or the target's host, or are set by the relay. */
const NOT_FORWARDED = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'accept-encoding',
  'expect',
]);

/** A 400 naming the control header and what is wrong with it. */
export const refuseHeader = (header: string, message: string, type = 'value_error') =>
  fieldRefusal('header', `/${header}`, message, type);

const one = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
};

const ids = (headers: IncomingHttpHeaders, name: string): string[] => {
  const raw = one(headers, name);
  if (raw === undefined || raw.trim() === '') return [];
  const list = raw.split(',').map((s) => s.trim());
  const bad = list.find((id) => !UUID.test(id));
  if (bad !== undefined)
    throw refuseHeader(name, `${name} must list ids (UUIDs) separated by commas; "${bad}" is not one`);
  return list.map((id) => id.toLowerCase());
};

export function readForwardRequest(headers: IncomingHttpHeaders, maxTimeoutSeconds: number): ForwardRequest {
  const url = one(headers, 'x-vault-forward-url');
  if (!url)
    throw refuseHeader(
      'x-vault-forward-url',
      'x-vault-forward-url is required: the address to forward the request to',
      'missing',
    );
  const method = (one(headers, 'x-vault-forward-http-method') ?? 'POST').toUpperCase();
  if (!(METHODS as readonly string[]).includes(method))
    throw refuseHeader(
      'x-vault-forward-http-method',
      `x-vault-forward-http-method must be one of ${METHODS.join(', ')}`,
    );
  const forwarded: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith(PREFIX) || value === undefined) continue;
    const target = name.slice(PREFIX.length);
    if (target === '' || NOT_FORWARDED.has(target))
      throw refuseHeader(name, `${name}: the header ${target || '(empty)'} cannot be forwarded`);
    forwarded[target] = Array.isArray(value) ? value.join(', ') : value;
  }
  const paymentMethodIds = ids(headers, 'x-vault-forward-payment-methods');
  if (paymentMethodIds.length > MAX_PAYMENT_METHODS)
    throw refuseHeader(
      'x-vault-forward-payment-methods',
      `x-vault-forward-payment-methods may list at most ${MAX_PAYMENT_METHODS} payment methods`,
    );
  const timeout = one(headers, 'x-vault-forward-timeout');
  let timeoutSeconds: number | null = null;
  if (timeout !== undefined) {
    if (!/^\d+$/.test(timeout) || Number(timeout) < 1 || Number(timeout) > maxTimeoutSeconds)
      throw refuseHeader(
        'x-vault-forward-timeout',
        `x-vault-forward-timeout must be whole seconds from 1 to ${maxTimeoutSeconds}`,
      );
    timeoutSeconds = Number(timeout);
  }
  const sessions = ids(headers, 'x-vault-forward-checkout-session');
  if (sessions.length > 1)
    throw refuseHeader(
      'x-vault-forward-checkout-session',
      'x-vault-forward-checkout-session names one checkout session',
    );
  return {
    url,
    method,
    headers: forwarded,
    paymentMethodIds,
    authenticationIds: ids(headers, 'x-vault-forward-authentications'),
    timeoutSeconds,
    checkoutSessionId: sessions[0] ?? null,
  };
}

/** Response headers of the target that describe its connection to us, not its answer. */
export const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'trailers',
  'transfer-encoding',
  'upgrade',
  'content-length',
]);
