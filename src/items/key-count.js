/**
 * How many distinct keys a file's rows have, in bounded memory: exact up to EXACT_KEYS distinct keys (a
 * set of 64-bit hashes of the keys, at most 64 MB: two keys share a hash with odds under 1 in 10^6 at the
 * bound), and a HyperLogLog estimate (16,384 registers, about 1% standard error) beyond it.
 */

/** Distinct keys counted exactly. */
export const EXACT_KEYS = 4_000_000;

const REGISTER_BITS = 14;
const REGISTERS = 1 << REGISTER_BITS;

/** @param {{ exactKeys?: number }} [options] */
export function createKeyCount({ exactKeys = EXACT_KEYS } = {}) {
  // Open addressing over 64-bit hashes as two 32-bit halves side by side (one cache line for both); a
  // slot whose halves are both 0 is empty (hash 0 is remapped).
  let capacity = 1 << 16;
  let slots = new Uint32Array(capacity * 2);
  let size = 0;
  let exact = true;
  const registers = new Uint8Array(REGISTERS);

  /** @param {number} h @param {number} l */
  function insert(h, l) {
    let slot = (l ^ Math.imul(h, 0x9e3779b1)) & (capacity - 1);
    for (;;) {
      const at = slot * 2;
      const sh = slots[at];
      const sl = slots[at + 1];
      if (sh === 0 && sl === 0) {
        slots[at] = h;
        slots[at + 1] = l;
        size++;
        return;
      }
      if (sh === h && sl === l) return;
      slot = (slot + 1) & (capacity - 1);
    }
  }

  function grow() {
    const old = slots;
    capacity *= 2;
    slots = new Uint32Array(capacity * 2);
    size = 0;
    for (let at = 0; at < old.length; at += 2) if (old[at] !== 0 || old[at + 1] !== 0) insert(old[at], old[at + 1]);
  }

  return {
    /** @param {string} key */
    add(key) {
      // Two 32-bit lanes in one pass: FNV-1a, and murmur3's round on each code unit (which mixes every
      // unit's 16 bits across the lane, so that keys built to collide in the first lane do not in the second).
      let h = 0x811c9dc5;
      let l = 0x9747b28c;
      for (let i = 0; i < key.length; i++) {
        const code = key.charCodeAt(i);
        h = Math.imul(h ^ code, 0x01000193);
        let k = Math.imul(code, 0xcc9e2d51);
        k = Math.imul((k << 15) | (k >>> 17), 0x1b873593);
        l ^= k;
        l = (Math.imul((l << 13) | (l >>> 19), 5) + 0xe6546b64) | 0;
      }
      h = finish(h);
      l = finish(l);
      if (h === 0 && l === 0) h = 1;
      // HyperLogLog: the register from the top bits, the rank from the zeros after them.
      const register = h >>> (32 - REGISTER_BITS);
      const rest = (h << REGISTER_BITS) | (REGISTERS - 1);
      const rank = Math.clz32(rest) + 1;
      if (rank > registers[register]) registers[register] = rank;
      if (!exact) return;
      insert(h >>> 0, l >>> 0);
      if (size > exactKeys) {
        exact = false;
        slots = new Uint32Array(0);
      } else if (size * 2 > capacity) grow();
    },
    /** @returns {{ distinct: number, exact: boolean }} */
    result() {
      return exact ? { distinct: size, exact: true } : { distinct: Math.round(estimate(registers)), exact: false };
    },
  };
}

/** @param {Uint8Array} registers */
function estimate(registers) {
  let sum = 0;
  let zeros = 0;
  for (const rank of registers) {
    sum += 2 ** -rank;
    if (rank === 0) zeros++;
  }
  const m = registers.length;
  const raw = ((0.7213 / (1 + 1.079 / m)) * m * m) / sum;
  // Few keys: linear counting is the better estimate.
  return raw <= 2.5 * m && zeros > 0 ? m * Math.log(m / zeros) : raw;
}

/** murmur3's finish: every input bit reaches every output bit. @param {number} h */
export function finish(h) {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
