import { ConfigError, customSetting, defineGroup, read } from '../lib/settings.ts';

/** The vault's master keys (docs/security.md, "Secrets, and where each is sealed"). */

function masterKey(name: string, value: string): string {
  if (Buffer.from(value.trim(), 'base64').length !== 32)
    throw new ConfigError(name, 'must be 32 random bytes in base64 (for example: openssl rand -base64 32)');
  return value.trim();
}

export const vaultSettings = defineGroup('Vault', {
  /** Current vault master key (base64 of 32 bytes); null in the sandbox means a key file in DATA_DIR. */
  vaultMasterKey: customSetting(
    {
      name: 'VAULT_MASTER_KEY',
      default: 'sandbox: generated file `DATA_DIR/vault_master_key`; production: required',
      description:
        "32 random bytes in base64 (`openssl rand -base64 32`): the key that wraps every merchant's card data keys, and the instance's cursor and report download signing secrets",
    },
    (env, environment) => {
      const current = read(env, 'VAULT_MASTER_KEY');
      if (current === undefined && environment === 'production') {
        throw new ConfigError(
          'VAULT_MASTER_KEY',
          'is required in production (32 random bytes in base64); card data is encrypted under it',
        );
      }
      return current === undefined ? null : masterKey('VAULT_MASTER_KEY', current);
    },
  ),
  /** Earlier master keys, still able to unwrap data keys during a rotation. */
  vaultPreviousMasterKeys: customSetting(
    {
      name: 'VAULT_PREVIOUS_MASTER_KEYS',
      default: 'empty',
      description: 'Comma-separated older master keys, still accepted while `svc keys rotate-vault` re-wraps',
    },
    (env) =>
      (read(env, 'VAULT_PREVIOUS_MASTER_KEYS') ?? '')
        .split(',')
        .filter((v) => v.trim() !== '')
        .map((v) => masterKey('VAULT_PREVIOUS_MASTER_KEYS', v)),
  ),
});
