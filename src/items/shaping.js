/**
 * What the shaping options (ttl, nest, drop, rename) need beyond the options themselves: the import's
 * time, which a filled TTL column (`ttl: "expires:+30d"`) counts from and which is the same for every row
 * of a job (its segments, resumes and shards: state/checkpoint.js segmentStart says where it comes
 * from), and where a warning goes (TTL values that look like milliseconds).
 * @typedef {object} Shaping
 * @property {number} importTime  epoch milliseconds
 * @property {(message: string, fields: Record<string, unknown>) => void} warn
 */

/** Shaping for a builder that needs none (tests, tools): the time it was made, warnings dropped. @returns {Shaping} */
export const noShaping = () => ({ importTime: Date.now(), warn: () => {} });
