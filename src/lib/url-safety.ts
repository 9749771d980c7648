import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * Which addresses a webhook or a vault forward may be sent to. Production never reaches loopback,
 * private, link-local (cloud metadata lives at 169.254.169.254), CGNAT, multicast or reserved
 * addresses: the server must not be usable to probe the network it runs in (SSRF). The sandbox
 * reaches loopback by default (a receiver on the developer's machine; issue 51) and the other
 * ranges only with its explicit allowance. The check runs when a URL is saved and again at every
 * delivery, on every address the name resolves to, because DNS can change.
 */

const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  BLOCKED.addSubnet(net, prefix, 'ipv4');
// IPv6: unspecified/IPv4-compatible, loopback, unique-local, link-local, site-local (deprecated but
// still routed by some stacks), multicast, documentation, discard-only, the IPv4-translated form
// (::ffff:0:a.b.c.d) and the prefixes that embed an IPv4 address a gateway would reach (NAT64, local
// NAT64, 6to4): each could lead back into the private network.
for (const [net, prefix] of [
  ['::', 96],
  ['::1', 128],
  ['::ffff:0:0:0', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['100::', 64],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['2002::', 16],
] as const)
  BLOCKED.addSubnet(net, prefix, 'ipv6');

/** Loopback only: 127.0.0.0/8 and ::1 (not 0.0.0.0, nor the IPv6 forms that embed an IPv4 address). */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * A `*_ALLOW_PRIVATE_URLS` setting: `all` (true) allows http and every private address in the
 * sandbox, `loopback` (the default) http and loopback addresses and names only, `none` (false)
 * neither. Production allows none whatever it says.
 */
export type PrivateTargets = 'none' | 'loopback' | 'all';

export interface UrlPolicy {
  /** Production: https only, public addresses only. */
  production: boolean;
  /** Sandbox setting (`setting`): allow http and loopback/private addresses. */
  allowPrivate: boolean;
  /** Sandbox: allow http and loopback addresses and names (127.0.0.0/8, ::1, localhost) without `allowPrivate`. */
  allowLoopback?: boolean;
  /** The setting that allows private addresses in the sandbox, named in refusals (default WEBHOOK_ALLOW_PRIVATE_URLS). */
  setting?: string;
  /** Refuse IP address literals unless private addresses are allowed (vault forwarding: a host name only). */
  hostNamesOnly?: boolean;
}

/** The policy of a `*_ALLOW_PRIVATE_URLS` setting (`setting` names it in refusals). */
export function privateTargetsPolicy(production: boolean, targets: PrivateTargets, setting: string): UrlPolicy {
  return { production, allowPrivate: targets === 'all', allowLoopback: targets !== 'none', setting };
}

/** An IPv4-mapped IPv6 address (::ffff:10.0.0.1) is judged as the IPv4 address it carries. */
function inList(list: BlockList, address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return list.check(mapped, 'ipv4');
  return list.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}
const isBlockedAddress = (address: string) => inList(BLOCKED, address);

/** A loopback IP literal, `localhost` or a name under `.localhost` (which resolvers keep on this machine). */
const isLoopbackHost = (host: string) =>
  host === 'localhost' || host.endsWith('.localhost') || (isIP(host) !== 0 && inList(LOOPBACK, host));

/** What this policy lets through besides public addresses. */
function allowance(policy: UrlPolicy): { all: boolean; loopback: boolean } {
  const all = !policy.production && policy.allowPrivate;
  return { all, loopback: all || (!policy.production && policy.allowLoopback === true) };
}

/** The refusal of a private target, saying what the sandbox would allow. */
function privateRefusal(policy: UrlPolicy, what: string): string {
  const setting = policy.setting ?? 'WEBHOOK_ALLOW_PRIVATE_URLS';
  if (policy.production) return what;
  return allowance(policy).loopback
    ? `${what.replace('a loopback, private', 'a private')} (the sandbox allows loopback addresses; the others only with ${setting}=true)`
    : `${what} (allowed in the sandbox with ${setting}=true)`;
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
  // A fully qualified name may end with a dot (localhost. is localhost). The lookbehind starts the
  // match only where a run of dots starts: tried from every dot, `\.+$` read each run to its end (issue 48).
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/(?<!\.)\.+$/, '');
  const allowed = allowance(policy);
  const local = allowed.all || (allowed.loopback && isLoopbackHost(host));
  if (url.protocol !== 'https:' && !(local && url.protocol === 'http:')) {
    if (local) return 'url must use http or https';
    const setting = policy.setting ?? 'WEBHOOK_ALLOW_PRIVATE_URLS';
    return allowed.loopback
      ? `url must use https (http is allowed in the sandbox to loopback addresses, and to others with ${setting}=true)`
      : `url must use https (http is allowed in the sandbox only with ${setting}=true)`;
  }
  if (local) return null;
  if (policy.hostNamesOnly && isIP(host) !== 0)
    return privateRefusal(policy, 'url must name a host, not an IP address');
  if (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) !== 0 && isBlockedAddress(host))) {
    return privateRefusal(policy, 'url must not point to a loopback, private, link-local or reserved address');
  }
  return null;
}

/**
 * Resolves the URL's host and checks every address it resolves to. Returns the address to connect
 * to (so the connection goes to the address that was checked, not to a second DNS answer), or a
 * problem.
 */
export async function resolveDeliveryAddress(
  raw: string,
  policy: UrlPolicy,
): Promise<{ ok: true; address: string; family: 4 | 6 } | { ok: false; problem: string }> {
  const form = urlFormProblem(raw, policy);
  if (form) return { ok: false, problem: form };
  const host = new URL(raw).hostname.replace(/^\[|\]$/g, '');
  let addresses: Array<{ address: string; family: number }>;
  try {
    addresses = isIP(host)
      ? [{ address: host, family: isIP(host) }]
      : await lookup(host, { all: true, verbatim: true });
  } catch {
    return { ok: false, problem: `the host ${host} could not be resolved` };
  }
  const allowed = allowance(policy);
  const refused = (address: string) =>
    !allowed.all && isBlockedAddress(address) && !(allowed.loopback && inList(LOOPBACK, address));
  if (addresses.some((a) => refused(a.address)))
    return {
      ok: false,
      problem: privateRefusal(
        policy,
        `the host ${host} resolves to a loopback, private, link-local or reserved address`,
      ),
    };
  const first = addresses[0];
  if (!first) return { ok: false, problem: `the host ${host} has no address` };
  return { ok: true, address: first.address, family: first.family === 6 ? 6 : 4 };
}
