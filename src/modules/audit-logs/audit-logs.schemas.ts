import { Type, type Static } from 'typebox';
import type { AuditLogRow } from '../../db/schema.ts';
import { Cursor, DateTime, ListEnvelope, Nullable, PageLimit, StringEnum } from '../../http/schemas/common.ts';

export const AUDIT_ACTIONS = ['created', 'updated', 'deleted', 'voided', 'canceled', 'captured'] as const;

export const ListAuditLogsQuery = Type.Object({
  cursor: Type.Optional(Nullable(Cursor)),
  limit: PageLimit,
  action: Type.Optional(Nullable(StringEnum(AUDIT_ACTIONS))),
  user_id: Type.Optional(Nullable(Type.String({ format: 'uuid' }))),
  resource_type: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 100 }))),
});
export type ListAuditLogsQuery = Static<typeof ListAuditLogsQuery>;

export const AuditLogSchema = Type.Object(
  {
    type: Type.Literal('audit-log'),
    id: Type.String({ format: 'uuid' }),
    timestamp: DateTime(),
    merchant_account_id: Type.String(),
    action: StringEnum(AUDIT_ACTIONS),
    resource: Type.Object(
      { type: Type.String(), id: Type.String(), name: Type.String() },
      { additionalProperties: false },
    ),
    user: Type.Object(
      {
        type: Type.Literal('user'),
        id: Nullable(Type.String()),
        name: Type.String(),
        email_address: Nullable(Type.String({ description: 'personal data' })),
        is_staff: Type.Boolean(),
        status: StringEnum(['active', 'pending', 'deleted']),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, title: 'AuditLogEntry' },
);
export type AuditLog = Static<typeof AuditLogSchema>;

export const AuditLogsSchema = ListEnvelope(AuditLogSchema, 'AuditLogEntries');

export function toAuditLogResource(row: AuditLogRow): AuditLog {
  return {
    type: 'audit-log',
    id: row.id,
    timestamp: row.created_at.toISOString(),
    merchant_account_id: row.merchant_account_id,
    action: row.action,
    resource: { type: row.resource_type, id: row.resource_id, name: row.resource_name },
    user: {
      type: 'user',
      id: row.user_id,
      name: row.user_name,
      email_address: row.user_email_address,
      is_staff: row.user_is_staff,
      status: 'active',
    },
  };
}
