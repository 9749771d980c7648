import { createHmac, timingSafeEqual } from 'node:crypto';
import { type AppError, fieldRefusal } from '../errors/app-error.ts';

export type Direction = 'next' | 'prev';

export interface CursorPosition {
  direction: Direction;
  /** The sort key of the row the page continues from, e.g. [created_at ISO string, id]. */
  key: (string | number)[];
  /** The row at `key` belongs to the page (a cursor made from an empty page). */
  inclusive?: boolean;
}

/**
 * Opaque cursors: base64url JSON of the position, then an HMAC over it, the list's name and the
 * merchant account. A cursor edited by hand, taken from another list, or from another merchant
 * account fails the check and is answered with 400, never a database error.
 */
export class CursorCodec {
  constructor(private readonly secret: Buffer) {}

  private mac(list: string, scope: string, payload: string): string {
    return createHmac('sha256', this.secret)
      .update(JSON.stringify([list, scope, payload]))
      .digest('base64url')
      .slice(0, 22);
  }

  encode(list: string, scope: string, position: CursorPosition): string {
    const payload = Buffer.from(
      JSON.stringify({
        d: position.direction === 'next' ? 'n' : 'p',
        k: position.key,
        ...(position.inclusive ? { i: 1 } : {}),
      }),
    ).toString('base64url');
    return `${payload}.${this.mac(list, scope, payload)}`;
  }

  decode(list: string, scope: string, cursor: string): CursorPosition {
    const [payload, mac, extra] = cursor.split('.');
    if (!payload || !mac || extra !== undefined) throw invalidCursor();
    const expected = Buffer.from(this.mac(list, scope, payload));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalidCursor();
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      throw invalidCursor();
    }
    const { d, k, i } = (parsed ?? {}) as { d?: unknown; k?: unknown; i?: unknown };
    if (
      (d !== 'n' && d !== 'p') ||
      !Array.isArray(k) ||
      k.length === 0 ||
      !k.every((v) => typeof v === 'string' || typeof v === 'number')
    )
      throw invalidCursor();
    return {
      direction: d === 'n' ? 'next' : 'prev',
      key: k as (string | number)[],
      ...(i === 1 ? { inclusive: true } : {}),
    };
  }
}

export function invalidCursor(): AppError {
  return fieldRefusal(
    'query',
    '/cursor',
    'Invalid or foreign cursor',
    'value_error',
    'The cursor is not valid for this list; pass a next_cursor or previous_cursor value returned by it',
  );
}
