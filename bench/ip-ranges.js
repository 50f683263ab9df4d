/**
 * The seed article's data set (shared/seeds/000): IPv4 ranges with no gaps or overlaps, one per line,
 * sorted by start address as such files come, each with its netblock, start and end as numbers, and
 * metadata. The partition key `pk` is either one value for every row (the article's first table design)
 * or the range's first octet, its /8 (the second); the sort key `start` is the range's first address
 * as a number. The article's file had thousands of ranges for each /8 (`octets` sets how many /8s share
 * the rows). `shuffled` writes the same rows in a seeded random order (the article's third test).
 * Items are under 1 KB: 1 WCU each.
 */

const FIRST = 1 << 24; // 1.0.0.0

/**
 * @param {object} options
 * @param {number} options.rows
 * @param {'single' | 'slash8'} options.partitionKey
 * @param {boolean} options.shuffled
 * @param {number} [options.octets]  how many /8 prefixes the ranges cover, from 1.0.0.0 (default 223: to 223.255.255.255)
 * @param {number} [options.seed]
 * @returns {string}  the whole file (the bench's files are a few MB)
 */
export function ipRangesCsv({ rows, partitionKey, shuffled, octets = 223, seed = 11 }) {
  const LAST = (1 + octets) * 2 ** 24;
  let state = seed >>> 0 || 1;
  const random = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  // Range sizes vary around the mean; starts are whole addresses, each range ends where the next starts.
  const mean = (LAST - FIRST) / rows;
  const starts = [FIRST];
  for (let i = 1; i < rows; i++) starts.push(Math.min(LAST - (rows - i), Math.max(starts[i - 1] + 1, Math.round(FIRST + i * mean + (random() - 0.5) * mean))));
  const lines = starts.map((start, i) => {
    const end = (i + 1 < rows ? starts[i + 1] : LAST) - 1;
    const octet = Math.floor(start / 2 ** 24);
    const pk = partitionKey === 'single' ? 0 : octet;
    const bits = 32 - Math.floor(Math.log2(end - start + 1));
    return `${pk},${start},${end},${dotted(start)}/${bits},"Range ${dotted(start)}-${dotted(end)}: owner AS${(start % 65_000) + 1}, country ${COUNTRIES[octet % COUNTRIES.length]}, rules allow-${i % 7}"`;
  });
  if (shuffled) {
    for (let i = lines.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [lines[i], lines[j]] = [lines[j], lines[i]];
    }
  }
  return `pk,start,end,netblock,metadata\n${lines.join('\n')}\n`;
}

/** @param {number} address */
function dotted(address) {
  return [24, 16, 8, 0].map((shift) => Math.floor(address / 2 ** shift) % 256).join('.');
}

const COUNTRIES = ['US', 'DE', 'JP', 'BR', 'IN', 'FR', 'GB', 'CN', 'ZA', 'AU', 'CA', 'MX'];

/** The import options the IP-range table needs: pk and start typed N, the key columns named. */
export const IP_RANGE_IMPORT = { keyColumn: 'pk', sortKeyColumn: 'start', columnTypes: 'pk:N,start:N,end:N' };
/** The table model's key schema for it. */
export const IP_RANGE_TABLE = { keyName: 'pk', keyType: /** @type {const} */ ('N'), sortKeyName: 'start', sortKeyType: /** @type {const} */ ('N') };
