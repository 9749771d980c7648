import net from 'node:net';

/**
 * The address rules of HOST and PUBLIC_URL (docs/configuration.md). HOST is where the server
 * listens; PUBLIC_URL is the address it writes into what it hands out (payment link urls, 3-D
 * Secure and redirect returns, icon urls, report downloads, the OpenAPI servers). An unspecified
 * address (0.0.0.0, ::) is something to listen on, never somewhere a buyer can go.
 */

/** An IPv6 address as written in a URL ([::1]) or in HOST (::1). */
const unbracketed = (host: string) => (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host);

/** Listening on every interface: fine for HOST, never in a URL. */
export function isUnspecified(host: string): boolean {
  const bare = unbracketed(host);
  return bare === '0.0.0.0' || (net.isIPv6(bare) && [...bare].every((c) => c === '0' || c === ':'));
}

const HOST_NAME = /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/;

/** Why HOST is not an address or host name to listen on, or null. */
export function hostProblem(host: string): string | null {
  if (net.isIP(host) !== 0 || HOST_NAME.test(host)) return null;
  if (host.includes('://'))
    return `is the address to listen on, not a URL (the URL clients use is PUBLIC_URL), got "${host}"; e.g. HOST=0.0.0.0`;
  const colon = host.lastIndexOf(':');
  const [name, port] = [host.slice(0, colon), host.slice(colon + 1)];
  if (
    colon > 0 &&
    port !== '' &&
    Number.isInteger(Number(port)) &&
    (net.isIP(unbracketed(name)) !== 0 || HOST_NAME.test(name))
  ) {
    return `takes no port (the port is PORT), got "${host}"; set HOST=${unbracketed(name)} PORT=${port}`;
  }
  return `must be an IP address or a host name (e.g. 127.0.0.1, 0.0.0.0, ::, localhost), got "${host}"`;
}

/** Why PUBLIC_URL cannot be handed out, or null. */
export function publicUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `is not a valid URL, got "${value}" (e.g. https://payments.example.com)`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `must be an http(s) URL, got "${value}"`;
  if (isUnspecified(url.hostname))
    return `names ${url.hostname}, an address to listen on that nobody can open: give the host name buyers and clients reach this server at, got "${value}"`;
  return null;
}

/**
 * The URL the server hands out without PUBLIC_URL (sandbox only): HOST and PORT, an unspecified
 * HOST replaced by the loopback address, which works on this machine.
 */
export function localUrl(host: string, port: number): string {
  const bare = unbracketed(host);
  const reachable = isUnspecified(bare) ? (bare === '0.0.0.0' ? '127.0.0.1' : 'localhost') : bare;
  return `http://${net.isIPv6(reachable) ? `[${reachable}]` : reachable}:${port}`;
}

/** Why a production server cannot start, or null: it has no PUBLIC_URL to hand out. */
export function productionPublicUrlProblem(environment: string, publicUrlSet: boolean): string | null {
  if (environment !== 'production' || publicUrlSet) return null;
  return 'is required in production: the address buyers and clients reach this server at (e.g. https://payments.example.com). Payment link urls, redirect returns and the OpenAPI servers start with it';
}
