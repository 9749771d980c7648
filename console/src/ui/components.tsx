import type { ComponentChildren, JSX } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError } from '../api.ts';
import type { CursorList } from './async.ts';

const ERROR_TITLES: Record<string, string> = {
  forbidden: 'Not allowed',
  missing_scope: 'Not allowed',
  invalid_form: 'Check the form',
};

/** A form's own check failed: the message says what to correct; nothing was sent. */
export const formProblem = (message: string): ApiError => new ApiError(0, 'invalid_form', message);

export function ErrorNotice({ error }: { error: ApiError | Error | null | undefined }): JSX.Element | null {
  if (!error) return null;
  const code = error instanceof ApiError ? error.code : 'error';
  return (
    <div class="notice error" role="alert">
      <strong>{ERROR_TITLES[code] ?? 'Something went wrong'}</strong>
      <span>{error.message}</span>
    </div>
  );
}

export function Success({ children }: { children: ComponentChildren }): JSX.Element {
  return (
    <div class="notice success" role="status">
      {children}
    </div>
  );
}

export const Loading = () => (
  <p class="muted" role="status">
    Loading…
  </p>
);

export const Empty = ({ children }: { children: ComponentChildren }) => <p class="empty">{children}</p>;

export interface Column<T> {
  title: string;
  cell: (row: T) => ComponentChildren;
  class?: string;
}

/** A list page's table, with its loading, error and empty states and the cursor pager. */
export function ListTable<T>(props: {
  list: CursorList<T>;
  columns: Column<T>[];
  empty: string;
  caption: string;
  rowKey: (row: T) => string;
}): JSX.Element {
  const { list } = props;
  if (list.error) return <ErrorNotice error={list.error} />;
  if (!list.data) return <Loading />;
  if (list.data.items.length === 0 && !list.hasPrevious) return <Empty>{props.empty}</Empty>;
  return (
    <div>
      <ScrollRegion label={props.caption}>
        <table>
          <caption class="visually-hidden">{props.caption}</caption>
          <thead>
            <tr>
              {props.columns.map((c) => (
                <th scope="col" class={c.class}>
                  {c.title}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {list.data.items.map((row) => (
              <tr key={props.rowKey(row)}>
                {props.columns.map((c) => (
                  <td class={c.class}>{c.cell(row)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
      <Pager list={list} />
    </div>
  );
}

/**
 * A table's box that scrolls sideways on a narrow screen: focusable, so the keyboard scrolls it
 * too, and named after its table.
 */
export function ScrollRegion({ label, children }: { label: string; children: ComponentChildren }): JSX.Element {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take the focus for the keyboard to scroll it (WCAG 2.1.1)
    <section class="table-wrap" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}

export function Pager<T>({ list }: { list: CursorList<T> }): JSX.Element | null {
  if (!list.hasPrevious && !list.data?.next_cursor) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" class="secondary" disabled={!list.hasPrevious || list.loading} onClick={list.previous}>
        Previous page
      </button>
      <button type="button" class="secondary" disabled={!list.data?.next_cursor || list.loading} onClick={list.next}>
        Next page
      </button>
    </nav>
  );
}

/** A button that asks first: the action runs only after "Confirm". */
export function ConfirmAction(props: {
  label: string;
  question: string;
  confirmLabel?: string;
  danger?: boolean;
  onConfirm: () => Promise<void>;
}): JSX.Element {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!asking) {
    return (
      <button type="button" class={props.danger ? 'danger' : 'secondary'} onClick={() => setAsking(true)}>
        {props.label}
      </button>
    );
  }
  const confirm = async () => {
    setBusy(true);
    try {
      await props.onConfirm();
    } finally {
      setBusy(false);
      setAsking(false);
    }
  };
  return (
    <span class="confirm" aria-live="polite">
      <span>{props.question}</span>
      <button type="button" class={props.danger ? 'danger' : ''} disabled={busy} onClick={confirm}>
        {props.confirmLabel ?? 'Confirm'}
      </button>
      <button type="button" class="secondary" disabled={busy} onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

export function Field(props: { label: string; children: ComponentChildren; hint?: string }): JSX.Element {
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the control is the child the caller passes; the label wraps it
    <label class="field">
      <span class="field-label">{props.label}</span>
      {props.children}
      {props.hint ? <span class="hint">{props.hint}</span> : null}
    </label>
  );
}

export function PageHeader(props: { title: string; children?: ComponentChildren }): JSX.Element {
  return (
    <header class="page-header">
      <h1>{props.title}</h1>
      {props.children ? <div class="actions">{props.children}</div> : null}
    </header>
  );
}

export function Status({ value }: { value: string | null | undefined }): JSX.Element {
  return (
    <span class={`badge badge-${(value ?? 'none').replace(/[^a-z_]/g, '')}`}>{(value ?? '—').replace(/_/g, ' ')}</span>
  );
}

/** Runs a form's action, keeping its error for the form to show. */
export function useAction(): {
  busy: boolean;
  error: ApiError | null;
  run: (action: () => Promise<void>) => Promise<void>;
  clear: () => void;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  return {
    busy,
    error,
    clear: () => setError(null),
    async run(action) {
      setBusy(true);
      setError(null);
      try {
        await action();
      } catch (err) {
        setError(
          err instanceof ApiError
            ? err
            : new ApiError(0, 'client_error', err instanceof Error ? err.message : String(err)),
        );
      } finally {
        setBusy(false);
      }
    },
  };
}
