import type { Config } from '../../config.ts';
import type { DigitalWalletRow } from '../../db/schema-digital-wallets.ts';
import { AppError } from '../../errors/app-error.ts';
import { simulatedClientId, simulatedProfileId } from '../../wallets/paze-sandbox.ts';

/**
 * The Paze client and profile of a Paze wallet (docs/digital-wallets.md "Paze"): the client is the
 * party onboarded with Paze (this server's operator: PAZE_CLIENT_ID / PAZE_CLIENT_NAME, or a
 * merchant onboarded itself: extra_configuration.client_id / client_name), the profile is the
 * merchant's (extra_configuration.profile_id). The sandbox simulates what is not configured.
 */

export interface PazeClient {
  id: string;
  name: string;
  profileId: string;
}

const text = (extra: Record<string, unknown> | null, key: string) => {
  const value = extra?.[key];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
};

/** The profile the wallet names itself (payloads for another profile are refused), or null. */
export const configuredProfileId = (wallet: Pick<DigitalWalletRow, 'extra_configuration'>) =>
  text(wallet.extra_configuration, 'profile_id');

export function pazeClient(config: Config, wallet: DigitalWalletRow): PazeClient {
  const extra = wallet.extra_configuration;
  const sandbox = config.environment === 'sandbox';
  const id = text(extra, 'client_id') ?? config.pazeClientId ?? (sandbox ? simulatedClientId(wallet.id) : null);
  const name =
    text(extra, 'client_name') ??
    config.pazeClientName ??
    (sandbox ? (wallet.merchant_display_name ?? wallet.merchant_name) : null);
  const profileId = configuredProfileId(wallet) ?? (sandbox ? simulatedProfileId(wallet.id) : null);
  if (!id || !name) {
    throw new AppError(
      'bad_request',
      'Paze is not configured on this server: set PAZE_CLIENT_ID and PAZE_CLIENT_NAME (the client onboarded with Paze), or extra_configuration.client_id and client_name on the Paze wallet with PUT /digital-wallets/{id}',
    );
  }
  if (id.length > 50)
    throw new AppError(
      'bad_request',
      "The Paze wallet's extra_configuration.client_id is longer than Paze allows (50 characters)",
    );
  if (!profileId)
    throw new AppError(
      'bad_request',
      "The Paze wallet has no extra_configuration.profile_id (the merchant's Paze profile): set it with PUT /digital-wallets/{id}",
    );
  return { id, name, profileId };
}
