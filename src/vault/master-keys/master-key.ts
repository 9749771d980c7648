import { randomBytes } from 'node:crypto';
import { keyId, open, seal } from '../crypto.ts';

/** What a master key made: the wrapped value and the id stored beside it (`master_key_id`). */
export interface Wrapped {
  wrapped: string;
  masterKeyId: string;
}

/**
 * A key-encryption key (decision 0140). It wraps data keys and the instance-wide secrets, and
 * unwraps what it wrapped; the plaintext of a data key exists only in this process's memory. Each
 * wrapped value is stored with the id of the master key that wrapped it (provider, key, version),
 * so a rotation knows what to move and a process knows whether it can open it. `aad` binds the
 * wrapping to its row: a wrapped value copied elsewhere does not open.
 */
export interface MasterKey {
  /** `env`, `aws-kms` or `vault-transit`. */
  readonly provider: string;
  /** The id new wrappings are stored with; never the key, never enough to guess it. */
  readonly id: string;
  /** Whether a value stored with `masterKeyId` is this key's to open. */
  opens(masterKeyId: string): boolean;
  /** A new 32-byte data key and its wrapping (a KMS generates it where there is one). */
  generateDataKey(aad: string): Promise<Wrapped & { plaintext: Buffer }>;
  wrap(plaintext: Buffer, aad: string): Promise<Wrapped>;
  unwrap(wrapped: string, masterKeyId: string, aad: string): Promise<Buffer>;
}

/**
 * The key itself in this process (VAULT_MASTER_KEY, or the sandbox's key file): AES-256-GCM.
 * Its id is a truncated SHA-256 of the key (crypto.ts `keyId`), as stored since the first version.
 */
export class LocalMasterKey implements MasterKey {
  readonly provider = 'env';
  readonly id: string;

  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('a master key is 32 bytes');
    this.id = keyId(key);
  }

  opens(masterKeyId: string): boolean {
    return masterKeyId === this.id;
  }

  async generateDataKey(aad: string): Promise<Wrapped & { plaintext: Buffer }> {
    const plaintext = randomBytes(32);
    return { plaintext, ...(await this.wrap(plaintext, aad)) };
  }

  async wrap(plaintext: Buffer, aad: string): Promise<Wrapped> {
    return { wrapped: seal(this.key, plaintext, aad), masterKeyId: this.id };
  }

  async unwrap(wrapped: string, _masterKeyId: string, aad: string): Promise<Buffer> {
    return open(this.key, wrapped, aad);
  }

  /** Whether this is the key given (the sandbox-key check at start-up); compares ids, not bytes. */
  is(key: Buffer): boolean {
    return keyId(key) === this.id;
  }
}
