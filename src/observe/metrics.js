/**
 * The throughput figures as high-resolution (1-second) CloudWatch metrics, through Powertools for AWS
 * Lambda's Metrics (embedded metric format: one JSON line a flush, no API call). On by default in
 * Lambda, off elsewhere; POWERTOOLS_METRICS_DISABLED=true turns it off in Lambda too.
 */
/**
 * @param {string} table  the dimension, so the import's graphs sit beside the table's own
 * @param {boolean} enabled
 * @returns {Promise<((fields: { rowsPerSecond: number, wcuPerSecond: number, throttledItems: number, window: number }) => void) | undefined>}
 */
export async function createMetricsPublisher(table, enabled) {
  if (!enabled) return undefined;
  // Loaded only where metrics are published (Lambda): elsewhere the module is memory for nothing.
  const { MetricResolution, Metrics, MetricUnit } = await import('@aws-lambda-powertools/metrics');
  const metrics = new Metrics({ namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'CsvImport', serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'csv-import' });
  metrics.addDimension('table', table);
  return (fields) => {
    metrics.addMetric('RowsWrittenPerSecond', MetricUnit.CountPerSecond, fields.rowsPerSecond, MetricResolution.High);
    metrics.addMetric('ConsumedWcuPerSecond', MetricUnit.CountPerSecond, fields.wcuPerSecond, MetricResolution.High);
    metrics.addMetric('ThrottledItems', MetricUnit.Count, fields.throttledItems, MetricResolution.High);
    metrics.addMetric('Window', MetricUnit.Count, fields.window, MetricResolution.High);
    metrics.publishStoredMetrics();
  };
}
