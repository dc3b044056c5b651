// The generic suites: the test files that cover every registered type of the families they name,
// taking the types from the registry (tests/js/registry-coverage.test.js holds them to it). The
// probe table and the golden cases are asked for their classes; the others are read.
// vitest.toys.config.js runs them a second time against the test build with the toys (SB_TOYS=1):
// `toyRunFiles` below.

export const kinds = ['index', 'linear-policy', 'semi-bandit-policy', 'cls-policy'];

export const askedSuites = { 'tests/js/probe-table.js': kinds, 'tests/golden/cases.js': kinds };
export const genericSuites = {
  'tests/js/filters.test.js': ['index'],
  'tests/js/persistence.test.js': kinds,
  'tests/js/hostile-states.test.js': kinds,
  'tests/js/decisions.test.js': ['linear-policy'],
  'tests/js/linear.test.js': ['linear-policy'],
  'tests/js/catalogue.test.js': ['linear-policy'],
  'tests/js/option-tables.test.js': ['index', 'linear-policy'],
  'tests/js/slates.test.js': ['linear-policy'],
  'tests/js/forgetting.test.js': ['linear-policy'],
  'tests/js/call-sequences.test.js': kinds,
  'tests/js/reliability.test.js': kinds,
  'tests/js/bounded-memory.test.js': kinds,
  'tests/js/attributes.test.js': ['index', 'linear-policy'],
  'tests/js/set-features.test.js': ['index', 'linear-policy'],
  'tests/js/search-batch.test.js': ['index'],
  'tests/js/inspect-state.test.js': ['linear-policy'],
  'tests/js/types.test.js': kinds,
};


// The test files of the toy run: the generic suites, the files that run the asked ones (the probe
// table's single-thread run and the golden states) and the registry's own checks.
export const toyRunFiles = [
  ...Object.keys(genericSuites),
  'tests/js/probe.test.js',
  'tests/js/golden-states.test.js',
  'tests/js/registry-coverage.test.js',
];
