import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { get, put, type ListPage } from '../api.ts';
import type { PageProps } from '../pages.tsx';
import { hasScope } from '../session.ts';
import { useAsync } from '../ui/async.ts';
import { Empty, ErrorNotice, Field, Loading, PageHeader, Status, useAction } from '../ui/components.tsx';
import { label } from '../ui/format.ts';
import { FLOW_ACTIONS, FLOWS, describeCondition, moved, type Flow, type FlowAction } from './routing-rules.ts';
import { DryRun, RuleForm } from './routing-forms.tsx';

export interface FlowRule {
  id: string;
  position: number;
  description: string | null;
  enabled: boolean;
  conditions: Array<{ field: string; operator: string; key: string | null; value: unknown }>;
  outcome: Record<string, unknown>;
}

/** Flow rules per flow and action, in evaluation order, with the dry run beside them. */
export function RoutingPage({ scopes }: PageProps): JSX.Element {
  const [flow, setFlow] = useState<Flow>('card-transaction');
  const [action, setAction] = useState<FlowAction>('route-transaction');
  const [dryRunTick, setDryRunTick] = useState(0);
  const actions = FLOW_ACTIONS[flow];
  const current = actions.includes(action) ? action : actions[0]!;
  const base = `/flows/${flow}/actions/${current}/rules`;
  const rules = useAsync(() => get<ListPage<FlowRule>>(`${base}?limit=100`), base);
  const canWrite = hasScope(scopes, 'flows.write');
  const changed = () => {
    rules.reload();
    setDryRunTick(dryRunTick + 1);
  };
  return (
    <section>
      <PageHeader title="Routing" />
      <div class="filters">
        <Field label="Flow">
          <select name="flow" value={flow} onChange={(e) => setFlow(e.currentTarget.value as Flow)}>
            {FLOWS.map((f) => (
              <option value={f}>{label(f)}</option>
            ))}
          </select>
        </Field>
        <Field label="Action">
          <select name="action" value={current} onChange={(e) => setAction(e.currentTarget.value as FlowAction)}>
            {actions.map((a) => (
              <option value={a}>{label(a)}</option>
            ))}
          </select>
        </Field>
      </div>
      <div class="split">
        <div>
          {rules.error ? (
            <ErrorNotice error={rules.error} />
          ) : !rules.data ? (
            <Loading />
          ) : (
            <RuleList base={base} rules={rules.data.items} canWrite={canWrite} onChange={changed} />
          )}
          {canWrite ? <RuleForm key={base} base={base} action={current} flow={flow} onCreated={changed} /> : null}
        </div>
        <DryRun key={`${flow}-${current}-${dryRunTick}`} flow={flow} action={current} />
      </div>
    </section>
  );
}

function RuleList({
  base,
  rules,
  canWrite,
  onChange,
}: {
  base: string;
  rules: FlowRule[];
  canWrite: boolean;
  onChange: () => void;
}): JSX.Element {
  const act = useAction();
  if (rules.length === 0) return <Empty>No rule for this action: the default applies to every transaction.</Empty>;
  const ids = rules.map((r) => r.id);
  const reorder = (id: string, by: -1 | 1) =>
    act.run(async () => {
      await put(`${base.slice(0, -'/rules'.length)}/rule-order`, { rule_ids: moved(ids, id, by) });
      onChange();
    });
  const toggle = (rule: FlowRule) =>
    act.run(async () => {
      await put(`${base}/${rule.id}`, { enabled: !rule.enabled });
      onChange();
    });
  return (
    <section class="card">
      <h2>Rules, in the order they are evaluated</h2>
      <ErrorNotice error={act.error} />
      <ol class="rules">
        {rules.map((rule, i) => (
          <li key={rule.id} class="rule" data-rule-id={rule.id}>
            <div class="rule-head">
              <strong>
                {rule.position}. {rule.description ?? 'Rule'}
              </strong>
              <Status value={rule.enabled ? 'enabled' : 'disabled'} />
            </div>
            <p class="muted">
              {rule.conditions.length === 0
                ? 'Every transaction'
                : rule.conditions.map(describeCondition).join(' and ')}
            </p>
            <p class="muted">Then: {JSON.stringify(rule.outcome)}</p>
            {canWrite ? (
              <div class="actions">
                <button
                  type="button"
                  class="secondary"
                  disabled={i === 0 || act.busy}
                  onClick={() => void reorder(rule.id, -1)}
                  aria-label={`Move rule ${rule.position} up`}
                >
                  Up
                </button>
                <button
                  type="button"
                  class="secondary"
                  disabled={i === rules.length - 1 || act.busy}
                  onClick={() => void reorder(rule.id, 1)}
                  aria-label={`Move rule ${rule.position} down`}
                >
                  Down
                </button>
                <button type="button" class="secondary" disabled={act.busy} onClick={() => void toggle(rule)}>
                  {rule.enabled ? 'Disable' : 'Enable'}
                </button>
              </div>
            ) : null}
          </li>
        ))}
      </ol>
    </section>
  );
}
