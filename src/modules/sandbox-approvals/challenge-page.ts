import { formatAmount } from '../../lib/currencies.ts';
import type { ChallengePage } from '../transactions/three-ds/three-ds-challenge.service.ts';
import { escapeHtml, sandboxPage } from './sandbox-page.ts';

/** The simulated issuer's 3DS challenge page: the amount, the card's last digits, and two buttons. No script, no external resource. */
export function renderChallengePage(page: ChallengePage, action: string): string {
  const amount = escapeHtml(formatAmount(page.amount, page.currency));
  const body = page.open
    ? `<p>Confirm a payment of <strong>${amount}</strong> with your card <strong>${escapeHtml(page.card)}</strong>.</p>
<form method="post" action="${escapeHtml(action)}/complete"><button type="submit">Complete authentication</button></form>
<form method="post" action="${escapeHtml(action)}/fail"><button type="submit" class="alt">Fail authentication</button></form>`
    : `<p>This payment of <strong>${amount}</strong> is ${escapeHtml(page.status.replaceAll('_', ' '))}; no challenge is waiting.</p>`;
  return sandboxPage(
    'Sandbox 3DS challenge',
    body,
    `Simulated issuer page of the sandbox. Transaction ${escapeHtml(page.transactionId)}.`,
  );
}
