import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The `x-svc-webhook-signatures` value: the hex HMAC-SHA256 of `<timestamp>.<raw body>` keyed by
 * each valid signing secret, comma-separated (two while a secret rotates). The timestamp is signed
 * so a captured request cannot be replayed later than the receiver's tolerance.
 */
export function signatures(secrets: string[], timestamp: number, body: string): string {
  return secrets.map((secret) => createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')).join(',');
}

/** How far a signed timestamp may be from the receiver's clock (replay protection), in seconds. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * A receiver's check (what docs/webhooks.md shows integrators): one of the comma-separated signatures
 * matches `secret` over `<timestamp>.<raw body>`, compared in constant time, and the timestamp is
 * within the tolerance. Returns why it fails, or null when the request is genuine.
 */
export function verifySignatures(
  secret: string,
  timestampHeader: string | undefined,
  signaturesHeader: string | undefined,
  rawBody: string,
  now = Date.now(),
): string | null {
  const timestamp = Number(timestampHeader);
  if (!Number.isInteger(timestamp)) return 'no x-svc-webhook-timestamp header';
  if (Math.abs(now / 1000 - timestamp) > SIGNATURE_TOLERANCE_SECONDS)
    return `timestamp ${timestamp} is more than ${SIGNATURE_TOLERANCE_SECONDS} s away from this clock`;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest();
  const matches = (signaturesHeader ?? '').split(',').some((signature) => {
    const given = Buffer.from(signature.trim(), 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return matches ? null : 'no signature matches the subscription secret';
}
