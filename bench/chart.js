/**
 * The throughput chart: rows/s, the in-flight window and throttled items over time, one line per run,
 * drawn by vega-lite and rendered to SVG by vega (no browser needed). Used by the bench for the
 * capacity runs and by `npm run report` for any import's log.
 */
import * as vega from 'vega';
import * as vegaLite from 'vega-lite';

/**
 * @param {Array<{ t: number, rowsPerSecond: number, window: number, throttledItems: number, run: string }>} points
 * @param {string} title
 * @returns {Promise<string>} SVG
 */
export async function renderChart(points, title) {
  /** @type {import('vega-lite').TopLevelSpec} */
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    data: { values: points },
    vconcat: [panel('rowsPerSecond', 'rows written per second', 220), panel('window', 'window (calls in flight at most)', 140), panel('throttledItems', 'throttled items per interval', 140)],
    config: { legend: { orient: 'bottom' } },
  };
  /**
   * @param {string} field @param {string} title @param {number} height
   * @returns {any} one vega-lite unit spec
   */
  function panel(field, title, height) {
    return {
      width: 720,
      height,
      mark: { type: 'line', interpolate: 'step-after' },
      encoding: {
        x: { field: 't', type: 'quantitative', title: 'seconds' },
        y: { field, type: 'quantitative', title },
        color: { field: 'run', type: 'nominal', title: null },
      },
    };
  }
  const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: 'none' });
  return view.toSVG();
}

/**
 * One scenario against the table model: what the table took each second (WCU/s, which is rows/s for the
 * bench's 1-WCU rows) under its capacity, the items it throttled, the importer's window, and the table's
 * partitions, over the model's seconds.
 * @param {import('./runner.js').RunResult} run
 * @param {string} title  with the time scale
 * @returns {Promise<string>} SVG
 */
export async function renderScenarioChart(run, title) {
  const perSecond = run.model.perSecond.map((second, t) => ({ t, ...second }));
  const series = [
    ...perSecond.map(({ t, wcu }) => ({ t, value: wcu, series: 'WCU/s taken (= rows/s)', panel: 'rate' })),
    ...perSecond.map(({ t, capacity }) => ({ t, value: capacity, series: 'table capacity, WCU/s', panel: 'rate' })),
    ...perSecond.map(({ t, throttledItems }) => ({ t, value: throttledItems, series: 'throttled items', panel: 'throttled' })),
    ...perSecond.map(({ t, partitions }) => ({ t, value: partitions, series: 'partitions', panel: 'partitions' })),
    ...run.timeline.map(({ t, window }) => ({ t: t + run.offset, value: window, series: 'window (calls in flight at most)', panel: 'window' })),
  ];
  /** @type {import('vega-lite').TopLevelSpec} */
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title,
    data: { values: series },
    vconcat: [
      layerPanel('rate', 'WCU per second', 200),
      layerPanel('throttled', 'throttled items per second', 110),
      layerPanel('window', 'window', 110),
      layerPanel('partitions', 'partitions', 90),
    ],
    config: { legend: { orient: 'bottom' } },
  };
  /** @param {string} panel @param {string} yTitle @param {number} height @returns {any} */
  function layerPanel(panel, yTitle, height) {
    return {
      width: 720,
      height,
      transform: [{ filter: `datum.panel === '${panel}'` }],
      mark: { type: 'line', interpolate: 'step-after' },
      encoding: {
        x: { field: 't', type: 'quantitative', title: 'seconds (real; model time runs faster for splits and growth, see title)' },
        y: { field: 'value', type: 'quantitative', title: yTitle },
        color: { field: 'series', type: 'nominal', title: null },
      },
    };
  }
  const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: 'none' });
  return view.toSVG();
}
