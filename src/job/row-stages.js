/**
 * The records and items stages of a segment, for its file's format: CSV's record parser and header-driven
 * item builder, or the line reader and a JSON item builder (which need no header: a JSON format's
 * "header" is the empty list its checkpoints carry).
 */
import { createItemBuilder } from '../items/item-builder.js';
import { createJsonItemBuilder } from '../items/json-item.js';
import { createRecordParser } from '../records/csv-records.js';
import { createLineParser } from '../records/json-lines.js';
import { decideFormat } from '../records/format.js';
import { peek } from '../source/compression.js';

/**
 * The file's format: the one a checkpoint or shard carries, else decided once, at the file's start, from
 * its name and (for `auto`) its first bytes. Returns the body to read on, with any bytes peeked put back.
 * @param {Pick<import('../config.js').ImportConfig, 'format' | 'key' | 'file'>} config
 * @param {{ format?: import('../config.js').Format }} start
 * @param {import('node:stream').Readable} body
 */
export async function formatOf(config, start, body) {
  if (start.format !== undefined) return { format: start.format, body };
  const peeked = config.format === 'auto' ? await peek(body) : undefined;
  return { format: decideFormat(config.format, config.key ?? config.file ?? '', peeked?.first), body: peeked?.body ?? body };
}

/**
 * @param {object} options
 * @param {import('../config.js').Format} options.format
 * @param {Readonly<import('../config.js').ImportConfig>} options.config
 * @param {{ line: number, byte: number, header: string[] | undefined, encoding?: import('../records/text-encoding.js').Encoding }} options.start
 * @param {{ etag: string }} options.source
 * @param {import('../items/json-item.js').TableKeys} options.keys
 */
export function rowStages({ format, config, start, source, keys }) {
  if (format !== 'csv') {
    return {
      records: createLineParser({ lineOffset: start.line, atFileStart: start.byte === 0 }),
      buildItem: createJsonItemBuilder(format, config, keys),
      header: /** @type {string[]} */ ([]),
      /** @returns {import('./read-rows.js').BuildItem} */
      onHeader: () => {
        throw new Error('a JSON format has no header');
      },
    };
  }
  return {
    records: createRecordParser({ delimiter: config.delimiter, lineOffset: start.line, fieldCount: start.header?.length, encoding: start.encoding ?? config.encoding, atFileStart: start.byte === 0 }),
    buildItem: start.header === undefined ? undefined : createItemBuilder(start.header, config, source),
    header: start.header,
    /** @param {string[]} fields */
    onHeader: (fields) => createItemBuilder(fields, config, source),
  };
}
