import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { post } from '../api.ts';
import { ErrorNotice, Field, useAction } from '../ui/components.tsx';
import { label, money, toMinor } from '../ui/format.ts';
import { ruleVerdict, type Flow, type FlowAction } from './routing-rules.ts';

interface DryRunResult {
  decisions: Array<{
    action: string;
    matched_rule_id: string | null;
    rules: Array<{
      rule_id: string;
      position: number;
      matched: boolean;
      not_matched_because: string | null;
      failed_conditions: Array<{ field: string; operator: string; reason: string }>;
    }>;
    payment_services?: Array<{
      payment_service_id: string;
      display_name: string | null;
      eligible: boolean;
      skipped_because: string | null;
    }>;
  }>;
}

/**
 * Which rule a made-up transaction would match, and why each other rule would not. Tried again by
 * itself when the rules change (`version`: a reorder, a new rule, a rule switched on or off).
 */
export function DryRun({
  flow,
  action,
  version,
  rules,
}: {
  flow: Flow;
  action: FlowAction;
  version: number;
  rules: ReadonlyArray<{ id: string; description: string | null }>;
}): JSX.Element {
  const [form, setForm] = useState({ amount: '10.00', currency: 'EUR', country: 'DE', method: 'card', bin: '' });
  const [result, setResult] = useState<DryRunResult | null>(null);
  const lastBody = useRef<Record<string, unknown> | null>(null);
  const act = useAction();
  const set = (key: keyof typeof form) => (e: Event) =>
    setForm({ ...form, [key]: (e.currentTarget as HTMLInputElement).value });
  const send = (body: Record<string, unknown>) =>
    act.run(async () => {
      lastBody.current = body;
      setResult(await post<DryRunResult>(`/flows/${flow}/dry-run`, body));
    });
  useEffect(() => {
    if (lastBody.current) void send(lastBody.current);
  }, [version]);
  const submit = (e: Event) => {
    e.preventDefault();
    const amount = toMinor(form.amount, form.currency.toUpperCase());
    if (amount === null) {
      void act.run(async () => {
        throw new Error('Enter an amount such as 12.50');
      });
      return;
    }
    const paymentMethod =
      flow === 'checkout' ? undefined : { method: form.method, ...(form.bin ? { bin: form.bin } : {}) };
    void send({
      amount,
      currency: form.currency.toUpperCase(),
      country: form.country.toUpperCase() || null,
      ...(paymentMethod ? { payment_method: paymentMethod } : {}),
    });
  };
  const described = (id: string) => rules.find((r) => r.id === id)?.description;
  const decision = result?.decisions.find((d) => d.action === action);
  return (
    <aside class="card dry-run" aria-labelledby="dry-run-title">
      <h2 id="dry-run-title">Dry run</h2>
      <form onSubmit={submit}>
        <div class="filter-grid">
          <Field label="Amount">
            <input name="dry_amount" value={form.amount} onInput={set('amount')} />
          </Field>
          <Field label="Currency">
            <input name="dry_currency" maxLength={3} value={form.currency} onInput={set('currency')} />
          </Field>
          <Field label="Country">
            <input name="dry_country" maxLength={2} value={form.country} onInput={set('country')} />
          </Field>
          {flow !== 'checkout' ? (
            <Field label="Method">
              <input name="dry_method" value={form.method} onInput={set('method')} />
            </Field>
          ) : null}
          {flow === 'card-transaction' ? (
            <Field label="Card BIN (optional)">
              <input name="dry_bin" inputMode="numeric" value={form.bin} onInput={set('bin')} />
            </Field>
          ) : null}
        </div>
        <button type="submit" disabled={act.busy}>
          Try it
        </button>
      </form>
      <ErrorNotice error={act.error} />
      {decision ? (
        <div class="dry-run-result" role="status">
          <p>
            <strong>
              {decision.matched_rule_id
                ? `Rule ${decision.rules.find((r) => r.rule_id === decision.matched_rule_id)?.position ?? ''} matches`
                : 'No rule matches: the default applies'}
            </strong>{' '}
            for{' '}
            {money(
              lastBody.current ? (lastBody.current.amount as number) : null,
              lastBody.current ? (lastBody.current.currency as string) : null,
            )}
            .
          </p>
          <ul class="plain">
            {decision.rules.map((r) => (
              <li key={r.rule_id} class={r.matched ? 'verdict matched' : 'verdict'}>
                Rule {r.position}: {ruleVerdict(r)}
                {described(r.rule_id) ? <span class="muted"> · {described(r.rule_id)}</span> : null}
              </li>
            ))}
          </ul>
          {decision.payment_services?.length ? (
            <p class="muted">
              Tried in order:{' '}
              {decision.payment_services
                .map(
                  (s) =>
                    `${s.display_name ?? s.payment_service_id}${s.eligible ? '' : ` (skipped: ${label(s.skipped_because)})`}`,
                )
                .join(', ')}
            </p>
          ) : null}
        </div>
      ) : null}
    </aside>
  );
}
