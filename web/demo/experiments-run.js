// The experiments section's runs: the jobs in workers, progress with the time left, cancel, and the
// exports of what ran.
import { planJobs, runJobs } from './experiment.js';
import { showMessage } from './experiments-settings.js';
import { download, toCsv, toJson } from './export.js';

const $ = (selector) => document.querySelector(selector);

function formatDuration(seconds) {
  // Rounded first, so that 119.6 s reads "2 min 0 s", not "1 min 60 s".
  const whole = Math.round(seconds);
  return seconds >= 59.95 ? `${Math.floor(whole / 60)} min ${whole % 60} s` : `${seconds.toFixed(1)} s`;
}

// `settings` and `results` are the section's other parts; `onRunEnded` runs once a run has ended,
// done, cancelled or failed.
export function setUpRuns({ settings, results, onRunEnded }) {
  let controller = null;
  // The results on the page with the preset and configuration they ran with: redraws, the paper
  // table beside them and exports read this, never the form, which may have changed since.
  let shown = null;

  async function run() {
    const preset = settings.currentPreset();
    const full = $('#full').checked;
    const values = settings.readSettings();
    const problems = [...values.errors, ...settings.checkRatings()];
    if (problems.length) {
      showMessage('#experiment-error', problems.join(' '));
      return;
    }
    const { horizon, seeds: seedCount } = values;
    settings.saveState();
    const runs = [...preset.runs({ full }).map((run) => ({ ...run, environment: settings.withRatingsOptions(run.environment, preset) })),
      ...(preset.scaling?.({ full }) ?? []).map((run) => ({ ...run, scalingOnly: true }))];
    if (runs.length === 0) {
      showMessage('#experiment-error', 'Choose at least one policy.');
      return;
    }
    showMessage('#experiment-error', '');
    showMessage('#experiment-notice', '');
    const seeds = Array.from({ length: seedCount }, (_, i) => i + 1);
    const ratingsFile = settings.ratingsFile();
    const jobs = planJobs({ runs, horizon, seeds, ratings: ratingsFile?.bytes ?? preset.defaultRatings?.() });
    const usesRatings = runs.some((run) => ['ratings', 'promotion'].includes(run.environment.type));
    const ratingsData = !usesRatings ? undefined : ratingsFile ? settings.describeChosenRatings() : 'generated';
    shown = { preset, runs, finished: [], configuration: { preset: preset.id, title: preset.title, full, horizon, seeds, ratings: ratingsData, runs } };
    const { finished } = shown;
    results.redraw(shown);
    results.showPaperTable(shown);
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
          results.redraw(shown);
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
      onRunEnded();
    }
  }

  // Exports name and describe the run they hold, whatever the form says now.
  function exportName(extension) {
    return `${shown.preset.id}${shown.configuration.full ? '-full' : ''}.${extension}`;
  }

  $('#cancel').addEventListener('click', () => controller?.abort());
  $('#export-csv').addEventListener('click', () => download(exportName('csv'), toCsv(shown.finished), 'text/csv'));
  $('#export-json').addEventListener('click', () => download(exportName('json'), toJson(shown.configuration, shown.finished), 'application/json'));

  return { run, running: () => controller !== null, shown: () => shown };
}
