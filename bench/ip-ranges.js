/**
 * The seed article's data set (shared/seeds/000): IPv4 ranges with no gaps or overlaps, one per line,
 * sorted by start address as such files come, each with its netblock, start and end as numbers, and
 * metadata. The partition key `pk` is either one value for every row (the article's first table design)
 * or the range's first octet, its /8 (the second); the sort key `start` is the range's first address
 * as a number. The article's file had thousands of ranges for each /8 (`octets` chooses the /8s that share
 * the rows). `shuffled` writes the same rows in a seeded random order (the article's third test).
 * Items are under 1 KB: 1 WCU each.
 */
import { seededRandom } from './seeded-random.js';

const ALL_OCTETS = Array.from({ length: 223 }, (_, i) => i + 1);

/**
 * @param {object} options
 * @param {number} options.rows
 * @param {'single' | 'slash8'} options.partitionKey
 * @param {boolean} options.shuffled
 * @param {number[]} [options.octets]  the /8 prefixes the ranges cover, each with an equal share of the rows (default 1 to 223)
 * @param {number} [options.seed]
 * @returns {string}  the whole file (the bench's files are a few MB)
 */
export function ipRangesCsv({ rows, partitionKey, shuffled, octets = ALL_OCTETS, seed = 11 }) {
  const random = seededRandom(seed);
  // Each /8 gets its share of the rows; range sizes vary around the mean, and each ends where the next starts.
  const sorted = [...octets].sort((a, b) => a - b);
  /** @type {number[]} */
  const starts = [];
  /** @type {number[]} */
  const ends = [];
  sorted.forEach((octet, k) => {
    const count = Math.floor((rows * (k + 1)) / sorted.length) - Math.floor((rows * k) / sorted.length);
    const first = octet * 2 ** 24;
    const mean = 2 ** 24 / count;
    let at = first;
    for (let i = 0; i < count; i++) {
      starts.push(at);
      const next = i + 1 === count ? first + 2 ** 24 : Math.min(first + 2 ** 24 - (count - i - 1), Math.max(at + 1, Math.round(first + (i + 1) * mean + (random() - 0.5) * mean * 0.5)));
      ends.push(next - 1);
      at = next;
    }
  });
  const lines = starts.map((start, i) => {
    const end = ends[i];
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
