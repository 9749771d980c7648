import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * `X-RISKIFIED-HMAC-SHA256`: the hex HMAC-SHA256 of the exact request body under the shop's
 * authentication token (apiref.riskified.com, "Authentication"). Riskified signs its decision
 * notifications the same way.
 */
export function riskifiedSignature(authToken: string, body: string): string {
  return createHmac('sha256', authToken).update(body, 'utf8').digest('hex');
}

export function riskifiedSignatureValid(authToken: string, body: string, signature: string): boolean {
  const expected = Buffer.from(riskifiedSignature(authToken, body), 'utf8');
  const given = Buffer.from(signature, 'utf8');
  return expected.length === given.length && timingSafeEqual(expected, given);
}
