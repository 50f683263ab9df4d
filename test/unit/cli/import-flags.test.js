import { describe, expect, it } from 'vitest';
import { ConfigError, HeaderError, TableError } from '../../../src/errors.js';
import { inFlagWords, withFlagNames } from '../../../src/cli/import-flags.js';
import { checkHeader } from '../../../src/items/header.js';
import { resolveConfig } from '../../../src/config/index.js';

describe('errors in the words of the command line', () => {
  it('rewrites the advice of a payload option into its flag, and leaves plain words of the prose alone', () => {
    expect(inFlagWords('set keyColumn to the column holding the table\'s partition key, or generateKey: true')).toBe('pass --key the column holding the table\'s partition key, or --generate-key');
    expect(inFlagWords('table "T" types key "sk" as N, but the import types it as S; set columnTypes to "sk:N"')).toBe('table "T" types key "sk" as N, but the import types it as S; pass --types "sk:N"');
    expect(inFlagWords('table "T" does not exist in us-east-1; create it first, or name an existing table with the "table" option (TABLE_NAME)')).toBe('table "T" does not exist in us-east-1; create it first, or name an existing table with --table');
    expect(inFlagWords('generateKey is on but the header already has a "id" column; turn generateKey off to use it')).toBe('--generate-key is given but the header already has a "id" column; leave --generate-key out to use it');
    // Quoted text is the user's: a column named like an option stays as it is.
    expect(inFlagWords('the header has no key column "versionId"; set keyColumn to it')).toBe('the header has no key column "versionId"; pass --key it');
    expect(inFlagWords('columnTypes names "maxWcu", which is not in the header')).toBe('--types names "maxWcu", which is not in the header');
    // "table", "format" and "mode" are words of the prose too.
    expect(inFlagWords('the table is on-demand; the format is csv; the mode put')).toBe('the table is on-demand; the format is csv; the mode put');
  });

  it('keeps the error\'s class and code, and names the flag of a bad option', () => {
    const header = withFlagNames(new HeaderError('x.csv: set sortKeyColumn to the column holding the table\'s sort key'));
    expect(header).toBeInstanceOf(HeaderError);
    expect(/** @type {Error} */ (header).message).toBe('x.csv: pass --sort-key the column holding the table\'s sort key');
    expect(/** @type {Error} */ (withFlagNames(new TableError('set columnTypes to "id:S"'))).message).toBe('pass --types "id:S"');
    let bad;
    try {
      resolveConfig({ bucket: 'b', key: 'k', table: 'People', maxWcu: 0 }, {});
    } catch (error) {
      bad = withFlagNames(error);
    }
    expect(bad).toBeInstanceOf(ConfigError);
    expect(String(/** @type {Error} */ (bad).message)).toMatch(/^Invalid option --max-wcu/);
  });
});

describe('a header read as one column', () => {
  const config = (/** @type {Record<string, unknown>} */ options) => resolveConfig({ file: '/tmp/people.csv', table: 'People', ...options }, {});

  it('suggests the delimiter it holds', () => {
    expect(() => checkHeader(['id;name;email'], config({}))).toThrow(/the first line has 1 column, which holds ";": if the file is delimited by it, set delimiter to ";"/);
    expect(() => checkHeader(['id\tname'], config({}))).toThrow(/which holds "\\t": if the file is delimited by it, set delimiter to "\\t"/);
    expect(() => checkHeader(['id|name'], config({}))).toThrow(/which holds "\|"/);
  });

  it('suggests nothing for one column that holds no other delimiter, or the one in use', () => {
    expect(() => checkHeader(['name'], config({}))).toThrow(/the first line has 1 column; if the file has no header line/);
    expect(() => checkHeader(['a;b'], config({ delimiter: ';' }))).toThrow(/the first line has 1 column; if the file/);
  });
});

describe('import --resume FILE alone', () => {
  it('is the stopped command again, with --resume and the flags given now', async () => {
    const { mkdtempSync } = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const { writeCheckpointFile } = await import('../../../src/cli/checkpoint-file.js');
    const { stoppedCommand } = await import('../../../src/cli/program.js');
    const config = resolveConfig({ file: '/tmp/people.csv', table: 'People' }, {});
    const checkpoint = /** @type {any} */ ({ jobId: '3f2a9c1e-0b7d-5e4f-9a1c-2d3e4f5a6b7c', byte: 10, line: 2, totals: { rowsRead: 1, written: 1, rejected: 0 } });
    const command = ['import', 'people.csv', '--table', 'People', '--profile', 'prod', '--max-wcu', '200', '--endpoint-url', 'http://127.0.0.1:8000'];
    const file = writeCheckpointFile(checkpoint, config, { directory: mkdtempSync(path.join(os.tmpdir(), 'resume-')), command });
    expect(stoppedCommand(['import', '--resume', file, '--json'], file)).toEqual([...command, '--json', '--resume', file]);
    const older = writeCheckpointFile(checkpoint, config, { directory: path.dirname(file) });
    expect(stoppedCommand(['import', '--resume', older], older)).toBeUndefined();
  });
});
