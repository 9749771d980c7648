import { parseArgs } from 'node:util';

export const WALLET_TOKEN_HELP = `Usage: svc wallet-token <apple|google|paze> [--card NUMBER] [--expiry MM/YY] [--amount MINOR] [--currency CODE] [--pan-only] [--eci ECI] [--profile-id ID]

Prints a wallet payment token encrypted to the sandbox's own test keys, to pay with in the sandbox:
  POST /transactions {"payment_method": {"method": "applepay", "token": <this JSON>}, ...}
  (googlepay: the token as "token", as JSON text or object; paze: the completeResponse JWS printed
  as "token", as a Paze checkout's complete would answer it)
The server verifies and decrypts it like a real token (ENVIRONMENT=sandbox only, for a merchant
account with a wallet of the provider and no keys of its own).
  --card NUMBER    the device token (Apple, Paze) or card number (Google); default 4895370012003478
  --expiry MM/YY   its expiration date (default 12/30)
  --amount MINOR   Apple, Paze: the amount the buyer approved, in minor units (default 0); an
                   Apple token's must be the transaction's amount
  --currency CODE  Apple, Paze: the currency of that amount (default USD); an Apple token's must
                   be the transaction's
  --pan-only       Google: a PAN_ONLY token (no cryptogram)
  --eci ECI        the ECI indicator (default 07 Apple and Paze Visa, 05 Google, 02 Paze Mastercard)
  --profile-id ID  Paze: the wallet's extra_configuration.profile_id, when it has one
An Apple token is refused WALLET_TOKEN_MAX_AGE_SECONDS (default 300) after it was made; a Paze
token an hour after (its cryptogram after 15 minutes). Every token pays once per merchant account.`;

/** `svc wallet-token`: prints a sandbox test token (no database, no server). */
export async function walletTokenCommand(
  args: string[],
  write: (text: string) => void = (t) => process.stdout.write(t),
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      card: { type: 'string', default: '4895370012003478' },
      expiry: { type: 'string', default: '12/30' },
      amount: { type: 'string', default: '0' },
      currency: { type: 'string', default: 'USD' },
      'pan-only': { type: 'boolean', default: false },
      eci: { type: 'string' },
      'profile-id': { type: 'string' },
    },
  });
  const provider = positionals[0];
  if (provider !== 'apple' && provider !== 'google' && provider !== 'paze')
    throw new Error('name the wallet: svc wallet-token apple|google|paze');
  if (!/^\d{12,19}$/.test(values.card!)) throw new Error('--card must be 12 to 19 digits');
  if (!/^(0[1-9]|1[0-2])\/\d{2}$/.test(values.expiry!)) throw new Error('--expiry must be MM/YY');
  if (!/^\d{1,8}$/.test(values.amount!)) throw new Error('--amount must be a whole number of minor units');
  if (!/^[A-Z]{3}$/.test(values.currency!)) throw new Error('--currency must be an ISO 4217 code such as USD');
  const { sandboxApplePayToken, sandboxGooglePayToken, sandboxPazeToken } = await import(
    '../wallets/sandbox-tokens.ts'
  );
  const card = {
    number: values.card!,
    expirationDate: values.expiry!,
    amount: Number(values.amount),
    currency: values.currency!,
    ...(values.eci ? { eci: values.eci } : {}),
  };
  if (provider === 'paze') {
    write(
      `${(await sandboxPazeToken({ ...card, ...(values['profile-id'] ? { profileId: values['profile-id'] } : {}) })).completeResponse}\n`,
    );
    return 0;
  }
  const token =
    provider === 'apple'
      ? sandboxApplePayToken(card)
      : sandboxGooglePayToken({ ...card, authMethod: values['pan-only'] ? 'PAN_ONLY' : 'CRYPTOGRAM_3DS' });
  write(`${JSON.stringify(token)}\n`);
  return 0;
}
