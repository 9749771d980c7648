import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A throwaway PKI for TLS tests, made with the `openssl` command (node:crypto cannot issue X.509
 * certificates): a test CA, a server certificate for 127.0.0.1 and localhost, and client
 * certificates signed by the CA (or by a second, untrusted CA). Nothing is kept on disk.
 */

export interface TestPki {
  caCert: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** A client certificate of another CA: a target trusting the test CA refuses it. */
  strangerCert: string;
  strangerKey: string;
  /** The client key encrypted with `passphrase`. */
  encryptedClientKey: string;
  passphrase: string;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

function issue(dir: string, name: string, subject: string, ca: string, extensions: string): void {
  openssl(dir, [
    'req',
    '-new',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.csr`,
    '-subj',
    subject,
  ]);
  writeFileSync(join(dir, `${name}.ext`), extensions);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.crt`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-out',
    `${name}.crt`,
    '-days',
    '2',
    '-sha256',
    '-extfile',
    `${name}.ext`,
  ]);
}

export function createTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pki-'));
  try {
    for (const ca of ['ca', 'stranger-ca']) {
      openssl(dir, [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        `${ca}.key`,
        '-out',
        `${ca}.crt`,
        '-days',
        '2',
        '-subj',
        `/CN=svc test ${ca}`,
      ]);
    }
    issue(
      dir,
      'server',
      '/CN=localhost',
      'ca',
      'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n',
    );
    issue(dir, 'client', '/CN=merchant-client/O=svc test', 'ca', 'extendedKeyUsage=clientAuth\n');
    issue(dir, 'stranger', '/CN=stranger-client', 'stranger-ca', 'extendedKeyUsage=clientAuth\n');
    const passphrase = 'correct horse battery staple';
    openssl(dir, [
      'pkey',
      '-in',
      'client.key',
      '-aes256',
      '-passout',
      `pass:${passphrase}`,
      '-out',
      'client-encrypted.key',
    ]);
    const read = (file: string) => readFileSync(join(dir, file), 'utf8');
    return {
      caCert: read('ca.crt'),
      serverCert: read('server.crt'),
      serverKey: read('server.key'),
      clientCert: read('client.crt'),
      clientKey: read('client.key'),
      strangerCert: read('stranger.crt'),
      strangerKey: read('stranger.key'),
      encryptedClientKey: read('client-encrypted.key'),
      passphrase,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A PEM key pair (SPKI public key, PKCS#8 private key). */
export interface PemKeyPair {
  publicKey: string;
  privateKey: string;
}

/** Key pairs of a target that decrypts message-level encrypted bodies. */
export function createMleKeys(): { rsa: PemKeyPair; ec: PemKeyPair; weakRsa: PemKeyPair } {
  const publicKeyEncoding = { type: 'spki', format: 'pem' } as const;
  const privateKeyEncoding = { type: 'pkcs8', format: 'pem' } as const;
  return {
    rsa: generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding, privateKeyEncoding }),
    ec: generateKeyPairSync('ec', { namedCurve: 'P-256', publicKeyEncoding, privateKeyEncoding }),
    weakRsa: generateKeyPairSync('rsa', { modulusLength: 1024, publicKeyEncoding, privateKeyEncoding }),
  };
}
