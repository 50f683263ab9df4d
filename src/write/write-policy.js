/**
 * How the writer paces and backs off for one kind of import, decided once by the segment from the table
 * and the way the file is read, and handed to the writer whole: the pace (where it starts, whether the
 * table grows when pushed, whether the rows fall unevenly on the partitions by design) and the growth of
 * the backoff (a spread import's stops while the import writes). docs/design/pace.md has the reasons.
 */
import { contendedBackoff, doublingBackoff } from './attempt-budget.js';
import { createAdaptivePace } from './pace.js';

/**
 * @typedef {object} WritePolicy
 * @property {ReturnType<typeof createAdaptivePace>} pace
 * @property {import('./attempt-budget.js').BackoffGrowth} backoff
 */

/**
 * @param {{ adaptive: boolean, startRate?: number, tableGrows?: boolean, unevenKeys?: boolean }} kind
 *   adaptive: the pace learns the table's capacity (adaptiveConcurrency); startRate: WCU/s it starts at, the
 *   table's known ceiling (this writer's share); tableGrows: an on-demand table with no maximum, which
 *   grows when pushed; unevenKeys: the rows fall unevenly on the partitions by design (spread)
 * @returns {WritePolicy}
 */
export function writePolicyFor({ adaptive, startRate, tableGrows = false, unevenKeys = false }) {
  return {
    pace: createAdaptivePace({ adaptive, startRate, tableGrows, unevenKeys }),
    backoff: unevenKeys ? contendedBackoff : doublingBackoff,
  };
}
