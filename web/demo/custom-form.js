// The custom mode's form, generated from custom-options.js: an environment type with its options,
// then any number of the policies of that environment's family, each with its options (and, for
// linear policies, an index type with its options). read() gives the runs of an experiment;
// write() restores a configuration from the URL.
import { environmentTypes, indexTypes, optionValue, policyTypes, setOption } from './custom-options.js';

let controlCount = 0;

function control(option, value, onChange) {
  const id = `custom-${++controlCount}`;
  const label = document.createElement('label');
  label.htmlFor = id;
  let input;
  if (option.type === 'select' || option.type === 'index') {
    input = document.createElement('select');
    const choices = option.type === 'index' ? Object.keys(indexTypes) : option.choices;
    for (const choice of choices) input.append(new Option(option.type === 'index' ? indexTypes[choice].label : choice, choice));
    input.value = value ?? option.start ?? option.default;
  } else if (option.type === 'bool') {
    label.className = 'check';
    input = document.createElement('input');
    input.type = 'checkbox';
    input.checked = value ?? option.start ?? option.default;
  } else {
    input = document.createElement('input');
    input.type = 'number';
    if (option.min !== undefined) input.min = option.min;
    if (option.max !== undefined) input.max = option.max;
    input.step = option.type === 'int' ? '1' : option.step ?? 'any';
    input.value = value ?? option.start ?? option.default;
  }
  input.id = id;
  input.dataset.key = option.key;
  input.addEventListener('change', onChange);
  if (option.type === 'bool') label.append(input, ` ${option.label}`);
  else label.append(`${option.label} `, input);
  return { label, input, option };
}

function readControls(controls) {
  const values = {};
  for (const { input, option } of controls) {
    const value = optionValue(option, option.type === 'bool' ? input.checked : input.value);
    const numeric = option.type === 'number' || option.type === 'int';
    if (numeric ? Number.isFinite(value) : value !== undefined) setOption(values, option.key, value);
  }
  return values;
}

function flatValue(values, key) {
  return key.split('.').reduce((node, part) => (node === undefined ? undefined : node[part]), values);
}

export function mountCustomForm(container, onChange) {
  container.replaceChildren();
  const environmentSelect = document.createElement('select');
  environmentSelect.id = 'custom-environment';
  for (const [type, { label }] of Object.entries(environmentTypes)) environmentSelect.append(new Option(label, type));
  const environmentLabel = document.createElement('label');
  environmentLabel.className = 'wide';
  environmentLabel.append('Environment ', environmentSelect);
  const environmentOptions = document.createElement('div');
  environmentOptions.className = 'custom-options';
  const policyList = document.createElement('div');
  policyList.className = 'custom-policies';
  container.append(environmentLabel, environmentOptions, policyList);

  let environmentControls = [];
  let policies = [];  // { type, checkbox, controls, indexControls, box }

  function renderIndexOptions(policy, values) {
    const indexSelect = policy.controls.find((entry) => entry.option.type === 'index');
    if (!indexSelect) return;
    policy.indexBox.replaceChildren();
    policy.indexControls = indexTypes[indexSelect.input.value].options.map((option) =>
      control(option, values ? flatValue(values, option.key) : undefined, onChange));
    policy.indexBox.append(...policy.indexControls.map((entry) => entry.label));
  }

  function renderEnvironment(config) {
    const type = environmentSelect.value;
    const spec = environmentTypes[type];
    environmentControls = spec.options.map((option) => control(option, config ? flatValue(config.environment, option.key) : undefined, onChange));
    environmentOptions.replaceChildren(...environmentControls.map((entry) => entry.label));
    policyList.replaceChildren();
    const heading = document.createElement('p');
    heading.textContent = 'Policies to compare (each runs on the same instances):';
    policyList.append(heading);
    policies = Object.entries(policyTypes[spec.family]).map(([policyType, policySpec], i) => {
      const saved = config?.policies.find((entry) => entry.type === policyType);
      const box = document.createElement('fieldset');
      const legend = document.createElement('legend');
      const checkbox = document.createElement('input');
      checkbox.type = 'checkbox';
      checkbox.id = `custom-policy-${policyType}`;
      checkbox.checked = config ? Boolean(saved) : i < 2;
      const name = document.createElement('label');
      name.className = 'check';
      name.htmlFor = checkbox.id;
      name.append(checkbox, ` ${policySpec.label}`);
      legend.append(name);
      const controls = policySpec.options.map((option) => control(option, saved ? (option.type === 'index' ? saved.index?.type : flatValue(saved, option.key)) : undefined, onChange));
      const indexBox = document.createElement('div');
      indexBox.className = 'custom-options';
      box.append(legend, ...controls.map((entry) => entry.label), indexBox);
      const policy = { type: policyType, label: policySpec.label, checkbox, controls, indexControls: [], indexBox, box };
      renderIndexOptions(policy, saved?.index);
      const indexSelect = controls.find((entry) => entry.option.type === 'index');
      indexSelect?.input.addEventListener('change', () => renderIndexOptions(policy));
      checkbox.addEventListener('change', onChange);
      policyList.append(box);
      return policy;
    });
  }

  environmentSelect.addEventListener('change', () => {
    renderEnvironment();
    onChange();
  });
  renderEnvironment();

  return {
    // { environment, policies: [{ type, ...options, index? }] }
    read() {
      const environment = { type: environmentSelect.value, ...readControls(environmentControls) };
      const chosen = policies.filter((policy) => policy.checkbox.checked).map((policy) => {
        const values = readControls(policy.controls.filter((entry) => entry.option.type !== 'index'));
        const indexSelect = policy.controls.find((entry) => entry.option.type === 'index');
        if (indexSelect) values.index = { type: indexSelect.input.value, ...readControls(policy.indexControls) };
        return { type: policy.type, ...values };
      });
      return { environment, policies: chosen };
    },
    write(config) {
      if (!config?.environment || !environmentTypes[config.environment.type] || !Array.isArray(config.policies)) return;
      environmentSelect.value = config.environment.type;
      renderEnvironment(config);
    },
  };
}

// The experiment of a custom configuration, shaped like a preset.
export function customPreset(config) {
  const spec = environmentTypes[config.environment.type];
  const labelOf = (policy) => {
    const base = policyTypes[spec.family][policy.type]?.label ?? policy.type;
    return policy.index ? `${base} (${indexTypes[policy.index.type]?.label ?? policy.index.type})` : base;
  };
  return {
    id: 'custom',
    title: 'Custom experiment',
    source: `Custom: ${spec.label}; ${config.policies.length} polic${config.policies.length === 1 ? 'y' : 'ies'}.` +
      (spec.needsRatings ? ' Needs a ratings file (choose one above).' : ''),
    metric: spec.metric,
    horizon: { small: 1000, full: 1000 },
    seeds: { small: 2, full: 2 },
    runs: () => config.policies.map((policy) => ({ label: labelOf(policy), environment: config.environment, policy })),
    paper: { columns: ['note'], rows: [['a custom configuration: no paper numbers']] },
    // Many users over one catalogue: each curve is the median user's, the band the users' quartiles.
    perUser: (config.environment.users ?? 1) > 1,
  };
}
