import { createHmac } from 'node:crypto';

/**
 * The `x-svc-webhook-signatures` value: the hex HMAC-SHA256 of `<timestamp>.<raw body>` keyed by
 * each valid signing secret, comma-separated (two while a secret rotates). The timestamp is signed
 * so a captured request cannot be replayed later than the receiver's tolerance.
 */
export function signatures(secrets: string[], timestamp: number, body: string): string {
  return secrets.map((secret) => createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')).join(',');
}
