/**
 * The live view of an import on a terminal: four lines redrawn in place a few times a second (the share
 * of the source read, rows, rates, window, throttling, rejects, elapsed and ETA), fed by the same
 * throughput lines the JSON log carries. Messages (warnings, errors, what Ctrl-C does) print above it at
 * once, wrapped to the terminal's width (the view turns the terminal's own wrapping off while it draws),
 * and after it once it has stopped. cli-progress draws it.
 */
import cliProgress from 'cli-progress';

/** @typedef {import('../observe/throughput.js').ThroughputLine & { bytes?: number }} Line */

/**
 * @param {object} options
 * @param {NodeJS.WriteStream} options.stream
 * @param {string} options.label  what goes where: "people.csv → Orders"
 * @param {boolean} [options.dryRun]  nothing is written: rows that would be, and no write rates
 * @param {() => number} [options.now]  milliseconds clock
 */
export function createLiveView({ stream, label, dryRun = false, now = () => performance.now() }) {
  const startedAt = now();
  const bars = new cliProgress.MultiBar(
    { stream, fps: 5, hideCursor: true, clearOnComplete: false, stopOnComplete: false, linewrap: false, forceRedraw: true, barsize: 30, autopadding: true, format: '{label} {bar} {share}  {clock}' },
    cliProgress.Presets.shades_classic,
  );
  const progress = bars.create(1, 0, { label, share: 'starting...', clock: '' });
  const rows = bars.create(1, 0, { text: '' }, { format: '  {text}' });
  const rates = bars.create(1, 0, { text: '' }, { format: '  {text}' });
  const pace = dryRun ? undefined : bars.create(1, 0, { text: '' }, { format: '  {text}' });
  let throttled = 0;
  /** @type {{ at: number, byte: number } | undefined} */
  let firstLine;
  /** @type {Line | undefined} */
  let last;
  let note = '';
  let stopped = false;

  /** A message above the view, now (cli-progress would hold it until its next frame, or lose it at its stop). @param {string} text */
  function above(text) {
    if (stopped) {
      stream.write(`${text}\n`);
      return;
    }
    // Each line cleared before it is written: the frame it replaces may be longer.
    bars.log(`${wrapText(text, Math.max(20, (stream.columns || 80) - 1)).split('\n').join('\n\x1b[2K')}\n`);
    bars.update();
  }

  /** @param {Line} line */
  function show(line) {
    const at = now();
    firstLine ??= { at, byte: line.byte };
    throttled += line.throttledItems;
    last = line;
    const elapsed = (at - startedAt) / 1000;
    const total = line.bytes;
    const readRate = (line.byte - firstLine.byte) / Math.max((at - firstLine.at) / 1000, 1e-3);
    const eta = total === undefined || readRate <= 0 ? undefined : (total - line.byte) / readRate;
    const share = total === undefined ? `${megabytes(line.byte)} read (compressed: size unknown)` : `${percent(line.byte, total)} of ${megabytes(total)}`;
    progress.setTotal(Math.max(total ?? line.byte, 1));
    progress.update(line.byte, { label, share, clock: `elapsed ${duration(elapsed)}${eta === undefined ? '' : `  ETA ${duration(eta)}`}${note}` });
    rows.update(0, { text: `rows  read ${count(line.rowsRead)}  ${dryRun ? 'would write' : 'written'} ${count(line.written)}  ${dryRun ? 'would reject' : 'rejected'} ${count(line.rejected)}${reasons(line.rejectedByReason)}${line.skipped > 0 ? `  skipped ${count(line.skipped)}` : ''}` });
    if (dryRun) {
      rates.update(0, { text: `rate  ${count(line.rowsPerSecond)} rows/s now, ${count(line.averageRowsPerSecond)} avg (read and checked; nothing is sent)` });
      return;
    }
    rates.update(0, { text: `rate  ${count(line.rowsPerSecond)} rows/s now, ${count(line.averageRowsPerSecond)} avg   ${count(line.wcuPerSecond)} WCU/s now, ${count(line.averageWcuPerSecond)} avg` });
    pace?.update(0, { text: `pace  window ${line.window}, ${line.inFlight} in flight   throttled ${count(throttled)} items${throttleReasons(line.throttledCallsByReason)}   ${count(line.retries)} calls re-sent` });
  }

  /** @param {string} level @param {string} message @param {Record<string, unknown>} fields */
  function print(level, message, fields) {
    const detail = ['error', 'reason', 'line', 'byte', 'rows'].filter((name) => fields[name] !== undefined).map((name) => `${name} ${fields[name]}`).join(', ');
    above(`${level}: ${message}${detail === '' ? '' : ` (${detail})`}`);
  }

  /** @type {import('../types.js').Logger} */
  const logger = {
    info(message, fields) {
      if (message === 'throughput') show(/** @type {Line} */ (/** @type {unknown} */ (fields)));
    },
    warn: (message, fields) => print('warning', message, fields),
    error: (message, fields) => print('error', message, fields),
  };

  return {
    logger,
    /** A line above the view. @param {string} text */
    say: above,
    /** A note beside the clock, such as "stopping". @param {string} text */
    setNote(text) {
      note = text === '' ? '' : `  ${text}`;
      if (last !== undefined) show({ ...last, throttledItems: 0 });
    },
    /** Stops redrawing; the last frame stays on the screen. */
    stop() {
      if (stopped) return;
      stopped = true;
      bars.stop();
    },
  };
}

const count = (/** @type {number} */ n) => Math.round(n).toLocaleString('en-US');
const megabytes = (/** @type {number} */ bytes) => `${(bytes / 1e6).toFixed(bytes < 1e7 ? 2 : 0)} MB`;
const percent = (/** @type {number} */ part, /** @type {number} */ whole) => `${whole === 0 ? 100 : Math.floor((100 * part) / whole)}%`;

/** @param {Record<string, number> | undefined} byReason */
function reasons(byReason) {
  const parts = Object.entries(byReason ?? {}).map(([reason, n]) => `${reason} ${count(n)}`);
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

/**
 * Throttled calls by DynamoDB's reasons, shortly: TableWriteKeyRangeThroughputExceeded is "table key range".
 * @param {Record<string, number> | undefined} byReason
 */
export function throttleReasons(byReason) {
  const parts = Object.entries(byReason ?? {}).map(([reason, n]) => `${reason.replace(/Write|ThroughputExceeded|Exceeded/g, '').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()} ${count(n)}`);
  return parts.length === 0 ? '' : ` (calls: ${parts.join(', ')})`;
}

/** 75 → "1:15", 3725 → "1:02:05". @param {number} seconds */
export function duration(seconds) {
  const s = Math.max(0, Math.round(seconds));
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${minutes}:${rest}`;
}

/**
 * The text cut into lines of at most `width` characters, at spaces where it can be.
 * @param {string} text @param {number} width
 */
export function wrapText(text, width) {
  const lines = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(' ')) {
      let rest = word;
      while (rest.length > width) {
        if (line !== '') lines.push(line);
        lines.push(rest.slice(0, width));
        rest = rest.slice(width);
        line = '';
      }
      if (line === '') line = rest;
      else if (line.length + 1 + rest.length <= width) line += ` ${rest}`;
      else {
        lines.push(line);
        line = rest;
      }
    }
    lines.push(line);
  }
  return lines.join('\n');
}
