import { describe, expect, it } from 'vitest';
import { databaseAddress, databaseConnectMessage, withoutDatabasePassword } from './connect-error.ts';

const refused = (address: string) =>
  Object.assign(new Error(`connect ECONNREFUSED ${address}:1`), { code: 'ECONNREFUSED', address, port: 1 });

describe('databaseConnectMessage', () => {
  it('names host:port and the code of an address that does not answer, one per host name with several addresses', () => {
    expect(databaseConnectMessage(refused('127.0.0.1'), 'postgres://u:p@127.0.0.1:1/x')).toBe(
      'cannot connect to PostgreSQL at 127.0.0.1:1 (ECONNREFUSED): is it running? check DATABASE_URL',
    );
    const both = new AggregateError([refused('::1'), refused('127.0.0.1')]);
    expect(databaseConnectMessage(both, 'postgres://u:p@localhost/x')).toBe(
      'cannot connect to PostgreSQL at localhost:5432 (ECONNREFUSED): is it running? check DATABASE_URL',
    );
    expect(
      databaseConnectMessage(
        Object.assign(new Error('getaddrinfo ENOTFOUND db'), { code: 'ENOTFOUND' }),
        'postgres://db:6543/x',
      ),
    ).toMatch(/^cannot connect to PostgreSQL at db:6543 \(ENOTFOUND\): the host name does not resolve/);
  });

  it('leaves errors of a server that answered to their own message', () => {
    expect(
      databaseConnectMessage(
        Object.assign(new Error('password authentication failed for user "u"'), { code: '28P01' }),
        'postgres://u:p@h/x',
      ),
    ).toBeNull();
    expect(databaseConnectMessage(new Error('boom'), 'postgres://h/x')).toBeNull();
  });

  it('reads host:port from the URL, bracketing nothing it did not get', () => {
    expect(databaseAddress('postgres://u:p@[::1]:7/x')).toBe('[::1]:7');
    expect(databaseAddress('not a url')).toBeNull();
  });
});

describe('withoutDatabasePassword', () => {
  it('masks the password as written and decoded, and a URL that does not parse as a whole', () => {
    expect(
      withoutDatabasePassword('failed for postgres://u:s%40cret@h/x and s@cret', 'postgres://u:s%40cret@h/x'),
    ).toBe('failed for postgres://u:***@h/x and ***');
    expect(withoutDatabasePassword('bad postgres://u:pw@h:port/x', 'postgres://u:pw@h:port/x')).toBe(
      'bad <DATABASE_URL>',
    );
    expect(withoutDatabasePassword('nothing to hide', 'postgres://h/x')).toBe('nothing to hide');
  });
});
