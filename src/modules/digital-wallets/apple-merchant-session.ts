import { createHash, createHmac } from 'node:crypto';
import { AppError, fieldRefusal } from '../../errors/app-error.ts';
import { resolveDeliveryAddress } from '../../lib/url-safety.ts';
import { relay, RelayError } from '../../lib/relay.ts';

/**
 * Apple Pay merchant validation (https://developer.apple.com/documentation/applepayontheweb/requesting-an-apple-pay-payment-session):
 * in production a POST to the validation URL Apple gave the browser, over mutual TLS with the
 * merchant identity certificate, through the SSRF-checked relay (only Apple's gateway hosts are
 * accepted); its answer is passed through as is. In the sandbox a simulated session of the same
 * shape, deterministic for its inputs and marked `simulated`, expiring after five minutes as Apple's does.
 */

/** Apple's published Apple Pay gateway hosts (production pods, China pods, and the sandbox "cert" hosts). */
const APPLE_GATEWAY = /^(cn-)?apple-pay-gateway(-(nc|pr)-pod[1-5]|-(sh|tj)-pod[1-3]|-cert)?\.apple\.com$/;
const TIMEOUT_MS = 10_000;
// An Apple merchant session is about 2 kB; anything much larger is not one.
const MAX_ANSWER_BYTES = 64 * 1024;

export interface MerchantSessionRequest {
  validationUrl: string;
  domainName: string;
  merchantIdentifier: string;
  displayName: string;
  /** Wallet id: seeds the simulated session. */
  walletId: string;
}

/** Refuses a validation URL that is not https on one of Apple's gateway hosts. */
export function checkValidationUrl(raw: string): URL {
  const url = new URL(raw);
  if (
    url.protocol !== 'https:' ||
    !APPLE_GATEWAY.test(url.hostname) ||
    url.port !== '' ||
    url.username ||
    url.password
  ) {
    throw fieldRefusal(
      'body',
      '/validation_url',
      'Not an Apple Pay gateway URL',
      'value_error',
      "validation_url must be an https URL on one of Apple's Apple Pay gateway hosts (apple-pay-gateway*.apple.com), as given by onvalidatemerchant",
    );
  }
  return url;
}

/** The simulated session of the sandbox (docs/digital-wallets.md). */
export function simulatedMerchantSession(req: MerchantSessionRequest, now: Date): Record<string, unknown> {
  const seed = `${req.walletId}:${req.domainName}:${req.validationUrl}:${now.getTime()}`;
  const digest = (label: string) =>
    createHmac('sha256', 'svc sandbox apple pay sessions').update(`${label}:${seed}`).digest();
  return {
    epochTimestamp: now.getTime(),
    expiresAt: now.getTime() + 5 * 60_000,
    merchantSessionIdentifier: `SSH${digest('id').toString('hex').slice(0, 32).toUpperCase()}_SANDBOX`,
    nonce: digest('nonce').toString('hex').slice(0, 8),
    merchantIdentifier: createHash('sha256').update(req.merchantIdentifier).digest('hex').toUpperCase(),
    domainName: req.domainName,
    displayName: req.displayName,
    signature: digest('signature').toString('base64'),
    operationalAnalyticsIdentifier: `${req.displayName}:${createHash('sha256').update(req.merchantIdentifier).digest('hex').slice(0, 16).toUpperCase()}`,
    retries: 0,
    pspId: createHash('sha256').update(req.merchantIdentifier).digest('hex').toUpperCase(),
    simulated: true,
  };
}

/** Requests the merchant session from Apple over mutual TLS; Apple's answer is passed through. */
export async function requestMerchantSession(
  req: MerchantSessionRequest,
  identity: { cert: string; key: string },
): Promise<Record<string, unknown>> {
  const url = checkValidationUrl(req.validationUrl);
  const target = await resolveDeliveryAddress(url.toString(), {
    production: true,
    allowPrivate: false,
    hostNamesOnly: true,
  });
  if (!target.ok) throw new AppError('bad_request', `validation_url cannot be reached safely: ${target.problem}`);
  const body = JSON.stringify({
    merchantIdentifier: req.merchantIdentifier,
    displayName: req.displayName,
    initiative: 'web',
    initiativeContext: req.domainName,
  });
  try {
    const answer = await relay({
      url,
      address: target.address,
      family: target.family,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      timeoutMs: TIMEOUT_MS,
      connectTimeoutMs: 5_000,
      maxResponseBytes: MAX_ANSWER_BYTES,
      tls: identity,
    });
    const parsed = answer.status === 200 ? (JSON.parse(answer.body.toString('utf8')) as unknown) : null;
    if (parsed && typeof parsed === 'object') return parsed as Record<string, unknown>;
    throw new AppError(
      'bad_gateway',
      `Apple refused the merchant validation (HTTP ${answer.status}); check the merchant identity certificate and that ${req.domainName} is verified for the merchant identifier`,
    );
  } catch (error) {
    if (error instanceof RelayError)
      throw new AppError(
        error.kind === 'timeout' ? 'gateway_timeout' : 'bad_gateway',
        `Apple's merchant validation could not be completed: ${error.message}`,
      );
    if (error instanceof SyntaxError)
      throw new AppError('bad_gateway', 'Apple answered the merchant validation with something that is not JSON');
    throw error;
  }
}
