// The experiments section: preset choice, runs in workers with progress and cancel, charts that
// grow as runs finish, our numbers beside the paper's, export, and the configuration in the URL.
import { BarChart, CurveChart, TradeoffChart } from './charts.js';
import { customPreset, mountCustomForm } from './custom-form.js';
import { planJobs, runJobs } from './experiment.js';
import { download, toCsv, toJson } from './export.js';
import { findPreset, presets } from './presets.js';
import { aggregateRuns } from './statistics.js';
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
}

function formatDuration(seconds) {
  return seconds >= 60 ? `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s` : `${seconds.toFixed(1)} s`;
}

export function setUpExperiments() {
  const presetSelect = $('#preset');
  for (const preset of presets) presetSelect.append(new Option(preset.title, preset.id));
  presetSelect.append(new Option('Custom experiment: choose the environment, policies and every option', 'custom'));
  const curveChart = new CurveChart($('#curve-chart'), { yLabel: 'cumulative regret' });
  const timeChart = new BarChart($('#time-chart'), { xLabel: 'milliseconds per step (select + update)', yLabel: 'policy' });
  const tradeoffChart = new TradeoffChart($('#tradeoff-chart'));
  let ratings = null;
  let controller = null;
  let finished = [];
  let lastConfiguration = null;

  const custom = mountCustomForm($('#custom-form'), () => {
    $('#preset-source').textContent = currentPreset().source;
    saveState();
  });

  function currentPreset() {
    return presetSelect.value === 'custom' ? customPreset(custom.read()) : findPreset(presetSelect.value);
  }

  function showPreset() {
    const preset = currentPreset();
    const full = $('#full').checked;
    $('#custom-fieldset').hidden = preset.id !== 'custom';
    $('#full').disabled = preset.id === 'custom';
    $('#preset-source').textContent = preset.source;
    $('#horizon').value = full ? preset.horizon.full : preset.horizon.small;
    $('#seeds').value = full ? preset.seeds.full : preset.seeds.small;
    fillTable($('#paper-table'), preset.paper.columns, preset.paper.rows);
  }

  function saveState() {
    writeState({ preset: presetSelect.value, full: $('#full').checked ? 1 : 0, seeds: $('#seeds').value, horizon: $('#horizon').value,
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
  }

  // Paper 001's MIPS presets: each method's precision@k (mean reward per query) against its online
  // speedup, the select time of the exact run on the same data (same `group`) over its own.
  function tradeoffPoints(runs) {
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
      points.push({ method: `${run.method} (${run.group})`, label: run.label, x: baseline.seconds.select / Math.max(own.seconds.select, 1e-9), y: own.final.mean / steps });
    });
    return points;
  }

  function redraw(preset, runs) {
    const series = [];
    const rows = [];
    runs.forEach((run, runIndex) => {
      const results = finished.filter((entry) => entry.runIndex === runIndex).map((entry) => entry.result);
      if (results.length === 0) return;
      const summary = aggregateRuns(results, preset.metric);
      series.push({ label: run.label, ...summary });
      rows.push([run.label, results.length, `${summary.final.mean.toFixed(1)} ± ${summary.final.std.toFixed(1)}`,
        summary.seconds.total.toFixed(3), summary.seconds.setup.toFixed(3), summary.msPerStep.toFixed(4), Math.round(summary.innerProductsPerStep),
        ...(preset.summary ? [preset.summary.value(run, results)] : [])]);
    });
    const metricLabel = preset.metric === 'reward' ? 'cumulative reward' : 'cumulative regret';
    curveChart.update(series, metricLabel);
    $('#tradeoff-box').hidden = !preset.tradeoff;
    if (preset.tradeoff) tradeoffChart.update(tradeoffPoints(runs));
    timeChart.update(series.map((entry) => entry.label), series.map((entry) => entry.msPerStep));
    fillTable($('#results-table'), ['policy', 'seeds', `final ${metricLabel}`, 'total s', 'setup s', 'ms / step', 'inner products / step',
      ...(preset.summary ? [preset.summary.column] : [])], rows);
  }

  async function run() {
    const preset = currentPreset();
    const full = $('#full').checked;
    const horizon = Number.parseInt($('#horizon').value, 10);
    const seedCount = Number.parseInt($('#seeds').value, 10);
    if (!Number.isInteger(horizon) || horizon < 1 || !Number.isInteger(seedCount) || seedCount < 1) {
      $('#progress-text').textContent = 'Horizon and seeds must be positive integers.';
      return;
    }
    saveState();
    const runs = preset.runs({ full });
    if (runs.length === 0) {
      $('#progress-text').textContent = 'Choose at least one policy.';
      return;
    }
    const seeds = Array.from({ length: seedCount }, (_, i) => i + 1);
    const jobs = planJobs({ runs, horizon, seeds, ratings: ratings ?? preset.defaultRatings?.() });
    lastConfiguration = { preset: preset.id, full, horizon, seeds, runs };
    finished = [];
    redraw(preset, runs);
    controller = new AbortController();
    $('#run-experiment').disabled = true;
    $('#cancel').disabled = false;
    $('#export-csv').disabled = true;
    $('#export-json').disabled = true;
    const started = performance.now();
    const showProgress = (fraction) => {
      const elapsed = (performance.now() - started) / 1000;
      $('#progress').value = fraction;
      const remaining = fraction > 0.02 ? ` — about ${formatDuration((elapsed * (1 - fraction)) / fraction)} left` : '';
      $('#progress-text').textContent = `${(fraction * 100).toFixed(0)}% — ${formatDuration(elapsed)} elapsed${remaining}`;
    };
    try {
      await runJobs(jobs, {
        signal: controller.signal,
        concurrency: Math.min(2, navigator.hardwareConcurrency || 2),
        onProgress: showProgress,
        onJobDone: (job, result) => {
          finished.push({ runIndex: job.runIndex, seed: job.seed, label: runs[job.runIndex].label, result });
          redraw(preset, runs);
        },
      });
      $('#progress-text').textContent = `Done: ${jobs.length} runs in ${formatDuration((performance.now() - started) / 1000)}.`;
      $('#progress').value = 1;
    } catch (error) {
      $('#progress-text').textContent = error?.name === 'AbortError' ? `Cancelled after ${finished.length} of ${jobs.length} runs.` : `Failed: ${error?.code ? `${error.code}: ` : ''}${error?.message ?? error}`;
    } finally {
      controller = null;
      $('#run-experiment').disabled = false;
      $('#cancel').disabled = true;
      $('#export-csv').disabled = finished.length === 0;
      $('#export-json').disabled = finished.length === 0;
    }
  }

  presetSelect.addEventListener('change', () => { showPreset(); saveState(); });
  $('#full').addEventListener('change', () => { showPreset(); saveState(); });
  $('#seeds').addEventListener('change', saveState);
  $('#horizon').addEventListener('change', saveState);
  $('#experiment-form').addEventListener('submit', (event) => { event.preventDefault(); run(); });
  $('#cancel').addEventListener('click', () => controller?.abort());
  $('#ratings-file').addEventListener('change', async (event) => {
    const file = event.target.files?.[0];
    ratings = file ? new Uint8Array(await file.arrayBuffer()) : null;
  });
  $('#export-csv').addEventListener('click', () => download(`${currentPreset().id}.csv`, toCsv(finished), 'text/csv'));
  $('#export-json').addEventListener('click', () => download(`${currentPreset().id}.json`, toJson(lastConfiguration, finished), 'application/json'));
  restoreState();
  $('#run-experiment').disabled = false;
}
