import type { Deps } from '../../src/context.ts';
import { mintToken } from '../../src/cli/token.ts';
import { createKeyPair } from '../../src/modules/api-key-pairs/api-key-pairs.service.ts';

export interface TestKeyPair {
  id: string;
  thumbprint: string;
  privateKeyPem: string;
  token(options?: {
    scopes?: string[];
    lifetimeSeconds?: number;
    merchantAccountId?: string;
    now?: number;
  }): Promise<string>;
}

/** Registers a key pair (instance-wide, or limited to one merchant account) and returns a token factory. */
export async function createTestKeyPair(deps: Deps, merchantAccountId: string | null = null): Promise<TestKeyPair> {
  const created = await createKeyPair(deps, { displayName: 'test', merchantAccountId });
  const cache = new Map<string, string>();
  return {
    ...created,
    async token(options = {}) {
      const scopes = options.scopes ?? ['*.read', '*.write'];
      const plain =
        options.lifetimeSeconds === undefined && options.now === undefined && options.merchantAccountId === undefined;
      const key = scopes.join(' ');
      if (plain && cache.has(key)) return cache.get(key)!;
      const token = await mintToken({
        privateKeyPem: created.privateKeyPem,
        scopes,
        lifetimeSeconds: options.lifetimeSeconds ?? 3600,
        ...(options.merchantAccountId ? { merchantAccountId: options.merchantAccountId } : {}),
        ...(options.now !== undefined ? { now: options.now } : {}),
      });
      if (plain) cache.set(key, token);
      return token;
    },
  };
}
