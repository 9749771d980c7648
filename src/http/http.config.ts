import { isIP } from 'node:net';
import { ConfigError, customSetting, defineGroup, integer, integerSetting, read, type Env } from '../lib/settings.ts';
import { hostProblem, localUrl, publicUrlProblem } from './public-url.ts';

/** The HTTP server: where it listens, the address it hands out, its proxies, limits and tokens. */

/** `false`: the TCP peer is the client; a list: the proxies' addresses and ranges, whose X-Forwarded-For is believed. */
export type TrustProxy = false | string[];

/** The HTTP server's connection limits, in milliseconds and bytes. */
export interface HttpLimits {
  /** All request headers must arrive within this (slow-header clients). */
  headersTimeoutMs: number;
  /** The whole request, headers and body, must arrive within this (slow-body clients). */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** A connection with no data either way for this long is closed; above the longest handler. */
  connectionTimeoutMs: number;
  /** Requests served on one connection before it is closed (spreads clients over processes). */
  maxRequestsPerSocket: number;
  /** Largest accepted size of all request headers together. */
  maxHeaderBytes: number;
}

const port = integerSetting('PORT', {
  default: 8080,
  min: 0,
  max: 65535,
  description: 'HTTP port (`0` picks a free one)',
});

const host = customSetting(
  {
    name: 'HOST',
    default: '`127.0.0.1`',
    description:
      'Interface to listen on (`0.0.0.0` for all; an address only, never `host:port`; "HOST and PUBLIC_URL" below)',
  },
  (env) => {
    const value = read(env, 'HOST') ?? '127.0.0.1';
    const problem = hostProblem(value);
    if (problem) throw new ConfigError('HOST', problem);
    return value;
  },
);

/** PUBLIC_URL is checked, never derived from an unspecified HOST (http/public-url.ts). */
function publicUrl(env: Env): string {
  const given = read(env, 'PUBLIC_URL');
  const problem = given === undefined ? null : publicUrlProblem(given);
  if (problem) throw new ConfigError('PUBLIC_URL', problem);
  return (given ?? localUrl(host.read(env, 'sandbox'), port.read(env, 'sandbox'))).replace(/\/$/, '');
}

/**
 * TRUST_PROXY (docs/security.md, "Client addresses and proxies"): the addresses and CIDR ranges of
 * the proxies (proxy-addr's names loopback, linklocal and uniquelocal too). Refused: `true` and /0
 * ranges, with which any client could name its own address in X-Forwarded-For, and hop counts,
 * which cannot tell the proxy from a client connecting directly (Fastify 5 ignores them).
 */
function trustProxy(env: Env): TrustProxy {
  const name = 'TRUST_PROXY';
  const raw = read(env, name);
  if (raw === undefined) return false;
  if (/^\d+$/.test(raw))
    throw new ConfigError(
      name,
      `a hop count (${raw}) cannot tell your proxy from a client that connects directly; name the proxies' addresses or CIDR ranges (e.g. 10.0.0.0/8)`,
    );
  return raw.split(',').map((entry) => {
    const value = entry.trim();
    const [address = '', prefix, extra] = value.split('/');
    const family = isIP(address);
    const bits = prefix === undefined ? null : /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
    const valid =
      ['loopback', 'linklocal', 'uniquelocal'].includes(value) ||
      (family !== 0 && extra === undefined && (bits === null || bits <= (family === 4 ? 32 : 128)));
    if (!valid)
      throw new ConfigError(
        name,
        `must be the proxies' addresses and CIDR ranges separated by commas (e.g. 10.0.0.0/8,192.168.1.7 or loopback), got "${value}"`,
      );
    if (bits === 0)
      throw new ConfigError(
        name,
        `${value} trusts every address, so any client could name its own address in X-Forwarded-For; name the proxies' addresses or ranges`,
      );
    return value;
  });
}

const LIMITS = [
  [
    'headersTimeoutMs',
    'HTTP_HEADERS_TIMEOUT_MS',
    10_000,
    500,
    600_000,
    'All request headers must arrive within this (slow-header clients are cut); at most `HTTP_REQUEST_TIMEOUT_MS`',
  ],
  [
    'requestTimeoutMs',
    'HTTP_REQUEST_TIMEOUT_MS',
    30_000,
    1_000,
    3_600_000,
    'The whole request, headers and body, must arrive within this (slow-body clients are cut)',
  ],
  [
    'keepAliveTimeoutMs',
    'HTTP_KEEP_ALIVE_TIMEOUT_MS',
    72_000,
    1_000,
    600_000,
    "An idle keep-alive connection is closed after this (above common load balancers' 60 s)",
  ],
  [
    'connectionTimeoutMs',
    'HTTP_CONNECTION_TIMEOUT_MS',
    180_000,
    10_000,
    3_600_000,
    'A connection with no data either way for this long is closed; must be above the longest handler (vault forwards, connector calls)',
  ],
  [
    'maxRequestsPerSocket',
    'HTTP_MAX_REQUESTS_PER_SOCKET',
    1_000,
    0,
    1_000_000,
    'Requests served on one connection before it is closed (`0`: no limit). The last answer says `Connection: close`; a request a client still sends on that connection (pipelined, or a client that ignores the header, such as autocannon) is answered 503 by Node',
  ],
  [
    'maxHeaderBytes',
    'HTTP_MAX_HEADER_BYTES',
    16_384,
    1_024,
    1_048_576,
    'Largest size of all request headers together; more is 400 with the error body',
  ],
] as const;

function httpLimits(env: Env): HttpLimits {
  const limits = Object.fromEntries(
    LIMITS.map(([key, name, fallback, min, max]) => [key, integer(env, name, fallback, min, max)]),
  ) as unknown as HttpLimits;
  if (limits.headersTimeoutMs > limits.requestTimeoutMs)
    throw new ConfigError(
      'HTTP_HEADERS_TIMEOUT_MS',
      `must not exceed HTTP_REQUEST_TIMEOUT_MS (${limits.requestTimeoutMs}), got ${limits.headersTimeoutMs}`,
    );
  return limits;
}

export const httpSettings = defineGroup('HTTP server', {
  port,
  host,
  publicUrl: customSetting(
    {
      name: 'PUBLIC_URL',
      default: '`http://HOST:PORT` (`0.0.0.0` and `::` become `127.0.0.1` and `localhost`)',
      description:
        'Base URL of every link the server hands out (payment links, report downloads), printed at start and the OpenAPI server; **required with `ENVIRONMENT=production`** (and by compose)',
    },
    publicUrl,
  ),
  /** PUBLIC_URL was given (required to serve in production); otherwise publicUrl is HOST:PORT on loopback. */
  publicUrlSet: customSetting([], (env) => read(env, 'PUBLIC_URL') !== undefined),
  trustProxy: customSetting(
    {
      name: 'TRUST_PROXY',
      default: 'unset (off)',
      description:
        'The load balancers and reverse proxies in front of the server, as addresses and CIDR ranges separated by commas (`10.0.0.0/8,192.168.1.7`; also `loopback`, `linklocal`, `uniquelocal`). A request from one of them is from the client its `X-Forwarded-For` names (the right-most address there that is not a listed proxy); from anyone else, `X-Forwarded-For` is ignored. Set it when a proxy is in front: otherwise every buyer has the proxy\'s address, and the per-address limits (failed id lookups) count them all together. Hop counts, `true` and `/0` ranges are refused (docs/security.md, "Client addresses and proxies")',
    },
    trustProxy,
  ),
  bodyLimit: integerSetting('BODY_LIMIT_BYTES', {
    default: 1024 * 1024,
    min: 1024,
    max: 64 * 1024 * 1024,
    description: 'Largest request body (1 MiB); larger bodies get 400',
  }),
  idempotencyTtlSeconds: integerSetting('IDEMPOTENCY_TTL_SECONDS', {
    default: 24 * 3600,
    min: 3600,
    max: 30 * 24 * 3600,
    description: 'How long idempotent responses are replayed (3600 to 2592000)',
  }),
  tokenMaxLifetimeSeconds: integerSetting('TOKEN_MAX_LIFETIME_SECONDS', {
    default: 24 * 3600,
    min: 60,
    max: 30 * 24 * 3600,
    description: 'Longest accepted bearer token lifetime (`exp - iat`)',
  }),
  embedRateLimitPerMinute: integerSetting('EMBED_RATE_LIMIT_PER_MINUTE', {
    default: 50,
    min: 1,
    max: 100_000,
    description:
      'Enumeration prevention: calls per minute per embed token or checkout session on the limited operations',
  }),
  http: customSetting(
    LIMITS.map(([, name, fallback, , , description]) => ({ name, default: `\`${fallback}\``, description })),
    httpLimits,
  ),
});
