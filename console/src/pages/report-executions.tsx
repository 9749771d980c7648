import type { JSX } from 'preact';
import { post } from '../api.ts';
import { useCursorList } from '../ui/async.ts';
import { ErrorNotice, ListTable, Status, useAction } from '../ui/components.tsx';
import { bytes, dateTime } from '../ui/format.ts';

interface ReportExecution {
  id: string;
  status: string;
  created_at: string;
  row_count: number | null;
  size: number | null;
  error: { code: string; message: string } | null;
  context: { reference_timestamp: string };
}

/** Fetches a file's signed address when asked for (it expires soon after) and follows it. */
export function useDownload(): {
  error: ReturnType<typeof useAction>['error'];
  start: (reportId: string, executionId: string) => void;
} {
  const action = useAction();
  return {
    error: action.error,
    start: (reportId, executionId) =>
      void action.run(async () => {
        const { url } = await post<{ url: string }>(`/reports/${reportId}/executions/${executionId}/url`);
        location.assign(url);
      }),
  };
}

/** The executions of one report, newest first (GET /reports/{id}/executions), each succeeded one's file to download. */
export function ReportExecutions({
  report,
  onClose,
}: {
  report: { id: string; name: string };
  onClose: () => void;
}): JSX.Element {
  const list = useCursorList<ReportExecution>(`/reports/${report.id}/executions`, {});
  const download = useDownload();
  return (
    <section class="card" aria-labelledby="executions-title">
      <div class="page-header">
        <h2 id="executions-title">Executions of {report.name}</h2>
        <div class="actions">
          <button type="button" class="secondary" onClick={list.reload}>
            Refresh executions
          </button>
          <button type="button" class="secondary" onClick={onClose}>
            Close
          </button>
        </div>
      </div>
      <ErrorNotice error={download.error} />
      <ListTable
        list={list}
        caption={`Executions of ${report.name}`}
        empty="No execution yet: a scheduled report runs at its next time."
        rowKey={(x) => x.id}
        columns={[
          { title: 'Started', cell: (x) => dateTime(x.created_at) },
          { title: 'Status', cell: (x) => <Status value={x.status} /> },
          { title: 'Rows', class: 'num', cell: (x) => (x.row_count === null ? '—' : String(x.row_count)) },
          { title: 'Size', class: 'num', cell: (x) => bytes(x.size) },
          { title: 'Error', cell: (x) => (x.error ? x.error.message : '—') },
          {
            title: 'File',
            cell: (x) =>
              x.status === 'succeeded' ? (
                <button type="button" class="secondary" onClick={() => download.start(report.id, x.id)}>
                  Download the run of {dateTime(x.created_at)}
                </button>
              ) : (
                '—'
              ),
          },
        ]}
      />
    </section>
  );
}
