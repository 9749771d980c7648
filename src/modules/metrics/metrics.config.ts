import { ConfigError, customSetting, defineGroup, read } from '../../lib/settings.ts';

/** `GET /metrics` (docs/ops): its bearer token. */

export const metricsSettings = defineGroup('Metrics', {
  /** A shared secret for Prometheus: long enough not to be guessed, printable so it fits a header; null leaves the endpoint off (404). */
  metricsToken: customSetting(
    {
      name: 'METRICS_TOKEN',
      secret: true,
      default: 'unset',
      description:
        'Bearer token of `GET /metrics` (32 to 512 printable characters: `openssl rand -hex 32`); unset, the endpoint answers 404',
    },
    (env) => {
      const raw = read(env, 'METRICS_TOKEN');
      if (raw === undefined) return null;
      if (!/^[\x21-\x7e]{32,512}$/.test(raw))
        throw new ConfigError(
          'METRICS_TOKEN',
          'must be 32 to 512 printable characters without spaces (for example: openssl rand -hex 32)',
        );
      return raw;
    },
  ),
});
