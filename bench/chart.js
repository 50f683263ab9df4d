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
