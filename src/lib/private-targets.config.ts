import { ConfigError, customSetting, read, type Setting } from './settings.ts';
import type { PrivateTargets } from './url-safety.ts';

/**
 * `*_ALLOW_PRIVATE_URLS`: `true` (every private address, sandbox), `loopback` (the default: this
 * machine only), `false` (none, e.g. a sandbox shared over a network). Production: none, whatever it says.
 */
export function privateTargetsSetting(name: string, what: string): Setting<PrivateTargets> {
  const description = `Sandbox only: ${what} may use \`http\` and loopback addresses (127.0.0.0/8, \`::1\`, \`localhost\`) by default (\`loopback\`); \`true\` also allows private, link-local and reserved addresses, \`false\` none (a sandbox reached over a network). Production refuses them all whatever it says`;
  return customSetting({ name, default: '`loopback`', description }, (env, environment) => {
    const raw = read(env, name);
    if (raw !== undefined && !['true', '1', 'false', '0', 'loopback'].includes(raw))
      throw new ConfigError(name, `must be true, false or loopback, got "${raw}"`);
    if (environment === 'production') return 'none';
    return raw === undefined || raw === 'loopback' ? 'loopback' : raw === 'true' || raw === '1' ? 'all' : 'none';
  });
}
