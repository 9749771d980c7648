import type { JSX } from 'preact';
import { post } from '../api.ts';
import { ConfirmAction, ErrorNotice, useAction } from '../ui/components.tsx';
import { label, money } from '../ui/format.ts';
import type { TransactionSummary } from './types.ts';

/**
 * Approve or decline a transaction its anti-fraud service held for manual review, each confirmed
 * first (docs/risk.md, "Manual review"). The server holds the capture until the approval, captures
 * an intent `capture` transaction when approved, voids it when declined, and audits either.
 */
export function Review({ t, onDone }: { t: TransactionSummary; onDone: (text: string) => void }): JSX.Element {
  const action = useAction();
  const run = (what: string, path: 'approve' | 'decline') =>
    action.run(async () => {
      const answer = await post<TransactionSummary>(`/transactions/${t.id}/review/${path}`, {});
      onDone(`${what}: ${label(answer.status)}`);
    });
  const approval =
    t.intent === 'capture'
      ? `Approve and capture ${money(t.authorized_amount, t.currency)}?`
      : 'Approve? The authorization can then be captured.';
  return (
    <section class="card" aria-labelledby="review-title">
      <h2 id="review-title">Manual review</h2>
      <p>
        The anti-fraud service asked for a manual review. Until it is approved this transaction cannot be captured
        {t.intent === 'capture' ? '; approving captures it' : ''}. Declining voids the authorization.
      </p>
      <ErrorNotice error={action.error} />
      <div class="actions">
        <ConfirmAction label="Approve" question={approval} onConfirm={() => run('Approved', 'approve')} />
        <ConfirmAction
          label="Decline"
          danger
          question="Decline and void this authorization?"
          onConfirm={() => run('Declined', 'decline')}
        />
      </div>
    </section>
  );
}
