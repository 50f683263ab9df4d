/**
 * Which format a file's records are in, for `format: auto`: the name's extension (under any .gz or .zst),
 * then the first bytes. A DynamoDB export's data files are `*.json.gz` whose lines are `{"Item": ...}`;
 * JSON Lines are `*.jsonl` or `*.ndjson`; anything else that starts with `{` is read as JSON Lines, or as
 * DynamoDB JSON when its first line starts like an export's; the rest is CSV.
 */

/** @typedef {import('../config/index.js').Format} Format */

const BY_EXTENSION = new Map([
  ['csv', 'csv'],
  ['tsv', 'csv'],
  ['jsonl', 'jsonl'],
  ['ndjson', 'jsonl'],
]);

// The start of a line an export writes: a full export's Item, an incremental export's Metadata, Keys or images.
const EXPORT_LINE = /^\s*\{\s*"(?:Item|Keys|NewImage|OldImage|Metadata)"\s*:/;

/**
 * @param {Format | 'auto'} option
 * @param {string} name  the object's key or the file's path
 * @param {Buffer | undefined} first  the first (decompressed) bytes, when the file is read from its start
 * @returns {Format}
 */
export function decideFormat(option, name, first) {
  if (option !== 'auto') return option;
  const extension = /\.([a-z0-9]+)(?:\.(?:gz|gzip|zst|zstd))?$/i.exec(name)?.[1]?.toLowerCase();
  const known = extension === undefined ? undefined : BY_EXTENSION.get(extension);
  if (known !== undefined) return /** @type {Format} */ (known);
  const text = first === undefined ? '' : first.subarray(0, 4096).toString('utf8').replace(/^\ufeff/, '');
  if (!/^\s*\{/.test(text)) return 'csv';
  return EXPORT_LINE.test(text) ? 'dynamodb-json' : 'jsonl';
}
