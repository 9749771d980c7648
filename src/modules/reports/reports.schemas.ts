import { Type, type Static, type TSchema } from 'typebox';
import {
  Cursor,
  DateTime,
  ListEnvelope,
  Nullable,
  NullableOut,
  PageLimit,
  StringEnum,
  Uuid,
} from '../../http/schemas/common.ts';
import { REPORT_SCHEDULES } from './report-schedule.ts';
import { REPORT_MODELS, ReportSpecBody } from './report-spec.schemas.ts';

/** `/reports` and `/report-executions`: ReportCreate, ReportUpdate, Report, ReportExecution, ReportExecutionUrl. */

export const REPORT_EXECUTION_STATUSES = ['pending', 'processing', 'succeeded', 'failed', 'dispatched'] as const;
export type ReportExecutionStatus = (typeof REPORT_EXECUTION_STATUSES)[number];
export const CREATOR_TYPES = ['user', 'private_key'] as const;

const Opt = <T extends TSchema>(schema: T) => Type.Optional(Nullable(schema));
const Name = () => Type.String({ minLength: 1, maxLength: 100 });
const Description = () => Type.String({ minLength: 1, maxLength: 1000 });

export const CreateReportBody = Type.Object(
  {
    name: Name(),
    description: Opt(Description()),
    schedule: StringEnum(REPORT_SCHEDULES, {
      description:
        '`once` runs at once; `daily`, `weekly` (Mondays) and `monthly` (the 1st) at midnight in schedule_timezone',
    }),
    schedule_enabled: Type.Boolean({ description: 'false: no execution is made until it is switched on' }),
    schedule_timezone: Type.String({
      minLength: 1,
      maxLength: 64,
      default: 'Etc/UTC',
      description:
        'IANA time zone name (e.g. Europe/Paris) of the schedule, of placeholders and of the time stamps in the file',
    }),
    spec: ReportSpecBody,
  },
  { additionalProperties: false, title: 'ReportCreate' },
);
export type CreateReportBody = Static<typeof CreateReportBody>;

export const UpdateReportBody = Type.Object(
  { name: Opt(Name()), description: Opt(Description()), schedule_enabled: Opt(Type.Boolean()) },
  { additionalProperties: false, title: 'ReportUpdate' },
);
export type UpdateReportBody = Static<typeof UpdateReportBody>;

export const ReportParams = Type.Object({ report_id: Uuid({ description: 'ID of the report' }) });
export const ReportExecutionParams = Type.Object({
  report_execution_id: Uuid({ description: 'ID of the report execution' }),
});
export const ReportExecutionUrlParams = Type.Object({
  report_id: Uuid({ description: 'ID of the report' }),
  report_execution_id: Uuid({ description: 'ID of the report execution' }),
});

const Limit = PageLimit;

export const ListReportsQuery = Type.Object({
  cursor: Opt(Cursor),
  limit: Limit,
  name: Opt(Type.String({ minLength: 1, maxLength: 100, description: 'Part of the name (case-insensitive)' })),
  schedule: Opt(
    Type.Array(StringEnum(REPORT_SCHEDULES), { minItems: 1, maxItems: 4, description: 'Match any; repeat the key' }),
  ),
  schedule_enabled: Opt(Type.Boolean()),
});
export type ListReportsQuery = Static<typeof ListReportsQuery>;

export const ListExecutionsOfReportQuery = Type.Object({ cursor: Opt(Cursor), limit: Limit });
export type ListExecutionsOfReportQuery = Static<typeof ListExecutionsOfReportQuery>;

export const ListReportExecutionsQuery = Type.Object({
  cursor: Opt(Cursor),
  limit: Limit,
  created_at_gte: Opt(DateTime({ description: 'Created at or after; with a time zone offset' })),
  created_at_lte: Opt(DateTime({ description: 'Created at or before; with a time zone offset' })),
  creator_id: Opt(
    Type.Array(Uuid(), {
      minItems: 1,
      maxItems: 20,
      description: 'Reports made by any of these creators; repeat the key',
    }),
  ),
  report_name: Opt(
    Type.String({ minLength: 1, maxLength: 100, description: 'Part of the report name (case-insensitive)' }),
  ),
  status: Opt(
    Type.Array(StringEnum(REPORT_EXECUTION_STATUSES), {
      minItems: 1,
      maxItems: 5,
      description: 'Match any; repeat the key',
    }),
  ),
});
export type ListReportExecutionsQuery = Static<typeof ListReportExecutionsQuery>;

export const CreateReportExecutionUrlBody = Type.Object(
  {
    expires_in: Type.Integer({
      minimum: 1,
      maximum: 10080,
      default: 5,
      description: 'Minutes the URL stays valid (1 to 10080, one week)',
    }),
  },
  { additionalProperties: false, title: 'ReportExecutionUrlGenerate' },
);
export type CreateReportExecutionUrlBody = Static<typeof CreateReportExecutionUrlBody>;

export const ReportExecutionUrlSchema = Type.Object(
  {
    url: Type.String({ description: 'Signed URL of the gzip-compressed CSV file; no bearer token needed' }),
    expires_at: DateTime(),
  },
  { additionalProperties: false, title: 'ReportExecutionUrl' },
);
export type ReportExecutionUrl = Static<typeof ReportExecutionUrlSchema>;

const ContextSchema = Type.Object(
  {
    reference_timestamp: DateTime({
      description: 'The instant placeholders were resolved against (for a scheduled run, the midnight it ran at)',
    }),
    reference_timezone: Type.String({ description: 'The time zone placeholders were resolved in' }),
  },
  { additionalProperties: false, title: 'ReportExecutionContext' },
);

const Creator = {
  creator_id: NullableOut(Uuid()),
  creator_display_name: NullableOut(Type.String()),
  creator_type: NullableOut(StringEnum(CREATOR_TYPES)),
};

const ReportSummarySchema = Type.Object(
  { type: Type.Literal('report'), id: Uuid(), merchant_account_id: Type.String(), name: Type.String(), ...Creator },
  { additionalProperties: false, title: 'ReportSummary' },
);

const ExecutionFields = {
  type: Type.Literal('report-execution'),
  id: Uuid(),
  created_at: DateTime(),
  updated_at: DateTime(),
  status: StringEnum(REPORT_EXECUTION_STATUSES),
  context: ContextSchema,
};

const ExecutionError = NullableOut(
  Type.Object(
    { code: Type.String(), message: Type.String() },
    {
      additionalProperties: false,
      title: 'ReportExecutionError',
      description: 'Why a failed execution failed (docs/reports.md); null otherwise',
    },
  ),
);

const ExecutionOutput = {
  row_count: NullableOut(Type.Integer({ description: 'Data rows in the file, once written' })),
  size: NullableOut(Type.Integer({ description: 'Bytes of the gzip file, once written' })),
  error: ExecutionError,
};

export const ReportExecutionSchema = Type.Object(
  { ...ExecutionFields, ...ExecutionOutput, report: ReportSummarySchema },
  { additionalProperties: false, title: 'ReportExecution' },
);
export type ReportExecution = Static<typeof ReportExecutionSchema>;
const ReportExecutionSummarySchema = Type.Object(
  { ...ExecutionFields, ...ExecutionOutput },
  { additionalProperties: false, title: 'ReportExecutionSummary' },
);
export type ReportExecutionSummary = Static<typeof ReportExecutionSummarySchema>;

export const ReportSchema = Type.Object(
  {
    type: Type.Literal('report'),
    id: Uuid(),
    merchant_account_id: Type.String(),
    name: Type.String(),
    description: NullableOut(Type.String()),
    ...Creator,
    created_at: DateTime(),
    updated_at: DateTime(),
    next_execution_at: NullableOut(
      DateTime({
        description:
          'When the next execution is made; null when none is planned (a `once` report that ran, or schedule_enabled false)',
      }),
    ),
    schedule: StringEnum(REPORT_SCHEDULES),
    schedule_enabled: Type.Boolean(),
    schedule_timezone: Type.String(),
    spec: Type.Object(
      { model: StringEnum(REPORT_MODELS), params: Type.Record(Type.String(), Type.Unknown()) },
      { additionalProperties: false, title: 'ReportSpec' },
    ),
    latest_execution: NullableOut(ReportExecutionSummarySchema),
  },
  { additionalProperties: false, title: 'Report' },
);
export type Report = Static<typeof ReportSchema>;

export const ReportsSchema = ListEnvelope(ReportSchema, 'Reports');
export const ReportExecutionsSchema = ListEnvelope(ReportExecutionSchema, 'ReportExecutions');
