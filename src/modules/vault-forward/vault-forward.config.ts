import { privateTargetsSetting } from '../../lib/private-targets.config.ts';
import { ConfigError, customSetting, defineGroup, integerSetting, read } from '../../lib/settings.ts';

/** Vault forwarding (docs/vault-forward.md). */

/** Comma-separated host names, lowercased; `*.` in front covers every subdomain; `*` alone: no ceiling. */
function hostList(raw: string | undefined, name: string): string[] {
  if (raw === undefined) return [];
  const hosts = raw
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== '');
  for (const host of hosts) {
    // `*` alone: no ceiling (the merchant accounts' configs decide).
    if (host === '*') continue;
    if (!/^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(host))
      throw new ConfigError(
        name,
        `must be host names separated by commas (e.g. api.example.com,*.example.net), got "${host}"`,
      );
  }
  return hosts;
}

export const vaultForwardTimeout = integerSetting('VAULT_FORWARD_TIMEOUT_SECONDS', {
  default: 30,
  min: 1,
  max: 120,
  description:
    "Longest a vault forward waits for its target (1 to 120); a caller's `x-vault-forward-timeout` may lower it",
});

export const vaultForwardSettings = defineGroup('Vault forwarding', {
  vaultForwardAllowPrivateUrls: privateTargetsSetting('VAULT_FORWARD_ALLOW_PRIVATE_URLS', 'vault forwarding'),
  vaultForwardAllowedHosts: customSetting(
    {
      name: 'VAULT_FORWARD_ALLOWED_HOSTS',
      default: 'empty',
      description:
        "Production: the instance's ceiling on the hosts `POST /vault-forward` may reach, comma separated (`*.example.com` covers subdomains, `*` alone: no ceiling). A target must be on a host of the merchant account's vault forward configs and within this list; empty refuses every target",
    },
    (env) => hostList(read(env, 'VAULT_FORWARD_ALLOWED_HOSTS'), 'VAULT_FORWARD_ALLOWED_HOSTS'),
  ),
  vaultForwardTimeoutSeconds: vaultForwardTimeout,
  vaultForwardMaxConcurrent: integerSetting('VAULT_FORWARD_MAX_CONCURRENT', {
    default: 10,
    min: 1,
    max: 1000,
    description:
      'Vault forwards running at once per merchant account in each server process (1 to 1000); more answer 429',
  }),
});
