import type { SandboxPazeCard } from '../../wallets/paze-sandbox.ts';
import { escape, sandboxPage } from './sandbox-page.ts';

const page = (title: string, body: string) =>
  sandboxPage(title, body, 'Simulated Paze checkout of the sandbox: no real card, nothing is charged here.');

/** The simulated Paze checkout: the sandbox consumer's cards, one button each. No script, no external resource. */
export function renderPazeCheckoutPage(
  cards: readonly SandboxPazeCard[],
  amount: { transactionAmount: string; transactionCurrency: string } | null,
  action: (cardId: string) => string,
): string {
  const total = amount
    ? `<p>Pay <strong>${escape(`${amount.transactionAmount} ${amount.transactionCurrency}`)}</strong> with Paze.</p>`
    : '<p>Choose a card to pay with Paze.</p>';
  const items = cards
    .map(
      (card) =>
        `<li><form method="post" action="${escape(action(card.id))}"><button type="submit" class="sheet-card">${escape(card.descriptor)} •••• ${escape(card.panLastFour)} <span class="outcome">${escape(card.type.toLowerCase())}; sandbox outcome: ${escape(card.outcome)}</span></button></form></li>`,
    )
    .join('\n');
  return page('Paze (sandbox)', `${total}<p>Signed in as Pat Sandbox.</p><ul class="sheet-cards">${items}</ul>`);
}

/** After the choice: back to the app (a Refresh header sends the browser; the link is for the rest). */
export function renderPazeReturnPage(callback: string): string {
  return page('Paze (sandbox)', `<p>Returning to your app… <a href="${escape(callback)}">Continue</a></p>`);
}
