import { AppError, fieldRefusal } from './app-error.ts';

/**
 * The refusals of a simulation asked for in production (ENVIRONMENT=production never writes a
 * simulated value; issue 50). Every "sandbox only" refusal is built here so they read alike;
 * docs/production.md lists each one with its message.
 */

/** Whether the server runs with ENVIRONMENT=production. */
export const isProduction = (config: { environment: string }): boolean => config.environment === 'production';

/**
 * 403 `forbidden`: `what` is simulated in the sandbox and nothing real stands behind it in this
 * server; `instead` says what to configure or use. The message: "<what>: a sandbox simulation, not
 * available in production; <instead>".
 */
export function sandboxOnly(what: string, instead: string): AppError {
  return new AppError('forbidden', `${what}: a sandbox simulation, not available in production; ${instead}`);
}

/** Throws `sandboxOnly(what, instead)` when the server runs in production. */
export function refuseInProduction(config: { environment: string }, what: string, instead: string): void {
  if (isProduction(config)) throw sandboxOnly(what, instead);
}

/**
 * 400 `bad_request`: a sandbox connector named by a request (`pointer` in its body) or behind a
 * payment service it uses. `alternatives` are the real definitions of the same method.
 */
export function sandboxConnectorRefusal(
  definitionId: string,
  method: string,
  alternatives: readonly string[],
  pointer: string | null = null,
): AppError {
  const instead =
    alternatives.length > 0
      ? `use one of: ${alternatives.join(', ')}`
      : `no production connector processes ${method} yet`;
  const message = `${definitionId} is a sandbox connector and is not available in production; ${instead}`;
  return pointer ? fieldRefusal('body', pointer, message, 'sandbox_connector') : new AppError('bad_request', message);
}
