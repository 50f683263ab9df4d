/**
 * What the table says about itself that changes how an import writes: its billing mode, the most it takes
 * per second (the pace starts there instead of finding it by throttling), its size, and whether what an
 * import writes could be undone (point-in-time recovery).
 */
import { DescribeContinuousBackupsCommand } from '@aws-sdk/client-dynamodb';
import { TableError } from '../errors.js';

/**
 * @param {import('@aws-sdk/client-dynamodb').TableDescription} table  DescribeTable's
 */
export function tableFacts(table) {
  const provisioned = table.ProvisionedThroughput?.WriteCapacityUnits;
  const onDemand = table.BillingModeSummary?.BillingMode === 'PAY_PER_REQUEST' || !(provisioned !== undefined && provisioned > 0);
  return {
    billingMode: onDemand ? 'PAY_PER_REQUEST' : 'PROVISIONED',
    /**
     * The most write units a second the table takes for sure: a provisioned table's WCU (it may burst
     * past them for a while), an on-demand table's maximum, if it has one. Its warm throughput is no
     * ceiling: an on-demand table grows past it.
     */
    writeCeiling: ceilingOf(table, { warm: false })?.perSecond,
    warmWritesPerSecond: table.WarmThroughput?.WriteUnitsPerSecond,
    itemCount: table.ItemCount ?? 0,
    globalIndexes: (table.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName),
  };
}

/**
 * Warns when a table that already holds items has no point-in-time recovery (with requirePitr, refuses
 * any table without it): an import overwrites items with the file's keys, and without it they cannot be
 * got back.
 * @param {import('@aws-sdk/client-dynamodb').DynamoDBClient} dynamodb
 * @param {Pick<import('../config/index.js').ImportConfig, 'table' | 'requirePitr'>} config
 * @param {ReturnType<typeof tableFacts>} facts
 * @param {(message: string, fields: Record<string, unknown>) => void} warn
 * @returns {Promise<boolean | undefined>} whether recovery is on; undefined if it cannot be told
 */
export async function checkRecoverable(dynamodb, config, facts, warn) {
  let status;
  try {
    const output = await dynamodb.send(new DescribeContinuousBackupsCommand({ TableName: config.table }));
    status = output.ContinuousBackupsDescription?.PointInTimeRecoveryDescription?.PointInTimeRecoveryStatus;
  } catch (error) {
    const name = /** @type {Error} */ (error).name;
    // Local DynamoDB servers (dynalite, DynamoDB Local) have no backups at all: an empty table there has nothing to lose.
    if (name === 'UnknownOperationException' && facts.itemCount === 0 && !config.requirePitr) return undefined;
    const why =
      name === 'UnknownOperationException'
        ? `point-in-time recovery of table "${config.table}" cannot be told: the endpoint does not implement DescribeContinuousBackups (local servers such as dynalite and DynamoDB Local do not)`
        : `point-in-time recovery of table "${config.table}" cannot be told (${name}): the importer needs dynamodb:DescribeContinuousBackups on it`;
    if (config.requirePitr) throw new TableError(`${why}; grant it, or leave requirePitr off`, error);
    warn('point-in-time recovery unknown', { table: config.table, reason: why });
    return undefined;
  }
  const enabled = status === 'ENABLED';
  if (enabled) return true;
  const fix = `turn it on first (aws dynamodb update-continuous-backups --table-name ${config.table} --point-in-time-recovery-specification PointInTimeRecoveryEnabled=true)`;
  // DynamoDB refreshes ItemCount about every six hours: a table it says is empty may not be, so
  // requirePitr refuses any table without recovery.
  if (config.requirePitr) {
    const held = facts.itemCount > 0 ? `holds about ${facts.itemCount.toLocaleString('en-US')} items and ` : '';
    throw new TableError(`table "${config.table}" ${held}has no point-in-time recovery: the items an import overwrites could not be got back; ${fix}, or leave requirePitr off`);
  }
  if (facts.itemCount === 0) return false;
  const why = `table "${config.table}" holds about ${facts.itemCount.toLocaleString('en-US')} items and has no point-in-time recovery: the items this import overwrites cannot be got back`;
  warn('no point-in-time recovery', { table: config.table, reason: `${why}; ${fix}` });
  return false;
}

/**
 * The most writes per second a table or a global index takes, as DescribeTable tells it, and what says
 * so: a provisioned one's WCU; an on-demand one's maximum write request units, if set; else its warm
 * throughput (what it takes at once; an on-demand table grows past it, so the time it gives is an upper bound).
 * @param {{ ProvisionedThroughput?: { WriteCapacityUnits?: number }, OnDemandThroughput?: { MaxWriteRequestUnits?: number }, WarmThroughput?: { WriteUnitsPerSecond?: number } }} of
 * @param {{ warm?: boolean }} [options]  warm: false leaves the warm throughput out (a pace must not stop there)
 * @returns {Ceiling | undefined}
 */
export function ceilingOf(of, { warm = true } = {}) {
  const provisioned = of.ProvisionedThroughput?.WriteCapacityUnits;
  if (provisioned !== undefined && provisioned > 0) return { perSecond: provisioned, from: 'provisioned WCU' };
  const maximum = of.OnDemandThroughput?.MaxWriteRequestUnits;
  if (maximum !== undefined && maximum > 0) return { perSecond: maximum, from: 'on-demand maximum write request units' };
  const warmUnits = warm ? of.WarmThroughput?.WriteUnitsPerSecond : undefined;
  return warmUnits !== undefined && warmUnits > 0 ? { perSecond: warmUnits, from: 'warm throughput' } : undefined;
}

/** @typedef {{ perSecond: number, from: string }} Ceiling */
