import { ConfigError, customSetting, defineGroup, read, type Env, type Environment } from '../lib/settings.ts';

/**
 * Real connectors' provider hosts. The overrides are for local fakes and sandboxes: production
 * always talks to the provider's own host, and an override there is a configuration error, not a
 * silent redirect of card data.
 */

/** `id=url,id=url`: base URLs replacing the providers' for the sandbox; production refuses any. */
function connectorBaseUrls(env: Env, environment: Environment): Record<string, string> {
  const name = 'CONNECTOR_BASE_URLS';
  const raw = read(env, name);
  if (raw === undefined || raw.trim() === '') return {};
  if (environment === 'production')
    throw new ConfigError(
      name,
      "is for tests and sandboxes only: in production connectors talk to their providers' own hosts",
    );
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  return Object.fromEntries(
    entries.map((entry) => {
      const at = entry.indexOf('=');
      const id = entry.slice(0, at).trim();
      const url = entry.slice(at + 1).trim();
      if (at <= 0 || !/^[a-z0-9]+(-[a-z0-9_]+)+$/.test(id) || !/^https?:\/\/[^\s]+$/.test(url))
        throw new ConfigError(name, `must be <definition id>=<http(s) URL> pairs separated by commas, got "${entry}"`);
      return [id, url];
    }),
  );
}

/** A provider API base URL override (a local fake or a sandbox proxy); its origin. */
function providerBaseUrl(env: Env, name: string, environment: Environment): string | null {
  const value = read(env, name);
  if (value === undefined) return null;
  if (environment === 'production')
    throw new ConfigError(name, "is for tests and the sandbox only; production calls the provider's own API host");
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, `is not a valid URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(name, `must be an http(s) URL, got "${value}"`);
  return url.origin;
}

export const connectorSettings = defineGroup('Connectors', {
  /** Definition id → base URL replacing the provider's (Adyen, Braintree), for local fakes and sandboxes only. Empty: the providers' own hosts. */
  connectorBaseUrls: customSetting(
    {
      name: 'CONNECTOR_BASE_URLS',
      default: 'empty',
      description:
        "Sandbox and tests only (refused in production): `<definition id>=<base URL>` pairs, comma separated, replacing a real provider's base URL, e.g. `adyen-card=http://127.0.0.1:9000/v71,braintree-card=http://127.0.0.1:9001/graphql` for local fakes. Without it, real connectors reach only their providers' own `https` hosts",
    },
    connectorBaseUrls,
  ),
  /** Sandbox/tests only: where the stripe-card connector sends its API calls instead of https://api.stripe.com. */
  stripeApiBaseUrl: customSetting(
    {
      name: 'STRIPE_API_BASE_URL',
      default: 'unset',
      description:
        'Sandbox and tests only: where `stripe-card` payment services send their Stripe API calls (a local fake or proxy) instead of `https://api.stripe.com`. Refused at start in production',
    },
    (env, environment) => providerBaseUrl(env, 'STRIPE_API_BASE_URL', environment),
  ),
});
