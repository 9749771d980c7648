import { isIP } from 'node:net';

/**
 * Host patterns of vault forwarding: the hosts of a config (exact names or `*.example.com`, which
 * covers subdomains but not the apex) and the instance-wide ceiling `VAULT_FORWARD_ALLOWED_HOSTS`
 * (the same patterns, or `*` for no ceiling). Pure.
 */

const HOST_NAME = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

export function hostMatches(host: string, pattern: string): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (pattern === '*') return true;
  return pattern.startsWith('*.') ? name.endsWith(pattern.slice(1)) : name === pattern;
}

export const anyMatches = (host: string, patterns: readonly string[]) => patterns.some((p) => hostMatches(host, p));

/** Whether every host a config pattern can cover is within a ceiling pattern. */
export function patternWithin(pattern: string, ceiling: string): boolean {
  if (ceiling === '*' || pattern === ceiling) return true;
  if (!ceiling.startsWith('*.')) return false;
  const name = pattern.startsWith('*.') ? pattern.slice(2) : pattern;
  return name.endsWith(ceiling.slice(1));
}

/**
 * Why a merchant's host pattern cannot be stored, or null. IP addresses and local names only where
 * private targets are allowed (the sandbox with VAULT_FORWARD_ALLOW_PRIVATE_URLS=true).
 */
export function hostPatternProblem(pattern: string, allowPrivate: boolean): string | null {
  const ip = isIP(pattern.replace(/^\[|\]$/g, '')) !== 0;
  if (ip) return allowPrivate ? null : 'is an IP address: list host names (IP addresses only in the sandbox with VAULT_FORWARD_ALLOW_PRIVATE_URLS=true)';
  if (!HOST_NAME.test(pattern)) return 'is not a host name or a *.domain pattern (lower case, no scheme, port or path)';
  if (!pattern.includes('.') && pattern !== 'localhost') return 'must be a fully qualified host name';
  if (pattern.startsWith('*.') && !pattern.slice(2).includes('.')) return 'is a wildcard over a whole top-level domain: name at least the domain (*.example.com)';
  const local = pattern === 'localhost' || pattern.endsWith('.localhost');
  if (local && !allowPrivate) return 'is a local name (allowed only in the sandbox with VAULT_FORWARD_ALLOW_PRIVATE_URLS=true)';
  return null;
}
