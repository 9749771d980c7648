import {
  boolean,
  ConfigError,
  customSetting,
  defineGroup,
  integer,
  oneOf,
  read,
  type Env,
  type Variable,
} from '../../lib/settings.ts';

/** Reports (docs/reports.md): where files are stored and how long they are kept. */

export interface ReportsConfig {
  /** `local`: files under DATA_DIR/reports; `s3`: an S3-compatible bucket. */
  storage: 'local' | 's3';
  s3: {
    bucket: string;
    region: string;
    endpoint: string | null;
    accessKeyId: string | null;
    secretAccessKey: string | null;
    prefix: string;
    forcePathStyle: boolean;
  } | null;
  /** Executions (and their files) older than this are purged. */
  retentionDays: number;
}

function reportsConfig(env: Env): ReportsConfig {
  const storage = oneOf(env, 'REPORTS_STORAGE', 'local', ['local', 's3'] as const);
  const retentionDays = integer(env, 'REPORTS_RETENTION_DAYS', 90, 1, 3650);
  if (storage === 'local') return { storage, s3: null, retentionDays };
  const bucket = read(env, 'REPORTS_S3_BUCKET');
  if (bucket === undefined) throw new ConfigError('REPORTS_S3_BUCKET', 'is required when REPORTS_STORAGE is s3');
  const endpoint = read(env, 'REPORTS_S3_ENDPOINT') ?? null;
  if (endpoint !== null && !/^https?:\/\/[^\s]+$/.test(endpoint))
    throw new ConfigError('REPORTS_S3_ENDPOINT', `must be an http(s) URL, got "${endpoint}"`);
  const accessKeyId = read(env, 'REPORTS_S3_ACCESS_KEY_ID') ?? null;
  const secretAccessKey = read(env, 'REPORTS_S3_SECRET_ACCESS_KEY') ?? null;
  if ((accessKeyId === null) !== (secretAccessKey === null))
    throw new ConfigError(
      'REPORTS_S3_SECRET_ACCESS_KEY',
      'REPORTS_S3_ACCESS_KEY_ID and REPORTS_S3_SECRET_ACCESS_KEY go together (or neither, for the default credential chain)',
    );
  const s3 = {
    bucket,
    region: read(env, 'REPORTS_S3_REGION') ?? 'us-east-1',
    endpoint,
    accessKeyId,
    secretAccessKey,
    prefix: read(env, 'REPORTS_S3_PREFIX') ?? '',
    forcePathStyle: boolean(env, 'REPORTS_S3_FORCE_PATH_STYLE', endpoint !== null),
  };
  return { storage, s3, retentionDays };
}

const S3 = 'With `REPORTS_STORAGE=s3`:';
const VARIABLES: Variable[] = [
  {
    name: 'REPORTS_STORAGE',
    default: '`local`',
    description:
      'Where report files go: `local` (under `DATA_DIR/reports`) or `s3` ([reports](reports.md), "Storage and download")',
  },
  { name: 'REPORTS_S3_BUCKET', default: 'unset', description: `${S3} the bucket (required)` },
  { name: 'REPORTS_S3_REGION', default: '`us-east-1`', description: `${S3} its region` },
  {
    name: 'REPORTS_S3_ENDPOINT',
    default: 'AWS',
    description: `${S3} an S3-compatible store's http(s) URL (MinIO, ...)`,
  },
  { name: 'REPORTS_S3_PREFIX', default: 'empty', description: `${S3} a key prefix` },
  {
    name: 'REPORTS_S3_FORCE_PATH_STYLE',
    default: '`true` with an endpoint, else `false`',
    description: `${S3} path-style addressing`,
  },
  {
    name: 'REPORTS_S3_ACCESS_KEY_ID',
    default: 'unset',
    description: `${S3} the bucket's access key id, with \`REPORTS_S3_SECRET_ACCESS_KEY\` (neither: the AWS SDK's default chain)`,
  },
  {
    name: 'REPORTS_S3_SECRET_ACCESS_KEY',
    secret: true,
    default: 'unset',
    description: `${S3} the bucket's secret access key, with \`REPORTS_S3_ACCESS_KEY_ID\``,
  },
  {
    name: 'REPORTS_RETENTION_DAYS',
    default: '`90`',
    description: 'Report executions and their files older than this are purged (1 to 3650)',
  },
];

export const reportSettings = defineGroup('Reports', {
  reports: customSetting(VARIABLES, reportsConfig),
});
