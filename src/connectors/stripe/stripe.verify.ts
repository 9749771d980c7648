import type { VerifyOutcome } from '../connector.ts';
import { connectorErrorOf, Stripe } from './stripe.client.ts';

/**
 * Credential checks of stripe-card: the keys' forms first (no call), then one read with the
 * secret key (`GET /v1/balance`): Stripe's 401 means the key is wrong or revoked. Any other
 * failure is technical (the caller answers 502/504), never "the key is wrong".
 */
export async function verifyStripeCredentials(
  credentials: Record<string, string>,
  client: () => Promise<Stripe>,
): Promise<VerifyOutcome> {
  const problems: VerifyOutcome['problems'] = [];
  const key = credentials.secret_key ?? '';
  const mode = /^(sk|rk)_(test|live)_[A-Za-z0-9]+$/.exec(key)?.[2] ?? null;
  if (!mode)
    problems.push({
      key: 'secret_key',
      message: 'secret_key must be a Stripe secret key (sk_test_..., sk_live_...) or restricted key (rk_...)',
    });
  const signing = credentials.webhook_signing_secret;
  if (signing !== undefined && !/^whsec_[A-Za-z0-9+/=]+$/.test(signing))
    problems.push({
      key: 'webhook_signing_secret',
      message: "webhook_signing_secret must be the endpoint's signing secret (whsec_...)",
    });
  const publishable = credentials.publishable_key;
  if (publishable !== undefined && !/^pk_(test|live)_[A-Za-z0-9]+$/.test(publishable))
    problems.push({
      key: 'publishable_key',
      message: 'publishable_key must be a Stripe publishable key (pk_test_... or pk_live_...)',
    });
  else if (publishable !== undefined && mode && !publishable.startsWith(`pk_${mode}_`))
    problems.push({
      key: 'publishable_key',
      message: `publishable_key is a ${mode === 'test' ? 'live' : 'test'} mode key while secret_key is a ${mode} mode key`,
    });
  const multi = credentials.multi_capture_enabled;
  if (multi !== undefined && !['true', 'false'].includes(multi))
    problems.push({ key: 'multi_capture_enabled', message: 'multi_capture_enabled must be "true" or "false"' });
  if (problems.length > 0) return { ok: false, problems };
  try {
    await (await client()).balance.retrieve();
    return { ok: true, problems: [] };
  } catch (error) {
    if (error instanceof Stripe.errors.StripeError && (error.statusCode === 401 || error.statusCode === 403)) {
      return {
        ok: false,
        problems: [{ key: 'secret_key', message: `Stripe refused the secret key (HTTP ${error.statusCode})` }],
      };
    }
    throw connectorErrorOf(error);
  }
}
