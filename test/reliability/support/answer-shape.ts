/**
 * Whether an answer is one the specification allows: a success whose body is JSON (or empty for
 * 204), the error body `{type:'error', code, status, message, details[, resource_id]}` with the
 * real status, or the 422 validation body `{detail:[{loc, msg, type}]}`. A buyer's page (`page`) may
 * also answer a refusal as an HTML page with the real status. Returns the problem, or null.
 */
export function answerProblem(
  status: number,
  contentType: string | undefined,
  body: string,
  page = false,
): string | null {
  if (status >= 500) return `answered ${status}`;
  if (page && /^text\/html/.test(contentType ?? '') && body.startsWith('<!doctype html>')) return null;
  if (status === 204 || status === 304 || (status >= 300 && status < 400)) return null;
  if (body === '' && status < 300) return null;
  if (!/^application\/json/.test(contentType ?? ''))
    return `answered ${status} with content-type ${contentType ?? '(none)'}`;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return `answered ${status} with a body that is not JSON`;
  }
  if (status < 300) return null;
  if (status === 422) return validationProblem(json);
  return errorProblem(json, status);
}

function errorProblem(json: unknown, status: number): string | null {
  const body = json as Record<string, unknown>;
  const keys = Object.keys(body ?? {})
    .filter((k) => k !== 'resource_id')
    .sort()
    .join(',');
  if (keys !== 'code,details,message,status,type') return `error body has keys ${keys}`;
  if (
    body.type !== 'error' ||
    body.status !== status ||
    typeof body.code !== 'string' ||
    typeof body.message !== 'string' ||
    !Array.isArray(body.details)
  ) {
    return `error body ${JSON.stringify(body).slice(0, 200)} does not match status ${status}`;
  }
  return null;
}

function validationProblem(json: unknown): string | null {
  const body = json as { detail?: Array<{ loc?: unknown; msg?: unknown; type?: unknown }> };
  if (Object.keys(body ?? {}).join(',') !== 'detail' || !Array.isArray(body.detail) || body.detail.length === 0)
    return `422 body ${JSON.stringify(body).slice(0, 200)}`;
  const bad = body.detail.find((d) => !Array.isArray(d.loc) || typeof d.msg !== 'string' || typeof d.type !== 'string');
  return bad ? `422 detail entry ${JSON.stringify(bad)}` : null;
}
