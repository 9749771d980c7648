import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.ts';
import { DEFAULT_MESSAGE, ERROR_STATUS, type ErrorCode } from '../errors/codes.ts';
import { translatePgError } from '../errors/pg-errors.ts';
import type { ErrorBody, ValidationErrorBody } from './schemas/common.ts';
import { toValidationBody } from './validation.ts';

export interface RenderedError {
  status: number;
  body: ErrorBody | ValidationErrorBody;
  headers: Record<string, string>;
  /** The cause must be logged: an unexpected failure. */
  unexpected: boolean;
}

const CODE_BY_STATUS = new Map<number, ErrorCode>(
  Object.entries(ERROR_STATUS).map(([code, status]) => [status, code as ErrorCode]),
);

function errorBody(error: AppError): ErrorBody {
  const body: ErrorBody = {
    type: 'error',
    code: error.code,
    status: error.status,
    message: error.message,
    details: error.details,
  };
  if (error.code === 'duplicate_record') body.resource_id = error.resourceId ?? null;
  return body;
}

function humanSize(bytes: number): string {
  return bytes % (1024 * 1024) === 0
    ? `${bytes / (1024 * 1024)} MiB`
    : bytes % 1024 === 0
      ? `${bytes / 1024} KiB`
      : `${bytes} bytes`;
}

/** Maps Fastify's own request errors (parsing, size, media type) onto the specification's codes. */
function fromFastifyError(error: FastifyError, bodyLimit: number): AppError | null {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError(
        'bad_request',
        `Request body is larger than the limit of ${bodyLimit} bytes (${humanSize(bodyLimit)})`,
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('bad_request', 'Unsupported Content-Type; send the request body as application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('bad_request', 'The Content-Length header does not match the length of the request body');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('bad_request', 'The request body is empty although Content-Type is application/json');
    case 'FST_ERR_BAD_URL':
      return new AppError('bad_request', 'The request URL is malformed: a path segment has invalid percent-encoding');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('bad_request', 'A path parameter is longer than 500 characters; no identifier is that long');
    default:
      break;
  }
  const status = error.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    const code = CODE_BY_STATUS.get(status) ?? 'bad_request';
    return new AppError(code, code === 'bad_request' ? DEFAULT_MESSAGE.bad_request : DEFAULT_MESSAGE[code]);
  }
  return null;
}

/** Renders any thrown value as the specification's error body. Pure: no logging, no reply. */
export function renderError(raw: unknown, bodyLimit: number): RenderedError {
  const error = translatePgError(raw);
  const fastifyError = error as FastifyError & { validationContext?: string };
  if (fastifyError?.validation) {
    return {
      status: 422,
      body: toValidationBody(fastifyError.validation as never, fastifyError.validationContext ?? 'body'),
      headers: {},
      unexpected: false,
    };
  }
  const appError = error instanceof AppError ? error : fromFastifyError(fastifyError, bodyLimit);
  if (appError) {
    return {
      status: appError.status,
      body: errorBody(appError),
      headers: appError.headers,
      unexpected: appError.status >= 500 && appError.code === 'server_error',
    };
  }
  const fallback = new AppError('server_error');
  return { status: 500, body: errorBody(fallback), headers: {}, unexpected: true };
}

export function errorHandler(bodyLimit: number) {
  return function handle(this: unknown, error: unknown, request: FastifyRequest, reply: FastifyReply) {
    const rendered = renderError(error, bodyLimit);
    if (rendered.unexpected) {
      request.log.error({ err: error }, 'request failed unexpectedly');
    } else if (rendered.status >= 500) {
      request.log.warn({ err: error }, 'upstream failure');
    }
    return reply.code(rendered.status).headers(rendered.headers).send(rendered.body);
  };
}

/**
 * Errors the router raises before any route matches (malformed percent-encoding, an over-long path
 * parameter): Fastify would answer them with its own body, so they go through the same renderer.
 */
export function frameworkErrorHandler(bodyLimit: number) {
  const handle = errorHandler(bodyLimit);
  return function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
    reply.header('x-request-id', request.id);
    return handle(error, request, reply);
  };
}
