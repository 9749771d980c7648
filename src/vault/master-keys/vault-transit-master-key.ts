import { randomBytes } from 'node:crypto';
import type { MasterKey, Wrapped } from './master-key.ts';

export interface VaultTransitOptions {
  address: string;
  token: string;
  namespace: string | null;
  mount: string;
}

/** Transit's key types that take associated data (AEAD), which binds a wrapping to its row. */
const AEAD_TYPES = new Set(['aes128-gcm96', 'aes256-gcm96', 'chacha20-poly1305']);
// Each call is one small request to a server on the operator's network; a Vault that does not
// answer in 10 s fails the request (or the start-up) rather than holding it.
const TIMEOUT_MS = 10_000;

/**
 * A key-encryption key in HashiCorp Vault's transit engine (API: `/v1/<mount>/keys/<name>`,
 * `/encrypt/<name>`, `/decrypt/<name>`): the key never leaves Vault. Data keys are made here
 * (32 random bytes) and wrapped by `encrypt`, the associated data passed as `associated_data`.
 * Transit keys have versions (`vault:v<N>:` in each ciphertext): the stored id is
 * `vault-transit:<mount>/<name>:v<N>`, so after `vault write -f <mount>/keys/<name>/rotate`,
 * `svc keys rotate-vault` moves every value to the latest version.
 */
export class VaultTransitMasterKey implements MasterKey {
  readonly provider = 'vault-transit';
  readonly id: string;
  private readonly prefix: string;

  private constructor(
    private readonly options: VaultTransitOptions,
    private readonly name: string,
    latestVersion: number,
  ) {
    this.prefix = `vault-transit:${options.mount}/${name}:v`;
    this.id = `${this.prefix}${latestVersion}`;
  }

  /** Reads the key (its type and latest version): a missing key, a bad token or an unreachable Vault stops start-up. */
  static async open(name: string, options: VaultTransitOptions): Promise<VaultTransitMasterKey> {
    const data = await request(options, 'GET', `keys/${encodeURIComponent(name)}`);
    const type = String(data.type);
    if (!AEAD_TYPES.has(type))
      throw new Error(`Vault transit: key ${name} is of type ${type}; it must be aes256-gcm96 (or another AEAD type)`);
    if (data.supports_encryption === false || data.supports_decryption === false)
      throw new Error(`Vault transit: key ${name} does not support encryption and decryption`);
    const latest = Number(data.latest_version);
    if (!Number.isInteger(latest) || latest < 1) throw new Error(`Vault transit: key ${name} has no version`);
    return new VaultTransitMasterKey(options, name, latest);
  }

  opens(masterKeyId: string): boolean {
    return masterKeyId.startsWith(this.prefix);
  }

  async generateDataKey(aad: string): Promise<Wrapped & { plaintext: Buffer }> {
    const plaintext = randomBytes(32);
    return { plaintext, ...(await this.wrap(plaintext, aad)) };
  }

  async wrap(plaintext: Buffer, aad: string): Promise<Wrapped> {
    const data = await request(this.options, 'POST', `encrypt/${encodeURIComponent(this.name)}`, {
      plaintext: plaintext.toString('base64'),
      associated_data: Buffer.from(aad, 'utf8').toString('base64'),
    });
    const ciphertext = String(data.ciphertext ?? '');
    const [vault, version] = ciphertext.split(':');
    if (vault !== 'vault' || !version?.startsWith('v'))
      throw new Error('Vault transit: encrypt answered no ciphertext');
    return { wrapped: ciphertext, masterKeyId: `${this.prefix}${version.slice(1)}` };
  }

  async unwrap(wrapped: string, _masterKeyId: string, aad: string): Promise<Buffer> {
    const data = await request(this.options, 'POST', `decrypt/${encodeURIComponent(this.name)}`, {
      ciphertext: wrapped,
      associated_data: Buffer.from(aad, 'utf8').toString('base64'),
    });
    if (typeof data.plaintext !== 'string') throw new Error('Vault transit: decrypt answered no plaintext');
    return Buffer.from(data.plaintext, 'base64');
  }
}

/**
 * One call to Vault's HTTP API; answers its `data`. No redirect is followed (the token goes to the
 * configured address only). A failure names the path, the status and Vault's `errors`, never the
 * token or what was sent.
 */
async function request(
  options: VaultTransitOptions,
  method: 'GET' | 'POST',
  path: string,
  body?: Record<string, string>,
): Promise<Record<string, unknown>> {
  const url = `${options.address}/v1/${options.mount}/${path}`;
  const headers: Record<string, string> = { 'x-vault-token': options.token };
  if (options.namespace) headers['x-vault-namespace'] = options.namespace;
  if (body) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers,
      ...(body ? { body: JSON.stringify(body) } : {}),
      redirect: 'error',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    throw new Error(`Vault transit: ${method} /v1/${options.mount}/${path} failed: ${(error as Error).message}`);
  }
  const answer = (await response.json().catch(() => ({}))) as { data?: Record<string, unknown>; errors?: unknown };
  if (!response.ok || !answer.data) {
    const errors = Array.isArray(answer.errors) ? answer.errors.map(String).join('; ').slice(0, 300) : '';
    throw new Error(
      `Vault transit: ${method} /v1/${options.mount}/${path} answered ${response.status}${errors ? `: ${errors}` : ''}`,
    );
  }
  return answer.data;
}
