import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { get, put, type ListPage } from '../api.ts';
import type { PageProps } from '../pages.tsx';
import { hasScope } from '../session.ts';
import { useAsync } from '../ui/async.ts';
import { Empty, ErrorNotice, Field, Loading, PageHeader, Status, useAction } from '../ui/components.tsx';
import { label } from '../ui/format.ts';
import {
  FLOW_ACTIONS,
  FLOWS,
  describeCondition,
  describeOutcome,
  dropped,
  moved,
  type Flow,
  type FlowAction,
} from './routing-rules.ts';
import { DryRun } from './routing-dry-run.tsx';
import { RuleForm } from './routing-forms.tsx';
import { STRATEGY_TEXT, strategyOf } from './routing-strategy.ts';

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
  // The payment services' names, so a rule says where it routes in words.
  const services = useAsync(
    () => get<ListPage<{ id: string; display_name: string }>>('/payment-services?limit=100'),
    'routing-services',
  );
  const serviceNames = new Map((services.data?.items ?? []).map((s) => [s.id, s.display_name] as const));
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
            <RuleList
              base={base}
              action={current}
              rules={rules.data.items}
              serviceNames={serviceNames}
              canWrite={canWrite}
              onChange={changed}
            />
          )}
          {canWrite ? <RuleForm key={base} base={base} action={current} flow={flow} onCreated={changed} /> : null}
        </div>
        <DryRun
          key={`${flow}-${current}`}
          flow={flow}
          action={current}
          version={dryRunTick}
          rules={rules.data?.items ?? []}
        />
      </div>
    </section>
  );
}

function RuleList({
  base,
  action,
  rules,
  serviceNames,
  canWrite,
  onChange,
}: {
  base: string;
  action: FlowAction;
  rules: FlowRule[];
  serviceNames: ReadonlyMap<string, string>;
  canWrite: boolean;
  onChange: () => void;
}): JSX.Element {
  const act = useAction();
  const [dragging, setDragging] = useState<string | null>(null);
  const [over, setOver] = useState<string | null>(null);
  if (rules.length === 0) return <Empty>No rule for this action: the default applies to every transaction.</Empty>;
  const ids = rules.map((r) => r.id);
  const save = (order: string[]) =>
    act.run(async () => {
      if (order.join() === ids.join()) return;
      await put(`${base.slice(0, -'/rules'.length)}/rule-order`, { rule_ids: order });
      onChange();
    });
  const reorder = (id: string, by: -1 | 1) => save(moved(ids, id, by));
  // HTML5 drag and drop on the rows; the up/down buttons do the same from the keyboard.
  const drag = (rule: FlowRule) =>
    canWrite && !act.busy
      ? {
          draggable: true,
          onDragStart: (e: DragEvent) => {
            e.dataTransfer?.setData('text/plain', rule.id);
            if (e.dataTransfer) e.dataTransfer.effectAllowed = 'move';
            setDragging(rule.id);
          },
          onDragEnd: () => {
            setDragging(null);
            setOver(null);
          },
          onDragOver: (e: DragEvent) => {
            e.preventDefault();
            if (over !== rule.id) setOver(rule.id);
          },
          onDrop: (e: DragEvent) => {
            e.preventDefault();
            const from = e.dataTransfer?.getData('text/plain') || dragging;
            setDragging(null);
            setOver(null);
            if (from) void save(dropped(ids, from, rule.id));
          },
        }
      : {};
  const toggle = (rule: FlowRule) =>
    act.run(async () => {
      await put(`${base}/${rule.id}`, { enabled: !rule.enabled });
      onChange();
    });
  return (
    <section class="card">
      <h2>Rules, in the order they are evaluated</h2>
      {canWrite && rules.length > 1 ? (
        <p class="muted">Drag a rule onto another to put it in that place, or use its Up and Down buttons.</p>
      ) : null}
      <ErrorNotice error={act.error} />
      <ol class="rules">
        {rules.map((rule, i) => (
          <li
            key={rule.id}
            class={`rule${canWrite ? ' draggable' : ''}${dragging === rule.id ? ' dragging' : ''}${over === rule.id && dragging !== rule.id ? ' drop-target' : ''}`}
            data-rule-id={rule.id}
            {...drag(rule)}
          >
            <div class="rule-head">
              <strong>
                {rule.position}. {rule.description ?? 'Rule'}
              </strong>
              <span class="badges">
                {action === 'route-transaction' ? (
                  <span class="badge" title="How the first service is chosen">
                    {STRATEGY_TEXT[strategyOf(rule.outcome)].title}
                  </span>
                ) : null}
                <Status value={rule.enabled ? 'enabled' : 'disabled'} />
              </span>
            </div>
            <p class="muted">
              {rule.conditions.length === 0
                ? 'Every transaction'
                : rule.conditions.map(describeCondition).join(' and ')}
            </p>
            <p class="muted">Then: {describeOutcome(action, rule.outcome, serviceNames)}</p>
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
