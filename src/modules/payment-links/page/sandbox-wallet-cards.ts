/**
 * The cards of the hosted page's simulated wallet sheet (sandbox only): the card a buyer "holds" in
 * the wallet, by id (the page never sends a card number). Their outcomes are those of `mock-card`
 * for the same number (docs/sandbox.md, "Transaction outcomes"); a test keeps the two in step.
 */

export type WalletCardOutcome = 'approved' | 'declined' | 'insufficient_funds' | 'failed';

export interface SandboxWalletCard {
  id: string;
  number: string;
  scheme: string;
  outcome: WalletCardOutcome;
  /** Google Pay only: a card number without cryptogram (PAN_ONLY) instead of a device token. */
  panOnly?: boolean;
}

export const SANDBOX_WALLET_CARDS: readonly SandboxWalletCard[] = [
  { id: 'visa-approved', number: '4111111111111111', scheme: 'Visa', outcome: 'approved' },
  { id: 'mastercard-approved', number: '5555555555554444', scheme: 'Mastercard', outcome: 'approved' },
  { id: 'visa-declined', number: '4000000000000002', scheme: 'Visa', outcome: 'declined' },
  { id: 'visa-insufficient-funds', number: '4000000000009995', scheme: 'Visa', outcome: 'insufficient_funds' },
  { id: 'visa-provider-failure', number: '4000000000000119', scheme: 'Visa', outcome: 'failed' },
  { id: 'visa-pan-only', number: '4242424242424242', scheme: 'Visa', outcome: 'approved', panOnly: true },
];

export const SANDBOX_WALLET_CARD_IDS = SANDBOX_WALLET_CARDS.map((c) => c.id) as [string, ...string[]];

/** Far enough ahead that the test cards never expire under the tests' feet. */
export const SANDBOX_WALLET_EXPIRY = '12/40';

export const sandboxWalletCard = (id: string): SandboxWalletCard | undefined =>
  SANDBOX_WALLET_CARDS.find((c) => c.id === id);

/** The cards the sheet lists for a wallet: PAN_ONLY is a Google Pay form only. */
export const cardsFor = (method: 'applepay' | 'googlepay') =>
  SANDBOX_WALLET_CARDS.filter((c) => method === 'googlepay' || !c.panOnly);
