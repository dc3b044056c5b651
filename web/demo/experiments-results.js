// The experiments section's results: the charts that grow as runs finish, the table of this run and
// the paper's table beside it.
import { BarChart, CurveChart, LogLogChart, seriesStyles, TradeoffChart } from './charts.js';
import { aggregateRuns } from './statistics.js';
import { armsVerdict, crossoverVerdict, timeAgainstArms, totalAgainstHorizon } from './timing-results.js';

const $ = (selector) => document.querySelector(selector);

function fillTable(table, columns, rows) {
  table.tHead.replaceChildren(Object.assign(document.createElement('tr'), {}));
  for (const column of columns) table.tHead.rows[0].append(Object.assign(document.createElement('th'), { textContent: column, scope: 'col' }));
  table.tBodies[0].replaceChildren(...rows.map((row) => {
    const tr = document.createElement('tr');
    for (const cell of row) tr.append(Object.assign(document.createElement('td'), { textContent: String(cell) }));
    return tr;
  }));
  updateScrollCues();
}

// A table wider than its box scrolls; the line of text above it says so only when it does.
function updateScrollCues() {
  for (const box of document.querySelectorAll('.table-scroll')) {
    box.previousElementSibling?.classList.toggle('overflowing', box.scrollWidth > box.clientWidth + 1);
  }
}

export function watchScrollCues() {
  const resizes = new ResizeObserver(updateScrollCues);
  for (const box of document.querySelectorAll('.table-scroll')) resizes.observe(box);
}

function describeRun({ preset, configuration }) {
  const scale = preset.id === 'custom' ? 'custom' : configuration.full ? 'full scale' : 'laptop scale';
  const seeds = configuration.seeds.length;
  return `Results: ${preset.title} — ${scale}, T = ${configuration.horizon.toLocaleString('en-US')}, ${seeds} seed${seeds === 1 ? '' : 's'}`;
}

// Liu et al.'s (arXiv:1812.06360) MIPS presets: each method's precision@k (mean reward per query)
// against its online speedup, the select time of the exact run on the same data (same `group`)
// over its own.
function tradeoffPoints(runs, finished) {
  const selectSeconds = (runIndex) => {
    const results = finished.filter((entry) => entry.runIndex === runIndex).map((entry) => entry.result);
    return results.length ? aggregateRuns(results, 'reward') : null;
  };
  const points = [];
  runs.forEach((run, runIndex) => {
    const baselineIndex = runs.findIndex((other) => other.group === run.group && other.method === 'Exact');
    const own = selectSeconds(runIndex);
    const baseline = selectSeconds(baselineIndex);
    if (!own || !baseline || run.method === 'Exact') return;
    const steps = own.t[own.t.length - 1];
    points.push({ method: run.method, group: run.group, label: run.label, x: baseline.seconds.select / Math.max(own.seconds.select, 1e-9), y: own.final.mean / steps });
  });
  return points;
}

// Curves with exactly the same values hide each other (Sub-TS with a large enough shortlist makes
// Linear TS's decisions): this note names them.
function showIdenticalCurves(series) {
  const groups = new Map();
  for (const entry of series) {
    const key = `${entry.t.join()}|${entry.mean.join()}`;
    groups.set(key, [...(groups.get(key) ?? []), entry.label]);
  }
  const identical = [...groups.values()].filter((labels) => labels.length > 1);
  $('#curve-note').hidden = identical.length === 0;
  $('#curve-note').textContent = identical.length
    ? `Identical results (their curves lie on top of each other; the legend's buttons hide one to see the other): ${identical.map((labels) => labels.join(' = ')).join('; ')}.`
    : '';
}

// The charts and tables. `shown` is what redraw() draws: the results on the page with the preset
// and configuration they ran with ({ preset, runs, finished, configuration }).
export function setUpResults() {
  const curveChart = new CurveChart($('#curve-chart'), { yLabel: 'cumulative regret', legend: $('#curve-legend') });
  const timeChart = new BarChart($('#time-chart'), { xLabel: 'milliseconds per step (select + update)', yLabel: 'policy' });
  const tradeoffChart = new TradeoffChart($('#tradeoff-chart'), { legend: $('#tradeoff-legend') });
  const armsChart = new LogLogChart($('#arms-chart'), { xLabel: 'number of arms K (log scale)', yLabel: 'milliseconds per step, select + update (log scale)', legend: $('#arms-legend') });
  const horizonChart = new LogLogChart($('#horizon-chart'), { xLabel: 'horizon T (log scale)', yLabel: 'total seconds, setup included (log scale)', legend: $('#horizon-legend') });

  // The paper's numbers beside the results they compare with: the run's preset once there are
  // results (`shown`), `selected` before.
  function showPaperTable(shown, selected) {
    const preset = shown?.preset ?? selected;
    fillTable($('#paper-table'), preset.paper.columns, preset.paper.rows);
    $('#paper-title').textContent = shown ? `The paper (${preset.title})` : 'The paper';
  }

  // The timing charts of the presets that have them: time per step against K for runs with `arms`
  // (a preset's own or its `scaling` runs), total time against the horizon for a `crossover`.
  function drawTimingCharts({ preset, runs, finished }) {
    const arms = timeAgainstArms(runs, finished);
    $('#arms-box').hidden = !runs.some((run) => run.arms);
    armsChart.update(arms);
    $('#arms-verdict').textContent = armsVerdict(arms);
    $('#horizon-box').hidden = !preset.crossover;
    if (!preset.crossover) return;
    const totals = totalAgainstHorizon(runs, finished);
    horizonChart.update(totals);
    $('#horizon-verdict').textContent = preset.crossover.map((pair) => crossoverVerdict(totals, pair)).filter(Boolean).join(' ');
  }

  function redraw(shown) {
    const { preset, runs, finished } = shown;
    $('#results-title').textContent = describeRun(shown);
    $('#results-title').hidden = false;
    const series = [];
    const rows = [];
    // Runs for the time-against-K chart only (a matroid policy's few rounds after its initial pulls)
    // stay out of the curves and the table; they come after the others, so the indices agree.
    const styles = seriesStyles(runs.filter((run) => !run.scalingOnly));
    runs.forEach((run, runIndex) => {
      const results = finished.filter((entry) => entry.runIndex === runIndex).map((entry) => entry.result);
      if (results.length === 0 || run.scalingOnly) return;
      const summary = aggregateRuns(results, preset.metric);
      // Many users: the curve is the median user's own regret, the band the users' quartiles.
      const perUser = preset.perUser && summary.perUser;
      series.push({ label: run.label, style: styles[runIndex], ...summary,
        ...(perUser ? { mean: perUser.median, lower: perUser.q1, upper: perUser.q3 } : {}) });
      rows.push([run.label, results.length, `${summary.final.mean.toFixed(1)} ± ${summary.final.std.toFixed(1)}`,
        summary.seconds.total.toFixed(3), summary.seconds.setup.toFixed(3), summary.msPerStep.toFixed(4), Math.round(summary.innerProductsPerStep),
        ...(preset.summary ? [preset.summary.value(run, results)] : [])]);
    });
    const metricLabel = preset.metric === 'reward' ? 'cumulative reward' : 'cumulative regret';
    curveChart.update(series, preset.perUser ? 'a user\'s cumulative regret (median over users; band: quartiles q1–q3)' : metricLabel);
    $('#tradeoff-box').hidden = !preset.tradeoff;
    if (preset.tradeoff) tradeoffChart.update(tradeoffPoints(runs, finished));
    timeChart.update(series.map((entry) => entry.label), series.map((entry) => entry.msPerStep), series.map((entry) => entry.style));
    drawTimingCharts(shown);
    showIdenticalCurves(series);
    fillTable($('#results-table'), ['policy', 'seeds', `final ${metricLabel}${preset.perUser ? ', all users' : ''}`, 'total s', 'setup s', 'ms / step', 'inner products / step',
      ...(preset.summary ? [preset.summary.column] : [])], rows);
  }

  return { redraw, showPaperTable };
}
