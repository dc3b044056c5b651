// The experiments section: preset choice, runs in workers with progress and cancel, charts that
// grow as runs finish, our numbers beside the paper's, export, and the configuration in the URL.
// One module per part: experiments-settings.js (the form and the link), experiments-results.js (the
// charts and tables), experiments-run.js (the runs and exports); this one connects them.
import { setUpResults, watchScrollCues } from './experiments-results.js';
import { setUpRuns } from './experiments-run.js';
import { fillPresetMenu, setUpSettings, showMessage } from './experiments-settings.js';

const $ = (selector) => document.querySelector(selector);

export function setUpExperiments() {
  const presetSelect = $('#preset');
  fillPresetMenu(presetSelect);
  const results = setUpResults();
  // A link opened while a run is going applies when the run ends (the form is locked until then).
  let pendingHash = false;
  let runs = null;
  const settings = setUpSettings({
    presetSelect,
    onPresetShown: () => results.showPaperTable(runs?.shown(), settings.currentPreset()),
  });
  runs = setUpRuns({
    settings,
    results,
    onRunEnded: () => {
      if (!pendingHash) return;
      pendingHash = false;
      showMessage('#experiment-notice', '');
      settings.restoreState();
    },
  });

  presetSelect.addEventListener('change', () => { settings.showPreset(); settings.saveState(); });
  $('#full').addEventListener('change', () => { settings.showPreset(); settings.saveState(); });
  for (const id of ['#seeds', '#horizon']) {
    $(id).addEventListener('input', settings.validate);
    $(id).addEventListener('change', settings.saveState);
  }
  window.addEventListener('hashchange', () => {
    if (runs.running()) {
      pendingHash = true;
      showMessage('#experiment-notice', 'The link\'s configuration will be applied when this run ends or is cancelled.');
      return;
    }
    settings.restoreState();
  });
  $('#experiment-form').addEventListener('submit', (event) => { event.preventDefault(); runs.run(); });
  $('#ratings-file').addEventListener('change', (event) => settings.chooseRatingsFile(event.target.files?.[0]));
  for (const id of ['#min-ratings', '#min-raters', '#max-raters']) {
    $(id).addEventListener('input', settings.validate);
    $(id).addEventListener('change', settings.saveState);
  }
  watchScrollCues();
  settings.restoreState();
  $('#run-experiment').disabled = false;
}
