/**
 * The records and items stages of a segment, for its file's format: CSV's record parser and header-driven
 * item builder, or the line reader and a JSON item builder (which need no header: a JSON format's
 * "header" is the empty list its checkpoints carry).
 */
import { createItemBuilder } from '../items/item-builder.js';
import { createJsonItemBuilder } from '../items/json-item.js';
import { createRecordParser } from '../records/csv/csv-records.js';
import { createLineParser } from '../records/json-lines.js';
import { decideFormat } from '../records/format.js';
import { peek } from '../source/compression.js';
import { JSON_RECORD_COLUMN, REJECTS_COLUMNS, withoutRejectsColumns } from '../records/rejects-file.js';
import { sourceWhere } from '../source/source-name.js';
import { HeaderError } from '../errors.js';

/**
 * The file's format: the one a checkpoint or shard carries, else decided once, at the file's start, from
 * its name and (for `auto`) its first bytes. Returns the body to read on, with any bytes peeked put back,
 * and whether it turned out to hold no byte at all (an empty object, a gzip stream of nothing): no rows.
 * @param {Pick<import('../config/index.js').ImportConfig, 'format' | 'key' | 'file'>} config
 * @param {{ format?: import('../config/index.js').Format }} start
 * @param {import('node:stream').Readable} body
 */
export async function formatOf(config, start, body) {
  if (start.format !== undefined) return { format: start.format, body, empty: false };
  const peeked = config.format === 'auto' ? await peek(body) : undefined;
  return { format: decideFormat(config.format, config.key ?? config.file ?? '', peeked?.first), body: peeked?.body ?? body, empty: peeked !== undefined && peeked.first === undefined };
}

/**
 * @param {object} options
 * @param {import('../config/index.js').Format} options.format
 * @param {Readonly<import('../config/index.js').ImportConfig>} options.config
 * @param {{ line: number, byte: number, header: string[] | undefined, encoding?: import('../records/csv/text-encoding.js').Encoding }} options.start
 * @param {{ etag: string }} options.source
 * @param {import('../items/json-item.js').TableKeys} options.keys
 * @param {boolean} [options.sized]  CSV items carry their size (a dry run's)
 * @param {boolean} [options.json]  false: CSV items' JSON is not wanted, only their sizes (createItemBuilder)
 * @param {import('../items/shaping.js').Shaping} options.shaping  the import's time and where warnings go
 */
export function rowStages({ format, config, start, source, keys, sized = false, json = true, shaping }) {
  if (config.fromRejects) return rejectsFileStages({ format, config, start, source, keys, sized, json, shaping });
  if (format !== 'csv') {
    return {
      records: createLineParser({ lineOffset: start.line, atFileStart: start.byte === 0 }),
      buildItem: createJsonItemBuilder(format, config, keys, shaping),
      header: /** @type {string[]} */ ([]),
      /** @returns {import('./read-rows.js').BuildItem} */
      onHeader: () => {
        throw new Error('a JSON format has no header');
      },
    };
  }
  return {
    records: createRecordParser({ delimiter: config.delimiter, lineOffset: start.line, fieldCount: start.header?.length, encoding: start.encoding ?? config.encoding, atFileStart: start.byte === 0 }),
    buildItem: start.header === undefined ? undefined : createItemBuilder(start.header, config, source, { sized, json, shaping }),
    header: start.header,
    /** @param {string[]} fields */
    onHeader: (fields) => createItemBuilder(fields, config, source, { sized, json, shaping }),
  };
}

/**
 * A fixed rejects file (fromRejects): CSV whatever the source was, its three leading columns dropped. A
 * CSV source's columns are read as that source's; a JSON source's single `record` column is its line.
 * @param {Parameters<typeof rowStages>[0]} options
 */
function rejectsFileStages({ format, config, start, source, keys, sized, json, shaping }) {
  const where = sourceWhere(config);
  const csv = createRecordParser({ delimiter: ',', lineOffset: start.line, fieldCount: start.header === undefined ? undefined : start.header.length + REJECTS_COLUMNS.length, encoding: start.encoding ?? config.encoding, atFileStart: start.byte === 0 });
  /** @param {string[]} header  the source's columns @returns {import('./read-rows.js').BuildItem} */
  const builderFor = (header) => {
    const names = header.map((name) => name.trim());
    const holdsJson = names.length === 1 && names[0] === JSON_RECORD_COLUMN;
    if (format === 'csv' && holdsJson && config.format === 'auto') {
      throw new HeaderError(`${where} is the rejects file of a JSON import (its one column is "${JSON_RECORD_COLUMN}"): import it with format jsonl or dynamodb-json, as its source was (format csv to read it as a CSV column)`);
    }
    if (format === 'csv') return createItemBuilder(header, config, source, { sized, json, shaping });
    if (!holdsJson) throw new HeaderError(`${where} has the columns of a CSV import's rejects, not the "${JSON_RECORD_COLUMN}" column of a JSON import's: import it with format csv`);
    return createJsonItemBuilder(format, config, keys, shaping);
  };
  return {
    records: withoutRejectsColumns(csv, { headerRead: start.header !== undefined, where }),
    buildItem: start.header === undefined ? undefined : builderFor(start.header),
    header: start.header,
    onHeader: builderFor,
  };
}
