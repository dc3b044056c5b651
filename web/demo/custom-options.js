// The custom mode's one table of options: every environment, policy and index type that simulate()
// accepts, each option with its label, unit, default and range. The form is generated from it, so
// an option added here appears on the page as a labelled control.
//
// An option: { key, label, type: 'int' | 'number' | 'bool' | 'select', default, min, max, step, choices }.
// Dotted keys nest (change.every -> { change: { every } }).

const int = (key, label, defaultValue, min, max) => ({ key, label, type: 'int', default: defaultValue, min, max });
const number = (key, label, defaultValue, min, max, step = 'any') => ({ key, label, type: 'number', default: defaultValue, min, max, step });
const bool = (key, label, defaultValue) => ({ key, label, type: 'bool', default: defaultValue });
const select = (key, label, choices, defaultValue = choices[0]) => ({ key, label, type: 'select', choices, default: defaultValue });

const ridge = [select('radius', 'confidence radius rule', ['practical', 'theoretical']), number('lambda', 'ridge λ', 1, 0.000001),
  number('delta', 'failure probability δ', 0.05, 0.000001, 0.999999), number('beta', 'fixed confidence radius β (empty: the rule)', '', 0)];
const shortlist = int('shortlist', 'shortlist p (candidates ranked exactly)', 30, 1, 100000);

export const indexTypes = {
  exact: { label: 'Exact SIMD scan', options: [] },
  hnsw: { label: 'HNSW (hnswlib)', options: [int('M', 'links per node M', 16, 2, 256), int('efConstruction', 'efConstruction', 200, 1, 100000), int('efSearch', 'efSearch', 64, 1, 100000), select('space', 'space', ['auto', 'inner-product', 'euclidean'])] },
  lsh: { label: 'Simple-LSH', options: [int('bits', 'AND width a (bits)', 8, 1, 64), int('tables', 'OR count b (tables)', 16, 1, 1000)] },
  'bounded-me': { label: 'BoundedME', options: [number('epsilon', 'ε', 0.1, 0.000001, 0.999999), number('delta', 'δ', 0.1, 0.000001, 0.999999)] },
  greedy: { label: 'Greedy-MIPS', options: [number('budgetFraction', 'budget B (fraction of the items)', 0.1, 0.000001, 1)] },
  'pca-tree': { label: 'PCA-MIPS tree', options: [int('depth', 'tree depth (empty: from the size)', '', 0, 20)] },
  adaptive: { label: 'Adaptive (rounded queries, copies)', options: [int('copies', 'copies κ', 3, 1, 64), number('epsilon', 'grid ε', 0.01, 0.000001, 0.999999)] },
};

export const environmentTypes = {
  linear: {
    label: 'Linear: Gaussian arms and θ* (paper 000)', family: 'linear', metric: 'regret',
    options: [int('dim', 'dimension d', 16, 1, 4096), int('arms', 'initial arms K', 1000, 1, 50000000), number('noise', 'reward noise σ', 1, 0),
      bool('normalize', 'unit-norm arms and θ*', false), int('change.every', 'arm changes every (steps; 0 = never)', 20, 0, 1000000000),
      int('change.add', 'arms added per change', 2, 0, 1000000), int('change.remove', 'arms removed per change', 0, 0, 1000000)],
  },
  ratings: {
    label: 'Ratings: a MovieLens file (choose it above; paper 000, Table 3)', family: 'linear', metric: 'regret', needsRatings: true,
    options: [int('dim', 'ALS rank = d', 16, 1, 256), int('iterations', 'ALS iterations', 10, 1, 1000), int('testUsers', 'held-out users', 300, 1, 100000),
      int('minRatings', 'held-out users rated more than', 100, 0, 1000000), int('change.every', 'movies arrive every (steps)', 20, 0, 1000000000),
      int('change.add', 'movies per arrival', 2, 0, 1000000), select('regret', 'regret', ['paper', 'best'])],
  },
  matroid: {
    label: 'Matroid: Bernoulli arms (our paper 002 experiment)', family: 'matroid', metric: 'regret',
    options: [int('K', 'arms K', 1000, 1, 100000000), select('matroid.kind', 'matroid', ['uniform', 'partition', 'graphic', 'transversal']),
      int('matroid.rank', 'rank D (uniform)', 10, 1, 100000000), int('matroid.groups', 'groups (partition)', 10, 1, 100000000),
      int('matroid.vertices', 'vertices (graphic)', 11, 2, 100000000), int('matroid.right', 'right vertices (transversal)', 10, 1, 100000000)],
  },
  clustered: {
    label: 'Clustered arms (paper 003, Figure 2)', family: 'cls', metric: 'reward',
    options: [int('dim', 'dimension d', 11, 2, 10000), int('arms', 'arms per round N', 2000, 1, 100000000), int('k', 'super-arm size k', 100, 1, 100000000),
      number('angle', 'cluster angle θ (radians)', 1.1781, 0, 1.5708)],
  },
  promotion: {
    label: 'Sending promotions (paper 003, Table I; ratings file optional)', family: 'cls', metric: 'reward',
    options: [int('promotions', 'promotions M', 10, 1, 10000), int('k', 'users per promotion k', 5, 1, 100000000), int('users', 'users drawn per round N', 500, 1, 100000000),
      int('rank', 'feature rank', 10, 1, 1000)],
  },
  'mab-bp': {
    label: 'Bounded pulls, adversarial lists (paper 001, Figure 1)', family: 'mab-bp', metric: 'regret',
    options: [int('arms', 'arms K', 1000, 2, 10000000), int('listLength', 'list length N', 1000, 1, 1000000000)],
  },
  mips: {
    label: 'MIPS on synthetic data (paper 001, Figures 2, 3)', family: 'mips', metric: 'reward',
    options: [select('dataset', 'data', ['gaussian', 'uniform']), int('items', 'items', 2000, 1, 100000000), int('dim', 'dimension', 1000, 1, 1000000)],
  },
};

const index = { key: 'index', label: 'MIPS index', type: 'index' };

export const policyTypes = {
  linear: {
    'lin-ucb': { label: 'LinUCB (OFUL)', options: ridge },
    'lin-ts': { label: 'Linear TS', options: [...ridge, number('inflation', 'sampling inflation', 1, 0), shortlist, { ...index, default: 'exact' }] },
    'linear-elim': { label: 'Linear Elim', options: [...ridge, { ...index, default: 'exact' }] },
    'sub-elim': { label: 'Sub-Elim', options: [...ridge, shortlist, number('eta', 'MIPS accuracy η (empty: 1/√T)', '', 0.000001, 0.999999), { ...index, default: 'hnsw' }] },
    'sub-ts': { label: 'Sub-TS', options: [...ridge, number('inflation', 'sampling inflation', 1, 0), shortlist, { ...index, default: 'hnsw' }] },
  },
  matroid: {
    cucb: { label: 'CUCB', options: [number('a', 'reward low a', 0), number('b', 'reward high b', 1)] },
    'faster-cucb': { label: 'FasterCUCB', options: [number('a', 'reward low a', 0, 0), number('b', 'reward high b', 1), number('epsilon', 'accuracy ε', 0.1, 0.000001, 0.999999)] },
    cts: { label: 'CTS', options: [number('a', 'reward low a', 0), number('b', 'reward high b', 1)] },
  },
  cls: {
    c2ucb: { label: 'C2UCB', options: [number('lambda', 'ridge λ', 1, 0.000001), number('alpha', 'width α', 1, 0)] },
    pc2ucb: { label: 'PC2UCB', options: [number('lambda', 'ridge λ', 1, 0.000001), number('alpha', 'width α', 1, 0), number('c', 'noise scale c', 1, 0)] },
    'comb-lin-ucb': { label: 'CombLinUCB', options: [number('priorVariance', 'prior variance', 1, 0.000001), number('noiseVariance', 'noise variance', 1, 0.000001), number('c', 'width c', 1, 0)] },
    'comb-lin-ts': { label: 'CombLinTS', options: [number('priorVariance', 'prior variance', 1, 0.000001), number('noiseVariance', 'noise variance', 1, 0.000001)] },
    'comb-ts': { label: 'Combinatorial TS', options: [number('lambda', 'ridge λ', 1, 0.000001), select('randomization', 'randomization', ['arm', 'round']), number('v', 'sampling scale v', 1, 0)] },
    'greedy-cls': { label: 'Greedy', options: [number('lambda', 'ridge λ', 1, 0.000001)] },
  },
  'mab-bp': {
    'bounded-me': { label: 'BoundedME', options: [number('epsilon', 'ε', 0.1, 0.000001, 0.999999), number('delta', 'δ', 0.1, 0.000001, 0.999999)] },
  },
  mips: Object.fromEntries(Object.entries(indexTypes).map(([type, { label, options }]) => [type, { label, options: [int('k', 'top k', 5, 1, 1000000), ...options] }])),
};

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
