import { ConfigError, customSetting, defineGroup, flagSetting, integerSetting, read } from '../lib/settings.ts';

/** The database: embedded PGlite by default, a PostgreSQL server with DATABASE_URL. */

export const databaseSettings = defineGroup('Database', {
  databaseUrl: customSetting(
    {
      name: 'DATABASE_URL',
      secret: true,
      default: 'unset',
      description:
        '`postgres://user:pass@host:5432/db`: use a PostgreSQL server instead of PGlite. Several server processes may share one database',
    },
    (env) => {
      const raw = read(env, 'DATABASE_URL');
      if (raw === undefined) return null;
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        throw new ConfigError(
          'DATABASE_URL',
          'is not a valid URL (expected postgres://user:password@host:5432/database)',
        );
      }
      if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
        throw new ConfigError('DATABASE_URL', `must start with postgres:// or postgresql://, got "${url.protocol}//"`);
      }
      return raw;
    },
  ),
  databasePoolSize: integerSetting('DATABASE_POOL_SIZE', {
    default: 10,
    min: 1,
    max: 1000,
    description:
      'Connections each server process keeps open to that PostgreSQL server (1 to 1000). Several processes on one server add up: keep their sum under its `max_connections`',
  }),
  databaseGroupCommit: flagSetting(
    'DATABASE_GROUP_COMMIT',
    true,
    "Concurrent requests' identical statements (a transaction's first insert, an answer's guarded statement, reads of a card or a transaction) go in one statement for all of them, each request answered once its own rows committed (decision 0084; on PGlite too since decision 0147). `false` runs every request's statements on their own",
  ),
});
