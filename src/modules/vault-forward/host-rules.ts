import { BlockList, isIP } from 'node:net';
import type { PrivateTargets } from '../../lib/url-safety.ts';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

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
 * Why a merchant's host pattern cannot be stored, or null. Loopback addresses and local names in
 * the sandbox (unless VAULT_FORWARD_ALLOW_PRIVATE_URLS=false), other IP addresses only in the
 * sandbox with VAULT_FORWARD_ALLOW_PRIVATE_URLS=true; production: `none`.
 */
export function hostPatternProblem(pattern: string, allowed: PrivateTargets): string | null {
  const address = pattern.replace(/^\[|\]$/g, '');
  if (isIP(address) !== 0) {
    if (allowed === 'all' || (allowed === 'loopback' && LOOPBACK.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4')))
      return null;
    return `is an IP address: list host names (${allowed === 'loopback' ? 'loopback addresses in the sandbox, others' : 'IP addresses'} only in the sandbox with VAULT_FORWARD_ALLOW_PRIVATE_URLS=true)`;
  }
  if (!HOST_NAME.test(pattern)) return 'is not a host name or a *.domain pattern (lower case, no scheme, port or path)';
  if (!pattern.includes('.') && pattern !== 'localhost') return 'must be a fully qualified host name';
  if (pattern.startsWith('*.') && !pattern.slice(2).includes('.'))
    return 'is a wildcard over a whole top-level domain: name at least the domain (*.example.com)';
  const local = pattern === 'localhost' || pattern.endsWith('.localhost');
  if (local && allowed === 'none')
    return 'is a local name (allowed only in the sandbox, unless VAULT_FORWARD_ALLOW_PRIVATE_URLS=false)';
  return null;
}
