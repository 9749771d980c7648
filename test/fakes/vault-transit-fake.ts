import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { type FakeAnswer, type FakeRequest, type FakeServer, startFakeServer } from './fake-server.ts';

/**
 * HashiCorp Vault's transit engine as its API documentation describes it, the parts the vault's
 * master key uses (src/vault/master-keys/vault-transit-master-key.ts):
 * - `GET /v1/<mount>/keys/<name>`: the key's `type`, `latest_version`, `supports_encryption`, ...
 * - `POST /v1/<mount>/keys/<name>` (create, `type` aes256-gcm96 by default) and `.../rotate` (a new version)
 * - `POST /v1/<mount>/encrypt/<name>` `{ plaintext, associated_data }` (base64) → `{ ciphertext: "vault:v<N>:..." }`
 * - `POST /v1/<mount>/decrypt/<name>` `{ ciphertext, associated_data }` → `{ plaintext }`
 * Every call needs the `X-Vault-Token` header (403 `{ errors: ["permission denied"] }`); errors
 * answer `{ errors: [...] }` with 400 or 404, as Vault does. The ciphertext is AES-256-GCM under
 * the key's version: nonce, ciphertext and tag in base64, as Vault lays it out.
 */
export interface VaultTransitFake extends FakeServer {
  token: string;
  mount: string;
  createKey(name: string, type?: string): void;
  rotateKey(name: string): void;
  /** Calls answered, by operation (`encrypt`, `decrypt`, `keys`). */
  calls: Record<string, number>;
  /** Makes every call fail with 503 while set (a Vault that is sealed or down). */
  failing: boolean;
}

interface TransitKey {
  type: string;
  versions: Buffer[];
}

const error = (status: number, message: string): FakeAnswer => ({ status, json: { errors: [message] } });
const data = (body: Record<string, unknown>): FakeAnswer => ({ status: 200, json: { data: body } });

export async function startVaultTransitFake(
  options: { mount?: string; token?: string } = {},
): Promise<VaultTransitFake> {
  const mount = options.mount ?? 'transit';
  const token = options.token ?? `hvs.${randomBytes(18).toString('base64url')}`;
  const keys = new Map<string, TransitKey>();
  const calls: Record<string, number> = {};
  const state = { failing: false };

  const createKey = (name: string, type = 'aes256-gcm96') => {
    if (!keys.has(name)) keys.set(name, { type, versions: [randomBytes(32)] });
  };

  const encrypt = (key: TransitKey, body: { plaintext?: string; associated_data?: string }): FakeAnswer => {
    if (typeof body.plaintext !== 'string') return error(400, 'missing plaintext to encrypt');
    const version = key.versions.length;
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key.versions[version - 1]!, nonce);
    if (body.associated_data) cipher.setAAD(Buffer.from(body.associated_data, 'base64'));
    const sealed = Buffer.concat([cipher.update(Buffer.from(body.plaintext, 'base64')), cipher.final()]);
    const ciphertext = Buffer.concat([nonce, sealed, cipher.getAuthTag()]).toString('base64');
    return data({ ciphertext: `vault:v${version}:${ciphertext}`, key_version: version });
  };

  const decrypt = (key: TransitKey, body: { ciphertext?: string; associated_data?: string }): FakeAnswer => {
    const [prefix, versionText, payload] = String(body.ciphertext ?? '').split(':');
    const version = Number(versionText?.slice(1));
    if (prefix !== 'vault' || !payload || !Number.isInteger(version))
      return error(400, 'invalid ciphertext: no prefix');
    const material = key.versions[version - 1];
    if (!material) return error(400, 'invalid key version');
    const raw = Buffer.from(payload, 'base64');
    try {
      const decipher = createDecipheriv('aes-256-gcm', material, raw.subarray(0, 12));
      if (body.associated_data) decipher.setAAD(Buffer.from(body.associated_data, 'base64'));
      decipher.setAuthTag(raw.subarray(raw.length - 16));
      const plaintext = Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]);
      return data({ plaintext: plaintext.toString('base64') });
    } catch {
      return error(400, 'cipher: message authentication failed');
    }
  };

  const handle = (req: FakeRequest): FakeAnswer => {
    if (state.failing) return error(503, 'Vault is sealed');
    if (req.headers['x-vault-token'] !== token) return error(403, 'permission denied');
    const prefix = `/v1/${mount}/`;
    if (!req.path.startsWith(prefix)) return error(404, `no handler for route "${req.path}"`);
    const [operation = '', name = '', action] = req.path.slice(prefix.length).split('/');
    calls[operation] = (calls[operation] ?? 0) + 1;
    const body = req.body ? (JSON.parse(req.body) as Record<string, string>) : {};
    if (operation === 'keys' && req.method === 'POST') {
      if (action === 'rotate') {
        const key = keys.get(name);
        if (!key) return error(400, 'key not found');
        key.versions.push(randomBytes(32));
        return { status: 204, json: null };
      }
      createKey(name, body.type);
      return { status: 204, json: null };
    }
    const key = keys.get(name);
    if (operation === 'keys' && req.method === 'GET') {
      if (!key) return { status: 404, json: { errors: [] } };
      const aead = ['aes128-gcm96', 'aes256-gcm96', 'chacha20-poly1305'].includes(key.type);
      return data({
        name,
        type: key.type,
        latest_version: key.versions.length,
        min_decryption_version: 1,
        min_encryption_version: 0,
        supports_encryption: aead,
        supports_decryption: aead,
        supports_derivation: true,
        exportable: false,
        deletion_allowed: false,
        keys: Object.fromEntries(key.versions.map((_, i) => [String(i + 1), 1_700_000_000])),
      });
    }
    if (!key) return error(400, 'encryption key not found');
    if (operation === 'encrypt' && req.method === 'POST') return encrypt(key, body);
    if (operation === 'decrypt' && req.method === 'POST') return decrypt(key, body);
    return error(405, 'unsupported operation');
  };

  const server = await startFakeServer(handle);
  return {
    url: server.url,
    requests: server.requests,
    close: () => server.close(),
    token,
    mount,
    createKey,
    rotateKey: (name: string) => void keys.get(name)?.versions.push(randomBytes(32)),
    calls,
    get failing() {
      return state.failing;
    },
    set failing(value: boolean) {
      state.failing = value;
    },
  };
}
