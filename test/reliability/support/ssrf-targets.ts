/**
 * Every notation of a forbidden target the SSRF suite tries. Add a line here for a new notation;
 * add to `URL_INPUTS` in ssrf.reliability.test.ts for a new place where the API accepts a URL.
 * `host` is put into `https://<host>:<listener port>/`: hosts that can reach this machine reach the
 * test's listener, so a single accepted connection fails the test.
 */
export const TARGET_HOSTS: Array<{ kind: string; host: string }> = [
  ...[
    '127.0.0.1',
    '127.1',
    '127.0.1',
    '2130706433',
    '0x7f000001',
    '0x7f.0.0.1',
    '0177.0.0.1',
    '017700000001',
    '0',
    '0.0.0.0',
    '[::1]',
    '[::]',
    '[0:0:0:0:0:0:0:1]',
    '[::ffff:127.0.0.1]',
    '[::ffff:7f00:1]',
    '[::ffff:0:7f00:1]',
    '[::127.0.0.1]',
    'localhost',
    'localhost.',
    'LocalHost',
    'api.localhost',
  ].map((host) => ({ kind: 'loopback', host })),
  ...[
    '10.0.0.1',
    '172.16.0.1',
    '192.168.1.1',
    '0xa000001',
    '167772161',
    '[::ffff:10.0.0.1]',
    '[fd00::1]',
    '[fec0::1]',
  ].map((host) => ({ kind: 'private', host })),
  ...[
    '169.254.169.254',
    '2852039166',
    '0xa9fea9fe',
    '0251.0376.0251.0376',
    '[::ffff:169.254.169.254]',
    '[fe80::1]',
    '169.254.169.254.',
  ].map((host) => ({ kind: 'link-local / metadata', host })),
  ...['100.64.0.1', '100.127.255.254', '[::ffff:100.64.0.1]'].map((host) => ({ kind: 'CGNAT', host })),
  ...[
    '240.0.0.1',
    '255.255.255.255',
    '224.0.0.1',
    '192.0.2.1',
    '198.18.0.1',
    '[2001:db8::1]',
    '[100::1]',
    '[2002:7f00:1::1]',
    '[64:ff9b::7f00:1]',
    '[ff02::1]',
  ].map((host) => ({ kind: 'reserved', host })),
  ...Object.keys(hostsResolvingTo()).map((host) => ({ kind: 'host name resolving there', host })),
];

/** Names answered by the test's resolver (injected in place of node:dns/promises' lookup). */
export function hostsResolvingTo(): Record<string, string[]> {
  return {
    'loopback.ssrf.test': ['127.0.0.1'],
    'loopback6.ssrf.test': ['::1'],
    'mapped.ssrf.test': ['::ffff:127.0.0.1'],
    'private.ssrf.test': ['10.1.2.3'],
    'metadata.ssrf.test': ['169.254.169.254'],
    'cgnat.ssrf.test': ['100.64.1.1'],
    'reserved.ssrf.test': ['240.1.1.1'],
    // One public and one loopback answer: the check must judge every address, not the first.
    'mixed.ssrf.test': ['93.184.216.34', '127.0.0.1'],
  };
}
