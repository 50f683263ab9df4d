'use strict';
/**
 * The stack's CloudWatch dashboard for its jobs: rows and write capacity per second (the segments'
 * embedded metrics, src/observe/metrics.js), items throttled, the adaptive window, and the job state
 * machine's executions started, failed and running (AWS/States). Linked from a job's start answer.
 */

/**
 * @param {{ name: string, table: string, stateMachineName: string }} names
 * @returns {{ Type: string, Properties: Record<string, unknown> }}
 */
function dashboardResource({ name, table, stateMachineName }) {
  /**
   * A graph of the importer's metric for the table. Every segment publishes its figure each second with the
   * same dimensions: the Sum of a minute's samples over 60 is the rate of all segments together; the
   * Average, one segment's.
   * @param {string} title @param {string} metric @param {'rate' | 'Average' | 'Sum'} stat
   */
  const imports = (title, metric, stat) => ({
    type: 'metric',
    width: 12,
    height: 6,
    properties: {
      title,
      region: '${AWS::Region}',
      period: 60,
      metrics: [[{ expression: stat === 'rate' ? `SUM(SEARCH('{CsvImport,service,table} MetricName="${metric}" table="${table}"', 'Sum', 60)) / 60` : `SUM(SEARCH('{CsvImport,service,table} MetricName="${metric}" table="${table}"', '${stat}', 60))`, label: metric }]],
    },
  });
  const machine = `arn:\${AWS::Partition}:states:\${AWS::Region}:\${AWS::AccountId}:stateMachine:${stateMachineName}`;
  const executions = {
    type: 'metric',
    width: 12,
    height: 6,
    properties: {
      title: 'Jobs (executions of the job state machine)',
      region: '${AWS::Region}',
      stat: 'Sum',
      period: 60,
      metrics: ['ExecutionsStarted', 'ExecutionsSucceeded', 'ExecutionsFailed', 'ExecutionsRedriven'].map((metric) => ['AWS/States', metric, 'StateMachineArn', machine]),
    },
  };
  const body = {
    widgets: [
      imports('Rows written per second, all segments', 'RowsWrittenPerSecond', 'rate'),
      imports('Write capacity consumed per second, all segments', 'ConsumedWcuPerSecond', 'rate'),
      imports('Items throttled per minute', 'ThrottledItems', 'Sum'),
      imports('Calls in flight (the adaptive window), per segment', 'Window', 'Average'),
      executions,
    ],
  };
  return { Type: 'AWS::CloudWatch::Dashboard', Properties: { DashboardName: name, DashboardBody: { 'Fn::Sub': JSON.stringify(body) } } };
}

module.exports = { dashboardResource };
