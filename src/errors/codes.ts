/** Every error code of the specification and its HTTP status. */
export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  duplicate_record: 409,
  too_early: 425,
  too_many_requests: 429,
  server_error: 500,
  bad_gateway: 502,
  gateway_timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The messages the specification gives where a case has no more specific one. */
export const DEFAULT_MESSAGE: Record<ErrorCode, string> = {
  bad_request: 'Request failed validation',
  unauthorized: 'No valid API authentication found',
  forbidden: 'Invalid credentials or no permission on this resource',
  not_found: 'The resource could not be found',
  method_not_allowed: 'Method Not Allowed',
  duplicate_record: 'A duplicate record exists',
  too_early: 'Request made too early; retry it shortly',
  too_many_requests: 'Rate limit hit; retry later',
  server_error: 'Request could not be processed',
  bad_gateway: 'Request could not be processed',
  gateway_timeout: 'Request could not be processed',
};
