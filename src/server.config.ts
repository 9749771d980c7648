import path from 'node:path';
import { ConfigError, choiceSetting, customSetting, defineGroup, read } from './lib/settings.ts';

/** The process: which environment it is, its name, its logs and where it keeps its files. */

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const serverSettings = defineGroup('Server', {
  environment: choiceSetting(
    'ENVIRONMENT',
    'sandbox',
    ['sandbox', 'production'] as const,
    '`sandbox` or `production` (docs/production.md: what production refuses)',
  ),
  instanceId: customSetting(
    {
      name: 'INSTANCE_ID',
      default: '`local`',
      description:
        'Instance identifier (lowercase letters, digits and dashes, 1 to 63), used in the OpenAPI server URLs',
    },
    (env) => {
      const instanceId = read(env, 'INSTANCE_ID') ?? 'local';
      if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(instanceId)) {
        throw new ConfigError(
          'INSTANCE_ID',
          `must be lowercase letters, digits and dashes (1 to 63 characters), got "${instanceId}"`,
        );
      }
      return instanceId;
    },
  ),
  logLevel: choiceSetting(
    'LOG_LEVEL',
    'info',
    LOG_LEVELS,
    '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`',
  ),
  dataDir: customSetting(
    {
      name: 'DATA_DIR',
      default: '`./data`',
      description: 'Embedded database (`pgdata/`), the bootstrap key file; relative to the current directory',
    },
    (env) => path.resolve(read(env, 'DATA_DIR') ?? './data'),
  ),
});
