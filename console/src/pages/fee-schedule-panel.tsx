import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { get, put } from '../api.ts';
import { useAsync } from '../ui/async.ts';
import { Empty, ErrorNotice, Loading, ScrollRegion, Success, formProblem, useAction } from '../ui/components.tsx';
import { dateTime } from '../ui/format.ts';
import { FeeEntryFields } from './fee-entry-fields.tsx';
import {
  EMPTY_FEE,
  MAX_FEE_ENTRIES,
  describeFee,
  feeDraft,
  feeEntries,
  type FeeDraft,
  type FeeEntry,
  type FeeSchedule,
} from './fee-schedule.ts';

/**
 * A payment service's fee schedule: what least-cost routing expects it to charge. Read with
 * payment-services.read; edited (the whole schedule replaced) with payment-services.write.
 */
export function FeeSchedulePanel({ serviceId, canWrite }: { serviceId: string; canWrite: boolean }): JSX.Element {
  const path = `/payment-services/${encodeURIComponent(serviceId)}/fee-schedule`;
  const schedule = useAsync(() => get<FeeSchedule>(path), path);
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState(false);
  return (
    <section class="card" aria-labelledby="fee-schedule-title">
      <h2 id="fee-schedule-title">Fee schedule</h2>
      <p class="muted">
        What this service charges per payment. Rules with the least-cost strategy send a payment first to the cheapest
        service whose success rate is close to the best; the most specific entry that matches a payment applies.
      </p>
      {saved ? <Success>The fee schedule is saved.</Success> : null}
      {schedule.error ? (
        <ErrorNotice error={schedule.error} />
      ) : !schedule.data ? (
        <Loading />
      ) : editing ? (
        <FeeScheduleForm
          path={path}
          entries={schedule.data.entries}
          onDone={(changed) => {
            setEditing(false);
            setSaved(changed);
            if (changed) schedule.reload();
          }}
        />
      ) : (
        <>
          <FeeTable schedule={schedule.data} />
          {canWrite ? (
            <button
              type="button"
              class="secondary"
              onClick={() => {
                setSaved(false);
                setEditing(true);
              }}
            >
              Edit fee schedule
            </button>
          ) : null}
        </>
      )}
    </section>
  );
}

const any = (value: string | null) => value ?? 'Any';

function FeeTable({ schedule }: { schedule: FeeSchedule }): JSX.Element {
  if (schedule.entries.length === 0)
    return <Empty>No fee schedule: least-cost routing treats this service's cost as unknown.</Empty>;
  return (
    <>
      <ScrollRegion label="Fee schedule entries">
        <table>
          <caption class="visually-hidden">Fee schedule entries</caption>
          <thead>
            <tr>
              <th scope="col">Scheme</th>
              <th scope="col">Card type</th>
              <th scope="col">Currency</th>
              <th scope="col">Country</th>
              <th scope="col">Fee</th>
            </tr>
          </thead>
          <tbody>
            {schedule.entries.map((e, i) => (
              <tr key={i}>
                <td>{any(e.scheme)}</td>
                <td>{any(e.card_type)}</td>
                <td>{any(e.currency)}</td>
                <td>{any(e.country)}</td>
                <td>{describeFee(e)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
      <p class="muted">Last changed {dateTime(schedule.updated_at)}</p>
    </>
  );
}

function FeeScheduleForm({
  path,
  entries,
  onDone,
}: {
  path: string;
  entries: FeeEntry[];
  onDone: (changed: boolean) => void;
}): JSX.Element {
  const [drafts, setDrafts] = useState<FeeDraft[]>(entries.length > 0 ? entries.map(feeDraft) : [{ ...EMPTY_FEE }]);
  const [errors, setErrors] = useState<Array<string | null>>([]);
  const schemes = useAsync(
    () => get<{ items: Array<{ id: string; display_name: string }> }>('/card-scheme-definitions'),
    'card-schemes',
  );
  const act = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void act.run(async () => {
      const built = feeEntries(drafts);
      setErrors('errors' in built ? built.errors : []);
      if ('errors' in built) throw formProblem('Some entries need a correction: see the messages below.');
      await put(path, { entries: built.entries });
      onDone(true);
    });
  };
  return (
    <form class="form" onSubmit={submit} aria-labelledby="fee-schedule-title">
      <ErrorNotice error={act.error} />
      {drafts.map((draft, i) => (
        <FeeEntryFields
          key={i}
          n={i + 1}
          draft={draft}
          error={errors[i] ?? null}
          schemes={schemes.data?.items ?? []}
          onChange={(next) => setDrafts(drafts.map((d, j) => (j === i ? next : d)))}
          onRemove={() => setDrafts(drafts.filter((_d, j) => j !== i))}
        />
      ))}
      {drafts.length === 0 ? (
        <p class="muted">No entries: saving removes the schedule (the service's cost becomes unknown).</p>
      ) : null}
      <div class="actions">
        <button
          type="button"
          class="secondary"
          disabled={drafts.length >= MAX_FEE_ENTRIES}
          onClick={() => setDrafts([...drafts, { ...EMPTY_FEE }])}
        >
          Add an entry
        </button>
        <button type="submit" disabled={act.busy}>
          Save fee schedule
        </button>
        <button type="button" class="secondary" disabled={act.busy} onClick={() => onDone(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
