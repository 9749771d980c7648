import type { ReportSpecBody } from './report-spec.schemas.ts';
import { dateFilterProblem, type DateFilterJson } from './report-period.ts';
import { isTimeZone } from './zoned-time.ts';

/**
 * The rules of a report body the schema cannot say, answered like the schema's own failures (422
 * `{detail: [{loc, msg, type}]}`, rendered by http/error-handler.ts from `validation`): an unknown
 * time zone, a date filter with both ends open or its start after its end.
 */
function unprocessable(pointer: string, message: string): Error {
  return Object.assign(new Error(message), {
    statusCode: 422,
    validationContext: 'body',
    validation: [{ keyword: 'value_error', instancePath: pointer, schemaPath: '', params: {}, message }],
  });
}

export function checkReportBody(spec: ReportSpecBody, timeZone: string): void {
  if (!isTimeZone(timeZone))
    throw unprocessable(
      '/schedule_timezone',
      `Unknown time zone "${timeZone}": use an IANA name such as Etc/UTC or Europe/Paris`,
    );
  const filters = ((spec.params as { filters?: Record<string, unknown> | null }).filters ?? {}) as Record<
    string,
    unknown
  >;
  for (const [name, value] of Object.entries(filters)) {
    // Every object-valued filter is a date filter (lists are arrays, bounds numbers or booleans).
    if (!value || typeof value !== 'object' || Array.isArray(value)) continue;
    const problem = dateFilterProblem(value as DateFilterJson);
    if (problem)
      throw unprocessable(`/spec/params/filters/${name}${problem.at ? `/${problem.at}` : ''}`, problem.message);
  }
}
