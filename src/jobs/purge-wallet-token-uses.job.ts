import { purgeExpiredWalletTokenUses } from '../modules/digital-wallets/wallet-token-uses.service.ts';
import { defineJob } from './job.ts';
import { JOB_PAYLOADS } from './payloads.ts';

/** Forgets the uses of wallet tokens past their life (plus a margin): such tokens are refused anyway. */
export const purgeWalletTokenUses = defineJob({
  name: 'purge-wallet-token-uses',
  payload: JOB_PAYLOADS['purge-wallet-token-uses'],
  maxAttempts: 3,
  async handle(_payload, { deps, log }) {
    const deleted = await purgeExpiredWalletTokenUses(deps, new Date());
    if (deleted > 0) log.info({ deleted }, 'purged expired wallet token uses');
  },
});
