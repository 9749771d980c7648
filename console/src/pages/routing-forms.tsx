import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { get, post, type ListPage } from '../api.ts';
import { useAsync } from '../ui/async.ts';
import { ErrorNotice, Field, formProblem, useAction } from '../ui/components.tsx';
import { label } from '../ui/format.ts';
import {
  BUILDER_FIELDS,
  toCondition,
  type ConditionDraft,
  type Flow,
  type FlowAction,
  type Operator,
} from './routing-rules.ts';
import { StrategyFields } from './routing-strategy-fields.tsx';
import { DEFAULT_STRATEGY, strategyFields, type ParamKey, type StrategyDraft } from './routing-strategy.ts';

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
  const [strategy, setStrategy] = useState<StrategyDraft>(DEFAULT_STRATEGY);
  const [paramErrors, setParamErrors] = useState<Partial<Record<ParamKey, string>>>({});
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
    if (action === 'route-transaction') {
      const chosen = strategyFields(strategy, { stepUp: flow === 'card-transaction' });
      setParamErrors('errors' in chosen ? chosen.errors : {});
      if (services.length === 0) throw formProblem('Choose at least one payment service to route to.');
      if ('errors' in chosen) throw formProblem('Some values are out of range: correct the fields marked below.');
      return { payment_service_ids: services, ...chosen.fields };
    }
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
      setStrategy(DEFAULT_STRATEGY);
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
      {action === 'route-transaction' ? (
        <StrategyFields
          draft={strategy}
          errors={paramErrors}
          stepUp={flow === 'card-transaction'}
          onChange={setStrategy}
        />
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
