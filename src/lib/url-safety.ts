import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Which addresses a webhook may be sent to. Outside the sandbox's explicit allowance, delivery
 * never reaches loopback, private, link-local (cloud metadata lives at 169.254.169.254), CGNAT,
 * multicast or reserved addresses: the server must not be usable to probe the network it runs in
 * (SSRF). The check runs when a URL is saved and again at every delivery, because DNS can change.
 */

const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24],
  ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) BLOCKED.addSubnet(net, prefix, 'ipv4');
// IPv6: unspecified/IPv4-compatible, loopback, unique-local, link-local, site-local (deprecated but
// still routed by some stacks), multicast, documentation, discard-only, the IPv4-translated form
// (::ffff:0:a.b.c.d) and the prefixes that embed an IPv4 address a gateway would reach (NAT64, local
// NAT64, 6to4): each could lead back into the private network.
for (const [net, prefix] of [
  ['::', 96], ['::1', 128], ['::ffff:0:0:0', 96], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8], ['2001:db8::', 32], ['100::', 64],
  ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['2002::', 16],
] as const) BLOCKED.addSubnet(net, prefix, 'ipv6');

export interface UrlPolicy {
  /** Production: https only, public addresses only. */
  production: boolean;
  /** Sandbox setting (`setting`): allow http and loopback/private addresses. */
  allowPrivate: boolean;
  /** The setting that allows private addresses in the sandbox, named in refusals (default WEBHOOK_ALLOW_PRIVATE_URLS). */
  setting?: string;
  /** Refuse IP address literals unless private addresses are allowed (vault forwarding: a host name only). */
  hostNamesOnly?: boolean;
}

/** An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is judged as the IPv4 address it carries. */
function isBlockedAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return BLOCKED.check(mapped, 'ipv4');
  return BLOCKED.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}

/** Why a URL may not receive webhooks (its form only; no DNS), or null. */
export function urlFormProblem(raw: string, policy: UrlPolicy): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url must be an absolute URL';
  }
  if (url.username || url.password) return 'url must not carry credentials; use authentication instead';
  const relaxed = !policy.production && policy.allowPrivate;
  if (url.protocol !== 'https:' && !(relaxed && url.protocol === 'http:')) {
    return relaxed ? 'url must use http or https' : `url must use https (http is allowed in the sandbox only with ${policy.setting ?? 'WEBHOOK_ALLOW_PRIVATE_URLS'}=true)`;
  }
  // A fully qualified name may end with a dot (localhost. is localhost). The lookbehind starts the
  // match only where a run of dots starts: tried from every dot, `\.+$` read each run to its end (issue 48).
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/(?<!\.)\.+$/, '');
  if (!relaxed && policy.hostNamesOnly && isIP(host) !== 0) return 'url must name a host, not an IP address';
  if (!relaxed && (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) !== 0 && isBlockedAddress(host)))) {
    return 'url must not point to a loopback, private, link-local or reserved address';
  }
  return null;
}

/**
 * Resolves the URL's host and checks every address it resolves to. Returns the address to connect
 * to (so the connection goes to the address that was checked, not to a second DNS answer), or a
 * problem.
 */
export async function resolveDeliveryAddress(raw: string, policy: UrlPolicy): Promise<{ ok: true; address: string; family: 4 | 6 } | { ok: false; problem: string }> {
  const form = urlFormProblem(raw, policy);
  if (form) return { ok: false, problem: form };
  const host = new URL(raw).hostname.replace(/^\[|\]$/g, '');
  let addresses: Array<{ address: string; family: number }>;
  try {
    addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true, verbatim: true });
  } catch {
    return { ok: false, problem: `the host ${host} could not be resolved` };
  }
  const relaxed = !policy.production && policy.allowPrivate;
  if (!relaxed && addresses.some((a) => isBlockedAddress(a.address))) return { ok: false, problem: `the host ${host} resolves to a loopback, private, link-local or reserved address` };
  const first = addresses[0];
  if (!first) return { ok: false, problem: `the host ${host} has no address` };
  return { ok: true, address: first.address, family: first.family === 6 ? 6 : 4 };
}
