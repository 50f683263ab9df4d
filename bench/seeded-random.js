/**
 * A seeded random number generator (xorshift32) for the bench's data and simulations: the same seed, the
 * same numbers, run after run.
 * @param {number} seed
 * @returns {() => number}  uniform in [0, 1)
 */
export function seededRandom(seed) {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}
