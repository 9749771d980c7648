import type { LookupFunction } from 'node:net';

/**
 * A DNS lookup that answers with an address checked beforehand (url-safety.ts), for both callback
 * forms of net.connect: the connection goes to that address, never to a second DNS answer that
 * could point somewhere else (DNS rebinding), while the URL's host name stays the Host header and
 * the TLS server name.
 */
export function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}
