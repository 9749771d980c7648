import { formatAmount } from '../../lib/currencies.ts';
import type { ChallengePage } from '../transactions/three-ds/three-ds-challenge.service.ts';
import { escape, sandboxPage } from './sandbox-page.ts';

/** The simulated issuer's 3DS challenge page: the amount, the card's last digits, and two buttons. No script, no external resource. */
export function renderChallengePage(page: ChallengePage, action: string): string {
  const amount = escape(formatAmount(page.amount, page.currency));
  const body = page.open
    ? `<p>Confirm a payment of <strong>${amount}</strong> with your card <strong>${escape(page.card)}</strong>.</p>
<form method="post" action="${escape(action)}/complete"><button type="submit">Complete authentication</button></form>
<form method="post" action="${escape(action)}/fail"><button type="submit" class="alt">Fail authentication</button></form>`
    : `<p>This payment of <strong>${amount}</strong> is ${escape(page.status.replaceAll('_', ' '))}; no challenge is waiting.</p>`;
  return sandboxPage(
    'Sandbox 3DS challenge',
    body,
    `Simulated issuer page of the sandbox. Transaction ${escape(page.transactionId)}.`,
  );
}
