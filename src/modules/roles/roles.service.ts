import type { RequestContext } from '../../context.ts';
import type { KeysetPage } from '../../db/keyset.ts';
import type { CursorPosition } from '../../http/cursor.ts';
import { listPage, type ListEnvelope } from '../../http/pagination.ts';
import { ROLE_SLUGS, type RoleSlug } from './roles.catalogue.ts';
import { toRoleResource, type ListRolesQuery, type Role } from './roles.schemas.ts';

interface Positioned {
  position: number;
  slug: RoleSlug;
}

const CATALOGUE: readonly Positioned[] = ROLE_SLUGS.map((slug, position) => ({ position, slug }));

/**
 * One keyset page of the fixed catalogue, by position: the same paging as a database list (the
 * cursor carries [position, slug]), so a client pages roles as it pages anything else.
 */
export function cataloguePage(position: CursorPosition | null, limit: number): KeysetPage<Positioned> {
  if (!position) return { rows: CATALOGUE.slice(0, limit), hasNext: CATALOGUE.length > limit, hasPrev: false };
  const at = Number(position.key[0]);
  if (position.direction === 'next') {
    const start = position.inclusive ? at : at + 1;
    return {
      rows: CATALOGUE.slice(start, start + limit),
      hasNext: start + limit < CATALOGUE.length,
      hasPrev: start > 0,
    };
  }
  const end = Math.min(position.inclusive ? at + 1 : at, CATALOGUE.length);
  const start = Math.max(0, end - limit);
  return { rows: CATALOGUE.slice(start, end), hasNext: end < CATALOGUE.length, hasPrev: start > 0 };
}

/** Every role of the catalogue, the same for every merchant account (instance-wide cursors). */
export async function listRoles(ctx: RequestContext, query: ListRolesQuery): Promise<ListEnvelope<Role>> {
  return listPage(
    ctx,
    'roles',
    query,
    async (position, limit) => cataloguePage(position, limit),
    (row) => toRoleResource(row.slug),
    (row) => [row.position, row.slug],
    'instance',
    'integer',
  );
}
