import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { get, post } from '../api.ts';
import type { PageProps } from '../pages.tsx';
import { hasScope } from '../session.ts';
import { Link } from '../router.tsx';
import { useAsync, useCursorList } from '../ui/async.ts';
import {
  ConfirmAction,
  ErrorNotice,
  Field,
  ListTable,
  Loading,
  PageHeader,
  Success,
  useAction,
} from '../ui/components.tsx';
import { dateTime, label, money, toMinor } from '../ui/format.ts';
import { Attempts, Captures, Refunds, RoutingTrace, Settlements } from './transaction-panels.tsx';
import { Review } from './transaction-review.tsx';
import type { TransactionSummary } from './types.ts';

interface TransactionEvent {
  id: string;
  name: string;
  created_at: string;
  context: Record<string, unknown>;
}

export function TransactionPage({ params, scopes }: PageProps): JSX.Element {
  const id = params.id!;
  const tx = useAsync(() => get<TransactionSummary>(`/transactions/${encodeURIComponent(id)}`), id);
  const [result, setResult] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const done = (text: string) => {
    setResult(text);
    setVersion(version + 1);
    tx.reload();
  };
  if (tx.error) return <ErrorNotice error={tx.error} />;
  if (!tx.data) return <Loading />;
  const t = tx.data;
  return (
    <section>
      <p>
        <Link href="/transactions">← Transactions</Link>
      </p>
      <PageHeader title={`${money(t.amount, t.currency)} · ${label(t.status)}`} />
      {result ? <Success>{result}</Success> : null}
      <Summary t={t} />
      {hasScope(scopes, 'transactions.write') && t.pending_review ? <Review t={t} onDone={done} /> : null}
      {hasScope(scopes, 'transactions.write') ? <Actions t={t} onDone={done} /> : null}
      <div class="panels" key={version}>
        <Timeline id={id} />
        <Refunds id={id} />
        <Captures id={id} currency={t.currency} />
        <Settlements id={id} />
        <Attempts id={id} currency={t.currency} fallbackServiceId={t.payment_service?.id ?? null} scopes={scopes} />
        <RoutingTrace id={id} />
      </div>
    </section>
  );
}

function Summary({ t }: { t: TransactionSummary }): JSX.Element {
  const pm = t.payment_method;
  const rows: Array<[string, string]> = [
    ['Status', label(t.status)],
    ['Amount', money(t.amount, t.currency)],
    ['Authorized', money(t.authorized_amount, t.currency)],
    ['Captured', money(t.captured_amount, t.currency)],
    ['Refunded', money(t.refunded_amount, t.currency)],
    ['External identifier', t.external_identifier ?? '—'],
    ['Transaction id', t.id],
    ['Reconciliation id', t.reconciliation_id],
    ['Created', dateTime(t.created_at)],
    ['Payment service', t.payment_service?.display_name ?? '—'],
    // The API gives the card masked: scheme, last four digits, expiry and BIN, never the number.
    [
      'Card',
      pm
        ? [
            pm.scheme ?? pm.method,
            pm.label ? `•••• ${pm.label}` : '',
            pm.expiration_date ? `exp. ${pm.expiration_date}` : '',
          ]
            .filter(Boolean)
            .join(' ')
        : '—',
    ],
    [
      'Buyer',
      t.buyer
        ? [t.buyer.display_name, t.buyer.external_identifier, t.buyer.billing_details?.email_address]
            .filter(Boolean)
            .join(' · ') || '—'
        : '—',
    ],
    [
      'Anti-fraud',
      `${t.anti_fraud_decision ? label(t.anti_fraud_decision) : '—'}${t.pending_review ? ' · pending review' : ''}`,
    ],
    ['Response', [t.error_code, t.raw_response_code, t.raw_response_description].filter(Boolean).join(' · ') || '—'],
  ];
  return (
    <dl class="summary">
      {rows.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Capture, void and refund (full or partial), each confirmed first; the answer is shown above. */
function Actions({ t, onDone }: { t: TransactionSummary; onDone: (text: string) => void }): JSX.Element | null {
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const action = useAction();
  const refundable = t.captured_amount - t.refunded_amount;
  // Held for review, the capture waits for the approval (the Review card).
  const canCapture = t.status === 'authorization_succeeded' && !t.pending_review;
  const canVoid = t.status === 'authorization_succeeded';
  const canRefund = refundable > 0;
  if (!canCapture && !canVoid && !canRefund) return null;
  const minor = amount === '' ? null : toMinor(amount, t.currency);
  const partial = minor !== null ? ` ${money(minor, t.currency)}` : '';
  const run = (what: string, path: string, body: Record<string, unknown>) =>
    action.run(async () => {
      const answer = await post<{ status?: string; amount?: number }>(`/transactions/${t.id}/${path}`, body);
      onDone(
        `${what}: ${label(answer.status ?? 'done')}${answer.amount !== undefined ? ` (${money(answer.amount, t.currency)})` : ''}`,
      );
      setAmount('');
    });
  return (
    <section class="card" aria-labelledby="actions-title">
      <h2 id="actions-title">Actions</h2>
      <ErrorNotice error={action.error} />
      {amount !== '' && minor === null ? <p class="field-error">Enter an amount such as 12.50.</p> : null}
      <div class="action-form">
        <Field
          label={`Amount (${t.currency}); empty for the full amount`}
          hint={canRefund ? `Refundable: ${money(refundable, t.currency)}` : undefined}
        >
          <input name="amount" inputMode="decimal" value={amount} onInput={(e) => setAmount(e.currentTarget.value)} />
        </Field>
        {canRefund ? (
          <Field label="Refund reason (optional)">
            <input name="reason" value={reason} maxLength={500} onInput={(e) => setReason(e.currentTarget.value)} />
          </Field>
        ) : null}
      </div>
      <div class="actions">
        {canCapture ? (
          <ConfirmAction
            label="Capture"
            question={`Capture${partial || ' the full amount'}?`}
            onConfirm={() => run('Capture', 'capture', minor !== null ? { amount: minor } : {})}
          />
        ) : null}
        {canVoid ? (
          <ConfirmAction
            label="Void"
            danger
            question="Void this authorization?"
            onConfirm={() => run('Void', 'void', {})}
          />
        ) : null}
        {canRefund ? (
          <ConfirmAction
            label="Refund"
            danger
            question={`Refund${partial || ` ${money(refundable, t.currency)} (everything)`}?`}
            onConfirm={() =>
              run('Refund', 'refunds', { ...(minor !== null ? { amount: minor } : {}), ...(reason ? { reason } : {}) })
            }
          />
        ) : null}
      </div>
    </section>
  );
}

function Timeline({ id }: { id: string }): JSX.Element {
  const list = useCursorList<TransactionEvent>(`/transactions/${id}/events`, {}, 50);
  return (
    <section class="card">
      <h2>Timeline</h2>
      <ListTable
        list={list}
        caption="History events"
        empty="No events yet."
        rowKey={(e) => e.id}
        columns={[
          { title: 'When', cell: (e) => dateTime(e.created_at) },
          { title: 'Event', cell: (e) => label(e.name) },
          { title: 'Details', cell: (e) => <Context context={e.context} /> },
        ]}
      />
    </section>
  );
}

/** An event's context as key: value pairs (the API leaves card data and secrets out). */
function Context({ context }: { context: Record<string, unknown> }): JSX.Element {
  const entries = Object.entries(context).filter(([, v]) => v !== null && v !== undefined && typeof v !== 'object');
  return <span class="context">{entries.map(([k, v]) => `${label(k)}: ${String(v)}`).join(' · ') || '—'}</span>;
}
