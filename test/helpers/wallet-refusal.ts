import { expect } from 'vitest';
import { WalletTokenError } from '../../src/wallets/token-error.ts';

/** The WalletTokenError `run` throws; fails the test when the token is accepted or another error is thrown. */
export function walletRefusal(run: () => unknown): WalletTokenError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WalletTokenError);
    return error as WalletTokenError;
  }
  throw new Error('the token was accepted');
}
