import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { get, post, put } from '../api.ts';
import type { PageProps } from '../pages.tsx';
import { Link, navigate } from '../router.tsx';
import { hasScope } from '../session.ts';
import { useAsync, useCursorList } from '../ui/async.ts';
import { ErrorNotice, Field, ListTable, Loading, PageHeader, Status, Success, useAction } from '../ui/components.tsx';
import type { PaymentService } from './types.ts';

interface DefinitionField {
  key: string;
  display_name: string;
  required: boolean;
  format: 'text' | 'multiline' | 'number' | 'timezone' | 'boolean';
  secret: boolean;
}
interface Definition {
  id: string;
  display_name: string;
  method: string;
  mode: string;
  fields: DefinitionField[];
  supported_currencies: string[];
  supported_countries: string[];
}

export function PaymentServicesPage({ scopes }: PageProps): JSX.Element {
  const list = useCursorList<PaymentService>('/payment-services', {});
  const toggle = useAction();
  const canWrite = hasScope(scopes, 'payment-services.write');
  const setActive = (s: PaymentService) =>
    toggle.run(async () => {
      await put(`/payment-services/${s.id}`, { active: !s.active });
      list.reload();
    });
  return (
    <section>
      <PageHeader title="Payment services" />
      <ErrorNotice error={toggle.error} />
      <ListTable
        list={list}
        caption="Payment services"
        empty="No payment service is connected yet."
        rowKey={(s) => s.id}
        columns={[
          {
            title: 'Name',
            cell: (s) => <Link href={`/payment-services/${encodeURIComponent(s.id)}`}>{s.display_name}</Link>,
          },
          { title: 'Provider', cell: (s) => s.payment_service_definition_id },
          { title: 'Currencies', cell: (s) => s.accepted_currencies.join(', ') || '—' },
          {
            title: 'Countries',
            cell: (s) =>
              s.accepted_countries.length > 8
                ? `${s.accepted_countries.length} countries`
                : s.accepted_countries.join(', ') || '—',
          },
          { title: 'State', cell: (s) => <Status value={s.active ? 'active' : 'disabled'} /> },
          ...(canWrite
            ? [
                {
                  title: 'Action',
                  cell: (s: PaymentService) => (
                    <button type="button" class="secondary" onClick={() => void setActive(s)}>
                      {s.active ? `Disable ${s.display_name}` : `Enable ${s.display_name}`}
                    </button>
                  ),
                },
              ]
            : []),
        ]}
      />
      {canWrite ? <Definitions /> : null}
    </section>
  );
}

function Definitions(): JSX.Element {
  const list = useCursorList<Definition>('/payment-service-definitions', {}, 50);
  return (
    <section class="card">
      <h2>Connect a provider</h2>
      <ListTable
        list={list}
        caption="Payment service definitions"
        empty="No provider definitions."
        rowKey={(d) => d.id}
        columns={[
          { title: 'Provider', cell: (d) => d.display_name },
          { title: 'Method', cell: (d) => d.method },
          { title: 'Mode', cell: (d) => d.mode },
          {
            title: 'Connect',
            cell: (d) => (
              <Link href={`/payment-services/connect/${encodeURIComponent(d.id)}`}>Connect {d.display_name}</Link>
            ),
          },
        ]}
      />
    </section>
  );
}

const list = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((s) => s.trim().toUpperCase())
    .filter(Boolean);

/** A form generated from the definition's fields; secret fields are write-only (never read back). */
export function ConnectPaymentServicePage({ params }: PageProps): JSX.Element {
  const id = params.definition!;
  const def = useAsync(() => get<Definition>(`/payment-service-definitions/${encodeURIComponent(id)}`), id);
  if (def.error) return <ErrorNotice error={def.error} />;
  if (!def.data) return <Loading />;
  return <ConnectForm definition={def.data} />;
}

function ConnectForm({ definition }: { definition: Definition }): JSX.Element {
  const [name, setName] = useState(definition.display_name);
  const [values, setValues] = useState<Record<string, string>>({});
  const [currencies, setCurrencies] = useState('');
  const [countries, setCountries] = useState('');
  const [verified, setVerified] = useState(false);
  const action = useAction();
  const fields = () =>
    definition.fields.filter((f) => (values[f.key] ?? '') !== '').map((f) => ({ key: f.key, value: values[f.key]! }));
  const verify = () =>
    action.run(async () => {
      setVerified(false);
      await post('/payment-services/verify', { payment_service_definition_id: definition.id, fields: fields() });
      setVerified(true);
    });
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      await post('/payment-services', {
        display_name: name,
        payment_service_definition_id: definition.id,
        fields: fields(),
        accepted_currencies: list(currencies),
        accepted_countries: list(countries),
      });
      navigate('/payment-services');
    });
  };
  return (
    <section>
      <p>
        <Link href="/payment-services">← Payment services</Link>
      </p>
      <PageHeader title={`Connect ${definition.display_name}`} />
      <form class="card form" onSubmit={submit}>
        <ErrorNotice error={action.error} />
        {verified ? <Success>The credentials passed the check.</Success> : null}
        <Field label="Name">
          <input
            name="display_name"
            required
            maxLength={200}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </Field>
        {definition.fields.map((f) => (
          <DefinitionInput
            key={f.key}
            field={f}
            value={values[f.key] ?? ''}
            onInput={(v) => setValues({ ...values, [f.key]: v })}
          />
        ))}
        <Field
          label="Accepted currencies"
          hint={`ISO codes, comma-separated (${definition.supported_currencies.slice(0, 6).join(', ')}${definition.supported_currencies.length > 6 ? ', …' : ''})`}
        >
          <input
            name="accepted_currencies"
            required
            value={currencies}
            onInput={(e) => setCurrencies(e.currentTarget.value)}
          />
        </Field>
        <Field label="Accepted countries" hint="ISO codes, comma-separated">
          <input
            name="accepted_countries"
            required
            value={countries}
            onInput={(e) => setCountries(e.currentTarget.value)}
          />
        </Field>
        <div class="actions">
          <button type="button" class="secondary" disabled={action.busy} onClick={() => void verify()}>
            Verify credentials
          </button>
          <button type="submit" disabled={action.busy}>
            Connect
          </button>
        </div>
      </form>
    </section>
  );
}

function DefinitionInput({
  field,
  value,
  onInput,
}: {
  field: DefinitionField;
  value: string;
  onInput: (value: string) => void;
}): JSX.Element {
  const text = `${field.display_name}${field.required ? '' : ' (optional)'}`;
  if (field.format === 'boolean') {
    return (
      <label class="check">
        <input
          type="checkbox"
          name={field.key}
          checked={value === 'true'}
          onChange={(e) => onInput(e.currentTarget.checked ? 'true' : '')}
        />
        {text}
      </label>
    );
  }
  const common = {
    name: field.key,
    required: field.required,
    value,
    onInput: (e: Event) => onInput((e.currentTarget as HTMLInputElement).value),
  };
  return (
    <Field label={text} hint={field.secret ? 'Secret: stored encrypted, never shown again' : undefined}>
      {field.format === 'multiline' ? (
        <textarea {...common} rows={4} />
      ) : field.secret ? (
        <input {...common} type="password" autocomplete="new-password" />
      ) : field.format === 'number' ? (
        <input {...common} type="number" />
      ) : (
        <input {...common} type="text" autocomplete="off" />
      )}
    </Field>
  );
}
