import { isCachedPlanChange } from '../db/statement-names.ts';
import { AppError } from './app-error.ts';

/** SQLSTATE codes the data layer reacts to. */
export const SQLSTATE = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
  checkViolation: '23514',
  serializationFailure: '40001',
  deadlockDetected: '40P01',
  invalidTextRepresentation: '22P02',
  characterNotInRepertoire: '22021',
  untranslatableCharacter: '22P05',
} as const;

export function sqlState(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = (error as { code: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

export function isRetryable(error: unknown): boolean {
  const state = sqlState(error);
  // A named statement prepared before a migration changed its table (src/db/prepared-statements.ts):
  // the text is no longer named, so the transaction's second run works.
  if (isCachedPlanChange(error)) return true;
  return state === SQLSTATE.serializationFailure || state === SQLSTATE.deadlockDetected;
}

/**
 * Turns a driver error into an AppError where the meaning is known. Unique violations need the
 * conflicting id, which only the caller knows, so repos catch those themselves
 * (see `isUniqueViolation`); what reaches here unhandled is a bug and becomes a 500.
 */
export function translatePgError(error: unknown): unknown {
  if (error instanceof AppError) return error;
  const state = sqlState(error);
  if (state === SQLSTATE.foreignKeyViolation) {
    return new AppError('not_found', 'A resource referenced by this request could not be found', { cause: error });
  }
  if (state === SQLSTATE.characterNotInRepertoire || state === SQLSTATE.untranslatableCharacter) {
    return new AppError('bad_request', 'The request contains a character that cannot be stored (such as NUL)', {
      cause: error,
    });
  }
  if (state === SQLSTATE.invalidTextRepresentation) {
    return new AppError('bad_request', 'Request failed validation', { cause: error });
  }
  return error;
}

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (sqlState(error) !== SQLSTATE.uniqueViolation) return false;
  if (constraint === undefined) return true;
  return (error as { constraint?: string }).constraint === constraint;
}
