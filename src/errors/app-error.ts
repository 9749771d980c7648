import { DEFAULT_MESSAGE, ERROR_STATUS, type ErrorCode } from './codes.ts';

export type ErrorLocation = 'query' | 'body' | 'path' | 'header' | 'unknown';

/** One item of an error body's `details` list. */
export interface ErrorDetail {
  location: ErrorLocation;
  pointer: string;
  message: string;
  type: string;
}

export interface AppErrorOptions {
  details?: ErrorDetail[];
  resourceId?: string;
  cause?: unknown;
  /** Extra response headers, e.g. Retry-After on 429. */
  headers?: Record<string, string>;
}

/** The one error type services throw. Its status comes from the code. */
export class AppError extends Error {
  readonly status: number;
  readonly details: ErrorDetail[];
  readonly resourceId: string | undefined;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    message: string = DEFAULT_MESSAGE[code],
    options: AppErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
    this.details = options.details ?? [];
    this.resourceId = options.resourceId;
    this.headers = options.headers ?? {};
  }
}

export const badRequest = (message = DEFAULT_MESSAGE.bad_request, details: ErrorDetail[] = []) =>
  new AppError('bad_request', message, { details });

/** A 400 about one field of the request. */
export const invalidField = (location: ErrorLocation, pointer: string, message: string, type = 'value_error') =>
  new AppError('bad_request', 'Request failed validation', { details: [{ location, pointer, message, type }] });

/**
 * A 400 about one field whose message says what is wrong (rather than the generic "Request failed
 * validation"). `headline`: the error's own message when it says more than the field's (by default the same).
 */
export const fieldRefusal = (
  location: ErrorLocation,
  pointer: string,
  message: string,
  type = 'value_error',
  headline = message,
) => new AppError('bad_request', headline, { details: [{ location, pointer, message, type }] });

export const unauthorized = (message = DEFAULT_MESSAGE.unauthorized) => new AppError('unauthorized', message);

export const forbidden = (message = DEFAULT_MESSAGE.forbidden) => new AppError('forbidden', message);

export const missingScope = (scope: string) =>
  new AppError('forbidden', `The credential lacks the scope ${scope} required by this operation`);

export const notFound = (resource?: string, id?: string) =>
  new AppError(
    'not_found',
    resource === undefined ? DEFAULT_MESSAGE.not_found : `The ${resource}${id ? ` ${id}` : ''} could not be found`,
  );

export const duplicateRecord = (resourceId: string, message = DEFAULT_MESSAGE.duplicate_record) =>
  new AppError('duplicate_record', message, { resourceId });

export const tooEarly = (message = DEFAULT_MESSAGE.too_early, retryAfterSeconds = 1) =>
  new AppError('too_early', message, { headers: { 'retry-after': String(retryAfterSeconds) } });

export const tooManyRequests = (retryAfterSeconds: number) =>
  new AppError('too_many_requests', DEFAULT_MESSAGE.too_many_requests, {
    headers: { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
  });

export const serverError = (cause?: unknown) => new AppError('server_error', DEFAULT_MESSAGE.server_error, { cause });
