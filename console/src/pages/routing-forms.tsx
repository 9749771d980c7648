import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { get, post, type ListPage } from '../api.ts';
import { useAsync } from '../ui/async.ts';
import { ErrorNotice, Field, useAction } from '../ui/components.tsx';
import { label, money, toMinor } from '../ui/format.ts';
import {
  BUILDER_FIELDS,
  ruleVerdict,
  toCondition,
  type ConditionDraft,
  type Flow,
  type FlowAction,
  type Operator,
} from './routing-rules.ts';

interface PaymentService {
  id: string;
  display_name: string;
}

/** A new rule: conditions (all must hold) and what it does, per action. */
export function RuleForm({
  base,
  action,
  flow,
  onCreated,
}: {
  base: string;
  action: FlowAction;
  flow: Flow;
  onCreated: () => void;
}): JSX.Element {
  const fields = BUILDER_FIELDS.filter((f) => flow === 'card-transaction' || !f.cardOnly);
  const [description, setDescription] = useState('');
  const [conditions, setConditions] = useState<ConditionDraft[]>([]);
  const [services, setServices] = useState<string[]>([]);
  const [reason, setReason] = useState('');
  const [options, setOptions] = useState('');
  const act = useAction();
  const available = useAsync(
    () =>
      action === 'route-transaction'
        ? get<ListPage<PaymentService>>('/payment-services?limit=100')
        : Promise.resolve(null),
    action,
  );
  const update = (i: number, patch: Partial<ConditionDraft>) =>
    setConditions(conditions.map((c, j) => (j === i ? { ...c, ...patch } : c)));
  const outcome = () => {
    if (action === 'route-transaction') return { payment_service_ids: services };
    if (action === 'decline-early') return reason ? { reason } : {};
    if (action === 'select-payment-options')
      return {
        payment_options: options
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      };
    return {};
  };
  const submit = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      await post(base, {
        ...(description ? { description } : {}),
        conditions: conditions.map(toCondition),
        outcome: outcome(),
      });
      setConditions([]);
      setDescription('');
      onCreated();
    });
  };
  return (
    <form class="card form" onSubmit={submit} aria-labelledby="new-rule">
      <h2 id="new-rule">New rule</h2>
      <ErrorNotice error={act.error} />
      <Field label="Description">
        <input
          name="description"
          maxLength={200}
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
      </Field>
      <fieldset>
        <legend>Conditions (all must hold; none: every transaction)</legend>
        {conditions.map((c, i) => {
          const spec = fields.find((f) => f.field === c.field) ?? fields[0]!;
          return (
            <div class="condition" key={i}>
              <Field label={`Condition ${i + 1}: field`}>
                <select
                  value={c.field}
                  onChange={(e) => update(i, { field: e.currentTarget.value, operator: 'equals', value: '' })}
                >
                  {fields.map((f) => (
                    <option value={f.field}>{f.label}</option>
                  ))}
                </select>
              </Field>
              <Field label="Operator">
                <select value={c.operator} onChange={(e) => update(i, { operator: e.currentTarget.value as Operator })}>
                  {spec.operators.map((o) => (
                    <option value={o}>{label(o)}</option>
                  ))}
                </select>
              </Field>
              <Field
                label={c.operator === 'one_of' || c.operator === 'not_one_of' ? 'Values (comma-separated)' : 'Value'}
              >
                {spec.boolean ? (
                  <select value={c.value} onChange={(e) => update(i, { value: e.currentTarget.value })}>
                    <option value="true">yes</option>
                    <option value="false">no</option>
                  </select>
                ) : (
                  <input value={c.value} required onInput={(e) => update(i, { value: e.currentTarget.value })} />
                )}
              </Field>
              <button
                type="button"
                class="secondary"
                onClick={() => setConditions(conditions.filter((_c, j) => j !== i))}
              >
                Remove condition {i + 1}
              </button>
            </div>
          );
        })}
        <button
          type="button"
          class="secondary"
          onClick={() => setConditions([...conditions, { field: fields[0]!.field, operator: 'equals', value: '' }])}
        >
          Add a condition
        </button>
      </fieldset>
      {action === 'route-transaction' ? (
        <fieldset>
          <legend>Route to (in this order)</legend>
          {(available.data?.items ?? []).map((s) => (
            <label class="check" key={s.id}>
              <input
                type="checkbox"
                checked={services.includes(s.id)}
                onChange={(e) =>
                  setServices(e.currentTarget.checked ? [...services, s.id] : services.filter((id) => id !== s.id))
                }
              />
              {s.display_name}
            </label>
          ))}
          {available.data && available.data.items.length === 0 ? (
            <p class="muted">Connect a payment service first.</p>
          ) : null}
        </fieldset>
      ) : null}
      {action === 'decline-early' ? (
        <Field label="Reason (shown as the decline description)">
          <input name="reason" maxLength={200} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
        </Field>
      ) : null}
      {action === 'select-payment-options' ? (
        <Field label="Payment options offered (comma-separated, e.g. card, paypal)">
          <input name="payment_options" required value={options} onInput={(e) => setOptions(e.currentTarget.value)} />
        </Field>
      ) : null}
      <button type="submit" disabled={act.busy}>
        Create rule
      </button>
    </form>
  );
}

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
