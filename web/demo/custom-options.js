// The custom mode's one table of options: every environment, policy and index type that simulate()
// accepts, each option with its label. The form is generated from it, so an option added here
// appears on the page as a labelled control. Defaults, ranges and choices come from the library's
// option tables (sb.optionTable): applyOptionTables() copies them in once the module is loaded, before
// the form is built; only options the core reads without a table carry their own values here.
//
// An option: { key, label, type: 'int' | 'number' | 'bool' | 'select', default, min, max, step, choices,
// start }. `start`, where set, is the value the form starts from instead of the library's default:
// the demo's runs at laptop scale and in the papers' settings (arms arriving as in the paper's
// experiments, a wider cluster angle, a few hundred users per promotion round). Dotted keys nest
// (change.every -> { change: { every } }).

const int = (key, label, defaultValue, min, max) => ({ key, label, type: 'int', default: defaultValue, min, max });
const number = (key, label, defaultValue, min, max, step = 'any') => ({ key, label, type: 'number', default: defaultValue, min, max, step });
const bool = (key, label) => ({ key, label, type: 'bool' });
const select = (key, label) => ({ key, label, type: 'select' });
const startingAt = (start, option) => ({ ...option, start });

// Functions, so that each policy gets its own option objects (their tables may differ).
const ridge = () => [select('radius', 'confidence radius rule'), number('lambda', 'ridge λ'), number('delta', 'failure probability δ'),
  number('beta', 'fixed confidence radius β (empty: the rule)')];
const shortlist = () => int('shortlist', 'shortlist p (candidates ranked exactly)');

export const indexTypes = {
  exact: { label: 'Exact SIMD scan', options: [] },
  hnsw: { label: 'HNSW (hnswlib)', options: [int('M', 'links per node M'), int('efConstruction', 'efConstruction'), int('efSearch', 'efSearch'), select('space', 'space')] },
  lsh: { label: 'Simple-LSH', options: [int('bits', 'AND width a (bits)'), int('tables', 'OR count b (tables)')] },
  'bounded-me': { label: 'BoundedME', options: [number('epsilon', 'ε'), number('delta', 'δ')] },
  greedy: { label: 'Greedy-MIPS', options: [number('budgetFraction', 'budget B (fraction of the items)')] },
  'pca-tree': { label: 'PCA-MIPS tree', options: [int('depth', 'tree depth (empty: from the size)')] },
  adaptive: { label: 'Adaptive (rounded queries, copies)', options: [int('copies', 'copies κ'), number('epsilon', 'grid ε')] },
};

export const environmentTypes = {
  linear: {
    label: 'Linear: Gaussian arms and θ* (Yang et al., arXiv:2103.02729)', family: 'linear', metric: 'regret',
    options: [int('dim', 'dimension d'), int('arms', 'initial arms K'), number('noise', 'reward noise σ'),
      bool('normalize', 'unit-norm arms and θ*'), startingAt(20, int('change.every', 'arm changes every (steps; 0 = never)')),
      startingAt(2, int('change.add', 'arms added per change')), int('change.remove', 'arms removed per change'),
      int('users', 'users sharing the arms (each with a model of their own)'), number('spread', "users' spread around the shared taste")],
  },
  ratings: {
    label: 'Ratings: a MovieLens file (choose it above; Yang et al., arXiv:2103.02729, Table 3)', family: 'linear', metric: 'regret', needsRatings: true,
    options: [int('dim', 'ALS rank = d'), int('iterations', 'ALS iterations'), int('testUsers', 'held-out users'),
      int('minRatings', 'held-out users rated more than'), int('change.every', 'movies arrive every (steps)'),
      int('change.add', 'movies per arrival'), select('regret', 'regret')],
  },
  matroid: {
    label: 'Matroid: Bernoulli arms (our experiment for Tzeng et al., arXiv:2405.17968)', family: 'matroid', metric: 'regret',
    options: [int('K', 'arms K'), select('matroid.kind', 'matroid'),
      startingAt(10, int('matroid.rank', 'rank D (uniform)')), startingAt(10, int('matroid.groups', 'groups (partition)')),
      int('matroid.vertices', 'vertices (graphic)'), int('matroid.right', 'right vertices (transversal)')],
  },
  clustered: {
    label: 'Clustered arms (Takemura and Ito, arXiv:1909.02251, Figure 2)', family: 'cls', metric: 'reward',
    options: [int('dim', 'dimension d'), int('arms', 'arms per round N'), int('k', 'super-arm size k'),
      startingAt(1.1781, number('angle', 'cluster angle θ (radians)'))],
  },
  promotion: {
    label: 'Sending promotions (Takemura and Ito, arXiv:1909.02251, Table I; ratings file optional)', family: 'cls', metric: 'reward',
    options: [int('promotions', 'promotions M'), startingAt(5, int('k', 'users per promotion k')), startingAt(500, int('users', 'users drawn per round N')),
      int('rank', 'feature rank')],
  },
  'mab-bp': {
    label: 'Bounded pulls, adversarial lists (Liu et al., arXiv:1812.06360, Figure 1)', family: 'mab-bp', metric: 'regret',
    options: [int('arms', 'arms K'), int('listLength', 'list length N')],
  },
  mips: {
    label: 'MIPS on synthetic data (Liu et al., arXiv:1812.06360, Figures 2, 3)', family: 'mips', metric: 'reward',
    options: [select('dataset', 'data'), int('items', 'items'), int('dim', 'dimension')],
  },
};

const index = { key: 'index', label: 'MIPS index', type: 'index' };

export const policyTypes = {
  linear: {
    'lin-ucb': { label: 'LinUCB (OFUL)', options: ridge() },
    'lin-ts': { label: 'Linear TS', options: [...ridge(), number('inflation', 'sampling inflation'), shortlist(), { ...index, default: 'exact' }] },
    'linear-elim': { label: 'Linear Elim', options: [...ridge(), { ...index, default: 'exact' }] },
    'sub-elim': { label: 'Sub-Elim', options: [...ridge(), shortlist(), number('eta', 'MIPS accuracy η (empty: 1/√T)'), { ...index, default: 'hnsw' }] },
    'sub-ts': { label: 'Sub-TS', options: [...ridge(), number('inflation', 'sampling inflation'), shortlist(), { ...index, default: 'hnsw' }] },
  },
  matroid: {
    cucb: { label: 'CUCB', options: [number('a', 'reward low a'), number('b', 'reward high b')] },
    'faster-cucb': { label: 'FasterCUCB', options: [number('a', 'reward low a'), number('b', 'reward high b'), startingAt(0.1, number('epsilon', 'accuracy ε'))] },
    cts: { label: 'CTS', options: [number('a', 'reward low a'), number('b', 'reward high b')] },
  },
  cls: {
    c2ucb: { label: 'C2UCB', options: [number('lambda', 'ridge λ'), number('alpha', 'width α')] },
    pc2ucb: { label: 'PC2UCB', options: [number('lambda', 'ridge λ'), number('alpha', 'width α'), number('c', 'noise scale c')] },
    'comb-lin-ucb': { label: 'CombLinUCB', options: [number('priorVariance', 'prior variance'), number('noiseVariance', 'noise variance'), number('c', 'width c')] },
    'comb-lin-ts': { label: 'CombLinTS', options: [number('priorVariance', 'prior variance'), number('noiseVariance', 'noise variance')] },
    'comb-ts': { label: 'Combinatorial TS', options: [number('lambda', 'ridge λ'), select('randomization', 'randomization'), number('v', 'sampling scale v')] },
    'greedy-cls': { label: 'Greedy', options: [number('lambda', 'ridge λ')] },
  },
  'mab-bp': {
    // simulate()'s mab-bp policy reads these itself (no option table): (0, 1), default 0.1.
    'bounded-me': { label: 'BoundedME', options: [number('epsilon', 'ε', 0.1, 0.000001, 0.999999), number('delta', 'δ', 0.1, 0.000001, 0.999999)] },
  },
  // A mips run's k is read by simulate() itself (1..10^6, default 5).
  mips: Object.fromEntries(Object.entries(indexTypes).map(([type, { label, options }]) => [type, {
    label, options: [int('k', 'top k', 5, 1, 1000000), ...options.map((option) => ({ ...option }))],
  }])),
};

const policyTableKinds = { linear: 'linear-policy', matroid: 'semi-bandit-policy', cls: 'cls-policy', mips: 'index' };

// The option table entry a form option reads ({ kind, type, name }), or null when the core reads
// the option without a table. `where` is 'environment', 'index' or a policy family.
export function tableOf(where, type, key) {
  if (where === 'environment') {
    const dot = key.indexOf('.');
    // A nested object's table is named by its path: linear.change, matroid.matroid.
    return dot < 0 ? { kind: 'environment', type, name: key } : { kind: 'nested', type: `${type}.${key.slice(0, dot)}`, name: key.slice(dot + 1) };
  }
  if (where === 'index') return { kind: 'index', type, name: key };
  const kind = policyTableKinds[where];
  if (!kind || (where === 'mips' && key === 'k')) return null;
  return { kind, type, name: key };
}

// An open end cannot be an <input>'s min or max: a bound just inside it, as the form always had.
const justInside = (value, direction) => value + direction * Math.max(1e-6, Math.abs(value) * 1e-6);

// Copies the tables' defaults, ranges and choices onto the form's options. `optionTable(kind,
// type)` is sb.optionTable. A default the library computes (a string describing it), or one whose
// absence means something else (a `defaultNote`: beta absent is "the radius rule", not 0), leaves the
// control empty, which means "the library's default".
export function applyOptionTables(optionTable) {
  const apply = (where, type, options) => {
    for (const option of options) {
      const entry = option.type === 'index' ? null : tableOf(where, type, option.key);
      if (entry === null) continue;
      const spec = optionTable(entry.kind, entry.type).find((candidate) => candidate.name === entry.name);
      if (!spec) throw new Error(`the demo's option ${where} ${type} ${option.key} is not in the library's table`);
      if (spec.choices) option.choices = spec.choices;
      option.default = (typeof spec.default === 'string' && spec.type !== 'string') || spec.defaultNote !== undefined ? '' : spec.default;
      if (spec.type === 'integer' || spec.type === 'number') {
        option.min = spec.low <= -1e300 ? undefined : spec.lowOpen ? justInside(spec.low, 1) : spec.low;
        option.max = spec.high >= 1e300 ? undefined : spec.highOpen ? justInside(spec.high, -1) : spec.high;
      }
    }
  };
  for (const [type, { options }] of Object.entries(environmentTypes)) apply('environment', type, options);
  for (const [type, { options }] of Object.entries(indexTypes)) apply('index', type, options);
  for (const [family, types] of Object.entries(policyTypes)) {
    for (const [type, { options }] of Object.entries(types)) apply(family, type, options);
  }
}

// Sets a dotted key in a nested object.
export function setOption(target, key, value) {
  const parts = key.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) node = node[part] ??= {};
  node[parts[parts.length - 1]] = value;
}

// The simulate() options of a control's value: empty inputs fall back to the library's default.
export function optionValue(option, raw) {
  if (option.type === 'bool') return Boolean(raw);
  if (option.type === 'select' || option.type === 'index') return raw;
  if (raw === '' || raw === null || raw === undefined) return undefined;
  return Number(raw);
}
