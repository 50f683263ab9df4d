import { describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../src/config.js';

const base = { bucket: 'b', key: 'k.csv', table: 'people' };

describe('resolveConfig', () => {
  it('fills defaults', () => {
    const config = resolveConfig(base, {});
    expect(config).toMatchObject({ keyColumn: 'id', generateKey: false, delimiter: ',', concurrency: 32, maxAttempts: 12, backoffBaseMs: 25, backoffCapMs: 5000, logIntervalMs: 1000, columnTypes: {} });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('takes the payload over the environment over the default', () => {
    const env = { TABLE_NAME: 'from-env', CONCURRENCY: '8', COLUMN_TYPES: 'age:N,active:bool', CSV_DELIMITER: '\\t' };
    const config = resolveConfig({ bucket: 'b', key: 'k', concurrency: 4 }, env);
    expect(config.table).toBe('from-env');
    expect(config.concurrency).toBe(4);
    expect(config.columnTypes).toEqual({ age: 'N', active: 'BOOL' });
    expect(config.delimiter).toBe('\t');
  });

  it.each([
    [{ concurrency: 0 }, 'concurrency', 'whole number from 1 to 1024'],
    [{ concurrency: '12x' }, 'concurrency', 'whole number'],
    [{ maxAttempts: 1.5 }, 'maxAttempts', 'whole number'],
    [{ delimiter: ';;' }, 'delimiter', 'one character'],
    [{ delimiter: '"' }, 'delimiter', 'one character'],
    [{ columnTypes: 'age:INT' }, 'columnTypes', 'the types are S, N and BOOL'],
    [{ columnTypes: 'age' }, 'columnTypes', 'column:TYPE'],
    [{ columnTypes: { id: 'BOOL' } }, 'columnTypes', 'key column can only be S or N'],
    [{ generateKey: 'yes' }, 'generateKey', 'true or false'],
    [{ backoffBaseMs: 100, backoffCapMs: 50 }, 'backoffCapMs', 'at least backoffBaseMs'],
    [{ table: 'a b' }, 'table', 'DynamoDB table name'],
    [{ bucket: '' }, 'bucket', 'non-empty string'],
    [{ tabel: 'x' }, 'tabel', 'unknown option'],
    [{ dynamodbEndpoint: 'http://evil' }, 'dynamodbEndpoint', 'unknown option'],
  ])('rejects %j naming %s', (override, option, fix) => {
    const attempt = () => resolveConfig({ ...base, ...override }, {});
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(new RegExp(`"${option}"[\\s\\S]*${fix}`));
  });

  it('names the environment variable when the bad value came from it', () => {
    expect(() => resolveConfig(base, { CONCURRENCY: '0' })).toThrow(/"concurrency \(env CONCURRENCY\)": got "0"/);
  });

  it('asks for a table when none is given', () => {
    expect(() => resolveConfig({ bucket: 'b', key: 'k' }, {})).toThrow(/TABLE_NAME/);
  });
});
