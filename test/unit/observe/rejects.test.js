import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { rejectsKey } from '../../../src/state/object-keys.js';
import { csvLine } from '../../../src/observe/rejects.js';

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
});
