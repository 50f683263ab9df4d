import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { rejectsKey } from '../../../src/state/object-keys.js';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRejectsWriter, csvLine } from '../../../src/observe/rejects.js';
import { directoryStore } from '../../../src/state/output-store.js';

describe('rejects file format', () => {
  it('quotes only the fields that need it, and reads back as the same fields', () => {
    const fields = ['12', 'FIELD_COUNT', 'line 12: a, "quoted" message', 'multi\r\nline', '', 'plain'];
    const line = csvLine(fields);
    expect(line).toBe('12,FIELD_COUNT,"line 12: a, ""quoted"" message","multi\r\nline",,plain\n');
    expect(parse(line)).toEqual([fields]);
  });

  it('names the object after the source key, the job id and the segment', () => {
    expect(rejectsKey('rejects/', 'imports/people.csv', 'job-1', 3, undefined, '0a1b2c3d')).toBe('rejects/imports/people.csv/job-1/segment-0003-0a1b2c3d.csv');
    expect(rejectsKey('rejects/', 'k.csv', 'job-1', 1, 2, 'ffffffff')).toBe('rejects/k.csv/job-1/shard-0003/segment-0001-ffffffff.csv');
  });

  it('keeps cells a spreadsheet would run as formulas as the source wrote them, and counts them (issue 48)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rejects-'));
    const writer = createRejectsWriter({ store: directoryStore(dir), key: 'r.csv', header: () => ['id', 'note', 'n'] });
    writer.write({ line: 2, reason: 'FIELD_COUNT', message: 'm', fields: ['a', '=HYPERLINK("http://x","click")', '-5'] });
    writer.write({ line: 3, reason: 'FIELD_COUNT', message: 'm', fields: ['+cmd|calc', '@SUM(A1)', '1e3'] });
    writer.write({ line: 4, reason: 'FIELD_COUNT', message: 'm', fields: ['b', '-2+3', '\tx'] });
    expect(await writer.close()).toEqual({ key: 'r.csv', rows: 3, formulaCells: 5 });
    const rows = parse(readFileSync(path.join(dir, 'r.csv')));
    expect(rows[1].slice(3)).toEqual(['a', '=HYPERLINK("http://x","click")', '-5']);
    expect(rows[2].slice(3)).toEqual(['+cmd|calc', '@SUM(A1)', '1e3']);
  });
});
