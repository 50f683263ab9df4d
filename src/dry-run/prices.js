/**
 * The prices a dry run quotes, in one place, with the date they were read from AWS's pricing pages.
 * They are us-east-1's for the Standard table class; other regions differ (pass pricePerMillionWrites).
 */

/** When the prices below were read. */
export const PRICES_READ_ON = '2026-11-24';

/** On-demand write request units, USD per million (us-east-1, Standard table class, since the November 2024 cut). */
export const ON_DEMAND_USD_PER_MILLION_WRITES = 0.625;

/** DynamoDB's own Import from S3, USD per GB of uncompressed source data (us-east-1); it only creates new tables. */
export const IMPORT_FROM_S3_USD_PER_GB = 0.15;

/** What a new on-demand table takes at first, without throttling: about 4,000 writes per second. */
export const NEW_ON_DEMAND_WRITES_PER_SECOND = 4_000;
