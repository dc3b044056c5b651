// The experiments section's settings: the preset menu, seeds and horizon, the ratings file and its
// options, the custom form, their checks, and the configuration kept in the URL.
import { papers, presetNotes } from './about.js';
import { renderPresetNote } from './about-page.js';
import { customPreset, mountCustomForm } from './custom-form.js';
import { findPreset, presets } from './presets.js';
import { describeRatings, RatingsFileError, ratingsProblem, readRatingsFile } from './ratings-file.js';
import { readState, writeState } from './url-state.js';

const $ = (selector) => document.querySelector(selector);

const limits = { seeds: { min: 1, max: 50 }, horizon: { min: 1, max: 10_000_000 } };

export function showMessage(selector, text) {
  $(selector).textContent = text ?? '';
  $(selector).hidden = !text;
}

// Presets grouped under their paper's title (the option texts keep their table or figure).
export function fillPresetMenu(presetSelect) {
  for (const preset of presets) {
    const number = presetNotes[preset.id]?.paper;
    const label = number ? `${papers[number].title} (${papers[number].cite})` : 'Other';
    let group = [...presetSelect.children].find((child) => child.label === label);
    if (!group) presetSelect.append(group = Object.assign(document.createElement('optgroup'), { label }));
    group.append(new Option(preset.title, preset.id));
  }
  presetSelect.append(new Option('Custom experiment: choose the environment, policies and every option', 'custom'));
}

// The settings form. `onPresetShown` runs after the form shows another preset's values.
export function setUpSettings({ presetSelect, onPresetShown }) {
  // The chosen ratings file, read and checked when chosen: { name, file } (file: readRatingsFile's
  // result), or { name, error }; null for none.
  let ratings = null;

  const custom = mountCustomForm($('#custom-form'), () => {
    $('#preset-source').textContent = currentPreset().source;
    validate();
    saveState();
  });

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
    onPresetShown();
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

  async function chooseRatingsFile(chosen) {
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
  }

  // What a run reads of the ratings file: its bytes, and how the results describe it.
  const ratingsFile = () => ratings?.file;
  const describeChosenRatings = () => (ratings?.file ? describeRatings(ratings.name, ratings.file) : undefined);

  return { currentPreset, readSettings, checkRatings, withRatingsOptions, validate, showPreset, saveState, restoreState,
    chooseRatingsFile, ratingsFile, describeChosenRatings };
}
