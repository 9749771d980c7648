import { STATUS_CODES } from 'node:http';

/**
 * What each response of the OpenAPI document says (docs/api-reference.md). @fastify/swagger writes
 * "Default Response" for every response whose schema has no description; generated clients and
 * the reference show that text, so each status gets its meaning in this API instead. The shared
 * error answers (http/define-route.ts, ERROR_RESPONSES) are written once, under
 * `components.responses`, and each operation refers to them.
 */
const ERRORS: Record<number, { name: string; description: string; schema: 'Error' | 'HTTPValidationError' }> = {
  400: {
    name: 'BadRequest',
    schema: 'Error',
    description: 'Bad Request: the request is malformed or a business rule refuses it (`Error`, code `bad_request`)',
  },
  401: {
    name: 'Unauthorized',
    schema: 'Error',
    description: 'Unauthorized: no valid credential (`Error`, code `unauthorized`)',
  },
  403: {
    name: 'Forbidden',
    schema: 'Error',
    description: 'Forbidden: the credential lacks the scope or the merchant account (`Error`, code `forbidden`)',
  },
  404: {
    name: 'NotFound',
    schema: 'Error',
    description: 'Not Found: the resource does not exist in this merchant account (`Error`, code `not_found`)',
  },
  405: {
    name: 'MethodNotAllowed',
    schema: 'Error',
    description: 'Method Not Allowed (`Error`, code `method_not_allowed`)',
  },
  409: {
    name: 'Conflict',
    schema: 'Error',
    description:
      'Conflict: a duplicate record, or a state that does not allow the operation (`Error`, code `duplicate_record`)',
  },
  422: {
    name: 'ValidationFailed',
    schema: 'HTTPValidationError',
    description: 'Unprocessable Entity: request validation failed (`HTTPValidationError`)',
  },
  425: {
    name: 'TooEarly',
    schema: 'Error',
    description:
      'Too Early: a request with the same idempotency key is still in progress; retry it shortly (`Error`, code `too_early`)',
  },
  429: {
    name: 'TooManyRequests',
    schema: 'Error',
    description: 'Too Many Requests: rate limit hit; retry later (`Error`, code `too_many_requests`)',
  },
  500: { name: 'ServerError', schema: 'Error', description: 'Internal Server Error (`Error`, code `server_error`)' },
  502: {
    name: 'BadGateway',
    schema: 'Error',
    description: 'Bad Gateway: a payment service (provider) failed or refused the call (`Error`, code `bad_gateway`)',
  },
  504: {
    name: 'GatewayTimeout',
    schema: 'Error',
    description:
      'Gateway Timeout: a payment service (provider) did not answer in time (`Error`, code `gateway_timeout`)',
  },
};

const PLACEHOLDER = 'Default Response';

interface ResponseObject {
  description?: string;
  content?: Record<string, { schema?: unknown }>;
  $ref?: string;
  [key: string]: unknown;
}

const jsonOf = (schema: string) => ({ 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } });

/** `components.responses`: each shared error answer once. */
export function sharedErrorResponses(): Record<string, { description: string; content: ReturnType<typeof jsonOf> }> {
  return Object.fromEntries(
    Object.values(ERRORS).map((error) => [
      error.name,
      { description: error.description, content: jsonOf(error.schema) },
    ]),
  );
}

/** The description of a response: the one its schema gives, else the meaning of its status. */
export function responseDescription(status: string, given: string | undefined): string {
  if (given && given !== PLACEHOLDER) return given;
  const code = Number(status);
  if (ERRORS[code]) return ERRORS[code].description;
  const text = STATUS_CODES[code];
  if (!text) throw new Error(`OpenAPI: no description for HTTP status ${status}`);
  return text;
}

/** The shared error answer exactly as @fastify/swagger writes it from ERROR_RESPONSES. */
function isSharedError(status: string, response: ResponseObject): boolean {
  const error = ERRORS[Number(status)];
  return (
    error !== undefined &&
    response.description === PLACEHOLDER &&
    JSON.stringify(response.content) === JSON.stringify(jsonOf(error.schema)) &&
    Object.keys(response).length === 2
  );
}

/** Refers the operation's shared error answers to `components.responses` and describes every other response. */
export function describeResponses(responses: Record<string, ResponseObject> | undefined): void {
  for (const [status, response] of Object.entries(responses ?? {})) {
    if (response.$ref) continue;
    if (isSharedError(status, response))
      responses![status] = { $ref: `#/components/responses/${ERRORS[Number(status)]!.name}` };
    else response.description = responseDescription(status, response.description);
  }
}
