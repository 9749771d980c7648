import { Type } from 'typebox';

/** `prefer: resource=transaction` asks capture and void for the full transaction instead of their record. */
export const PreferHeader = Type.Optional(
  Type.String({
    maxLength: 200,
    description: 'Comma-separated preferences; `resource=transaction` returns the full transaction',
  }),
);

export function prefersTransaction(headers: Record<string, string | string[] | undefined>): boolean {
  const raw = headers.prefer;
  const values = (Array.isArray(raw) ? raw.join(',') : (raw ?? '')).split(',').map((v) => v.trim().toLowerCase());
  return values.includes('resource=transaction');
}
