// The experiments section: preset choice, runs in workers with progress and cancel, charts that
// grow as runs finish, our numbers beside the paper's, export, and the configuration in the URL.
import { papers, presetNotes } from './about.js';
import { renderPresetNote } from './about-page.js';
import { BarChart, CurveChart, LogLogChart, seriesStyles, TradeoffChart } from './charts.js';
import { customPreset, mountCustomForm } from './custom-form.js';
import { planJobs, runJobs } from './experiment.js';
import { download, toCsv, toJson } from './export.js';
import { findPreset, presets } from './presets.js';
import { describeRatings, RatingsFileError, ratingsProblem, readRatingsFile } from './ratings-file.js';
import { aggregateRuns } from './statistics.js';
import { armsVerdict, crossoverVerdict, timeAgainstArms, totalAgainstHorizon } from './timing-results.js';
import { readState, writeState } from './url-state.js';

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

function formatDuration(seconds) {
  // Rounded first, so that 119.6 s reads "2 min 0 s", not "1 min 60 s".
  const whole = Math.round(seconds);
  return seconds >= 59.95 ? `${Math.floor(whole / 60)} min ${whole % 60} s` : `${seconds.toFixed(1)} s`;
}

export function setUpExperiments() {
  const presetSelect = $('#preset');
  // Presets grouped under their paper's title (the option texts keep their table or figure).
  for (const preset of presets) {
    const number = presetNotes[preset.id]?.paper;
    const label = number ? `${papers[number].title} (paper ${number})` : 'Other';
    let group = [...presetSelect.children].find((child) => child.label === label);
    if (!group) presetSelect.append(group = Object.assign(document.createElement('optgroup'), { label }));
    group.append(new Option(preset.title, preset.id));
  }
  presetSelect.append(new Option('Custom experiment: choose the environment, policies and every option', 'custom'));
  const curveChart = new CurveChart($('#curve-chart'), { yLabel: 'cumulative regret', legend: $('#curve-legend') });
  const timeChart = new BarChart($('#time-chart'), { xLabel: 'milliseconds per step (select + update)', yLabel: 'policy' });
  const tradeoffChart = new TradeoffChart($('#tradeoff-chart'), { legend: $('#tradeoff-legend') });
  const armsChart = new LogLogChart($('#arms-chart'), { xLabel: 'number of arms K (log scale)', yLabel: 'milliseconds per step, select + update (log scale)', legend: $('#arms-legend') });
  const horizonChart = new LogLogChart($('#horizon-chart'), { xLabel: 'horizon T (log scale)', yLabel: 'total seconds, setup included (log scale)', legend: $('#horizon-legend') });
  // The chosen ratings file, read and checked when chosen: { name, file } (file: readRatingsFile's
  // result), or { name, error }; null for none.
  let ratings = null;
  let controller = null;
  // The results on the page with the preset and configuration they ran with: redraws, the paper
  // table beside them and exports read this, never the form, which may have changed since.
  let shown = null;
  // A link opened while a run is going applies when the run ends (the form is locked until then).
  let pendingHash = false;

  const custom = mountCustomForm($('#custom-form'), () => {
    $('#preset-source').textContent = currentPreset().source;
    validate();
    saveState();
  });

  const limits = { seeds: { min: 1, max: 50 }, horizon: { min: 1, max: 10_000_000 } };

  function showMessage(selector, text) {
    $(selector).textContent = text ?? '';
    $(selector).hidden = !text;
  }

  // The form's values, or the reasons they cannot run; inputs at fault are marked aria-invalid.
  function readSettings() {
    const errors = [];
    const values = {};
    for (const [id, { min, max }] of Object.entries(limits)) {
      const input = $(`#${id}`);
      const text = input.value.trim();
      const value = Number(text);
      const valid = text !== '' && Number.isInteger(value) && value >= min && value <= max;
      input.setAttribute('aria-invalid', String(!valid));
      if (!valid) errors.push(`${id === 'seeds' ? 'Seeds' : 'Horizon T'} must be a whole number from ${min} to ${max.toLocaleString('en-US')}${text === '' ? '' : ` (got ${text})`}.`);
      values[id] = value;
    }
    return { errors, ...values };
  }

  // The environments of the selected preset that read a ratings file (movies: Table 3; promotions:
  // Table I), with the page's ratings options applied.
  function ratingsEnvironments() {
    const preset = currentPreset();
    return preset.runs({ full: $('#full').checked }).map((run) => withRatingsOptions(run.environment, preset))
      .filter((environment) => ['ratings', 'promotion'].includes(environment.type));
  }

  const positiveInteger = (selector, min) => {
    const value = Number($(selector).value);
    return $(selector).value.trim() !== '' && Number.isInteger(value) && value >= min ? value : undefined;
  };

  // The page's ratings options on an environment: minRatings for the movie experiment (the custom
  // form has its own control), the promotions' rater limits when a file is chosen.
  function withRatingsOptions(environment, preset) {
    if (environment.type === 'ratings' && preset.id !== 'custom') {
      const minRatings = positiveInteger('#min-ratings', 0);
      return minRatings === undefined ? environment : { ...environment, minRatings };
    }
    if (environment.type === 'promotion' && ratings?.file) {
      return { ...environment, testMinRaters: positiveInteger('#min-raters', 1) ?? 1400, testMaxRaters: positiveInteger('#max-raters', 1) ?? 2800 };
    }
    return environment;
  }

  // Shows the ratings options the selected preset uses, the file's summary, and returns what stops
  // it from running with this file.
  function checkRatings() {
    const environments = ratingsEnvironments();
    const preset = currentPreset();
    $('#ratings-options').hidden = environments.length === 0;
    $('#min-ratings-label').hidden = !environments.some((environment) => environment.type === 'ratings') || preset.id === 'custom';
    const promotion = environments.some((environment) => environment.type === 'promotion');
    $('#min-raters-label').hidden = !promotion;
    $('#max-raters-label').hidden = !promotion;
    // Without a file a preset's generated stand-in runs (Table 3's file, Table I's users); the
    // custom movie environment has none.
    const needsFile = !preset.defaultRatings && environments.some((environment) => environment.type === 'ratings');
    const generated = preset.defaultRatings ? 'No file chosen: a generated MovieLens-format file stands in.'
      : needsFile ? 'No file chosen.' : 'No file chosen: generated users stand in.';
    $('#ratings-summary').textContent = ratings?.file ? describeRatings(ratings.name, ratings.file) : ratings ? `${ratings.name}: not a ratings file.` : generated;
    if (ratings?.error) return [ratings.error];
    if (!ratings?.file) return needsFile ? ['The movie environment needs a ratings file: choose one above (MovieLens ratings.dat, u.data or ratings.csv).'] : [];
    return [...new Set(environments.map((environment) => ratingsProblem(ratings.file, environment)).filter(Boolean))];
  }

  function validate() {
    const errors = [...readSettings().errors, ...checkRatings()];
    showMessage('#experiment-error', errors.join(' '));
    return errors.length === 0;
  }

  function currentPreset() {
    return presetSelect.value === 'custom' ? customPreset(custom.read()) : findPreset(presetSelect.value);
  }

  function showPreset() {
    const preset = currentPreset();
    const full = $('#full').checked;
    $('#custom-fieldset').hidden = preset.id !== 'custom';
    $('#full').disabled = preset.id === 'custom';
    $('#preset-source').textContent = preset.source;
    renderPresetNote($('#preset-note'), preset.id);
    $('#horizon').value = full ? preset.horizon.full : preset.horizon.small;
    $('#seeds').value = full ? preset.seeds.full : preset.seeds.small;
    // The movie experiment's own minRatings for this scale, which the page's control can change.
    const movies = preset.id === 'custom' ? undefined : preset.runs({ full }).find((run) => run.environment.type === 'ratings');
    $('#min-ratings').value = movies?.environment.minRatings ?? 100;
    validate();
    showPaperTable();
  }

  // The paper's numbers beside the results they compare with: the run's preset once there are
  // results, the selected one before.
  function showPaperTable() {
    const preset = shown?.preset ?? currentPreset();
    fillTable($('#paper-table'), preset.paper.columns, preset.paper.rows);
    $('#paper-title').textContent = shown ? `The paper (${preset.title})` : 'The paper';
  }

  function describeRun({ preset, configuration }) {
    const scale = preset.id === 'custom' ? 'custom' : configuration.full ? 'full scale' : 'laptop scale';
    const seeds = configuration.seeds.length;
    return `Results: ${preset.title} — ${scale}, T = ${configuration.horizon.toLocaleString('en-US')}, ${seeds} seed${seeds === 1 ? '' : 's'}`;
  }

  function saveState() {
    // The ratings options go into the link only where the preset uses them (the file itself cannot).
    const shows = (selector) => !$('#ratings-options').hidden && !$(`${selector}-label`).hidden;
    writeState({ preset: presetSelect.value, full: $('#full').checked ? 1 : 0, seeds: $('#seeds').value, horizon: $('#horizon').value,
      minRatings: shows('#min-ratings') ? $('#min-ratings').value : undefined,
      minRaters: shows('#min-raters') ? $('#min-raters').value : undefined,
      maxRaters: shows('#max-raters') ? $('#max-raters').value : undefined,
      custom: presetSelect.value === 'custom' ? custom.read() : undefined });
  }

  function restoreState() {
    const state = readState();
    if (state.preset && (state.preset === 'custom' || presets.some((preset) => preset.id === state.preset))) presetSelect.value = state.preset;
    if (state.custom) custom.write(state.custom);
    $('#full').checked = state.full === '1';
    showPreset();
    if (state.seeds) $('#seeds').value = state.seeds;
    if (state.horizon) $('#horizon').value = state.horizon;
    if (state.minRatings) $('#min-ratings').value = state.minRatings;
    if (state.minRaters) $('#min-raters').value = state.minRaters;
    if (state.maxRaters) $('#max-raters').value = state.maxRaters;
    validate();
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

  function redraw() {
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

  async function run() {
    const preset = currentPreset();
    const full = $('#full').checked;
    const settings = readSettings();
    const problems = [...settings.errors, ...checkRatings()];
    if (problems.length) {
      showMessage('#experiment-error', problems.join(' '));
      return;
    }
    const { horizon, seeds: seedCount } = settings;
    saveState();
    const runs = [...preset.runs({ full }).map((run) => ({ ...run, environment: withRatingsOptions(run.environment, preset) })),
      ...(preset.scaling?.({ full }) ?? []).map((run) => ({ ...run, scalingOnly: true }))];
    if (runs.length === 0) {
      showMessage('#experiment-error', 'Choose at least one policy.');
      return;
    }
    showMessage('#experiment-error', '');
    showMessage('#experiment-notice', '');
    const seeds = Array.from({ length: seedCount }, (_, i) => i + 1);
    const jobs = planJobs({ runs, horizon, seeds, ratings: ratings?.file?.bytes ?? preset.defaultRatings?.() });
    const usesRatings = runs.some((run) => ['ratings', 'promotion'].includes(run.environment.type));
    const ratingsData = !usesRatings ? undefined : ratings?.file ? describeRatings(ratings.name, ratings.file) : 'generated';
    shown = { preset, runs, finished: [], configuration: { preset: preset.id, title: preset.title, full, horizon, seeds, ratings: ratingsData, runs } };
    const { finished } = shown;
    redraw();
    showPaperTable();
    controller = new AbortController();
    $('#experiment-settings').disabled = true;
    $('#run-experiment').disabled = true;
    $('#cancel').disabled = false;
    $('#export-csv').disabled = true;
    $('#export-json').disabled = true;
    // The last run's "Done" must not linger while this one starts (workers take a moment to load).
    $('#progress').value = 0;
    $('#progress-text').textContent = 'Starting…';
    const started = performance.now();
    const showProgress = (fraction) => {
      const elapsed = (performance.now() - started) / 1000;
      $('#progress').value = fraction;
      // An estimate as soon as there is progress to extrapolate, said to be rough while it is small
      // (a full-scale run of many jobs may take a minute to reach a few percent).
      const left = formatDuration((elapsed * (1 - fraction)) / Math.max(fraction, 1e-9));
      const remaining = fraction >= 0.05 ? ` — about ${left} left`
        : fraction > 0 && elapsed >= 2 ? ` — roughly ${left} left (early estimate)` : ' — estimating the time left…';
      $('#progress-text').textContent = `${(fraction * 100).toFixed(0)}% — ${formatDuration(elapsed)} elapsed${remaining}`;
    };
    try {
      await runJobs(jobs, {
        signal: controller.signal,
        concurrency: Math.min(2, navigator.hardwareConcurrency || 2),
        onProgress: showProgress,
        onJobDone: (job, result) => {
          finished.push({ runIndex: job.runIndex, seed: job.seed, label: runs[job.runIndex].label, result });
          redraw();
        },
      });
      $('#progress-text').textContent = `Done: ${jobs.length} runs in ${formatDuration((performance.now() - started) / 1000)}.`;
      $('#progress').value = 1;
    } catch (error) {
      if (error?.name === 'AbortError') {
        $('#progress-text').textContent = `Cancelled after ${finished.length} of ${jobs.length} runs.`;
      } else {
        // The reason on its own line (it can be long); the progress line stays short.
        $('#progress-text').textContent = 'Failed (the reason is above).';
        showMessage('#experiment-error', `The experiment failed: ${error?.code ? `${error.code}: ` : ''}${error?.message ?? error}`);
      }
    } finally {
      controller = null;
      $('#experiment-settings').disabled = false;
      $('#run-experiment').disabled = false;
      $('#cancel').disabled = true;
      $('#export-csv').disabled = finished.length === 0;
      $('#export-json').disabled = finished.length === 0;
      if (pendingHash) {
        pendingHash = false;
        showMessage('#experiment-notice', '');
        restoreState();
      }
    }
  }

  // Exports name and describe the run they hold, whatever the form says now.
  function exportName(extension) {
    return `${shown.preset.id}${shown.configuration.full ? '-full' : ''}.${extension}`;
  }

  presetSelect.addEventListener('change', () => { showPreset(); saveState(); });
  $('#full').addEventListener('change', () => { showPreset(); saveState(); });
  for (const id of ['#seeds', '#horizon']) {
    $(id).addEventListener('input', validate);
    $(id).addEventListener('change', saveState);
  }
  window.addEventListener('hashchange', () => {
    if (controller) {
      pendingHash = true;
      showMessage('#experiment-notice', 'The link\'s configuration will be applied when this run ends or is cancelled.');
      return;
    }
    restoreState();
  });
  $('#experiment-form').addEventListener('submit', (event) => { event.preventDefault(); run(); });
  $('#cancel').addEventListener('click', () => controller?.abort());
  $('#ratings-file').addEventListener('change', async (event) => {
    const chosen = event.target.files?.[0];
    ratings = null;
    if (chosen) {
      $('#ratings-summary').textContent = `Reading ${chosen.name}…`;
      try {
        ratings = { name: chosen.name, file: readRatingsFile(new Uint8Array(await chosen.arrayBuffer())) };
      } catch (error) {
        if (!(error instanceof RatingsFileError)) throw error;
        ratings = { name: chosen.name, error: `${chosen.name} cannot be used: ${error.message}` };
      }
    }
    validate();
  });
  for (const id of ['#min-ratings', '#min-raters', '#max-raters']) {
    $(id).addEventListener('input', validate);
    $(id).addEventListener('change', saveState);
  }
  $('#export-csv').addEventListener('click', () => download(exportName('csv'), toCsv(shown.finished), 'text/csv'));
  $('#export-json').addEventListener('click', () => download(exportName('json'), toJson(shown.configuration, shown.finished), 'application/json'));
  const resizes = new ResizeObserver(updateScrollCues);
  for (const box of document.querySelectorAll('.table-scroll')) resizes.observe(box);
  restoreState();
  $('#run-experiment').disabled = false;
}
