// The probe suite's table: every class of the package with its constructor options and the
// signature of every public member, and every function of the module. probe.test.js generates its
// cases from the argument kinds below. A family of registered types takes its classes from the
// registry (kind, with perType options where a type needs them: a type without a row gets {}), so a
// new type of a family is probed with no row here; a new class outside the registries is probed by
// adding a row (and the suite fails while a class, method or getter of the module has no row).

// Hostile values of one argument kind, given a valid value of that argument:
// [label, value, expected BanditError code]. `dimensioned` arrays have a length the core checks
// against dim or another argument (a wrong length is DIMENSION_MISMATCH).
function detached(Type, length) {
  const array = new Type(length);
  structuredClone(array.buffer, { transfer: [array.buffer] });
  return array;
}

// A Proxy of `target`, revoked: every operation on it throws a TypeError.
function revoked(target) {
  const { proxy, revoke } = Proxy.revocable(target, {});
  revoke();
  return proxy;
}

const notNumbers = [
  ['null', null], ['undefined', undefined], ['the string "5"', '5'], ['a BigInt', 5n], ['true', true],
  ['an object', {}], ['an array [5]', [5]], ['an object with valueOf', { valueOf: () => 5 }],
  ['a revoked Proxy', revoked({})], ['a revoked Proxy of [5]', revoked([5])],
];

// An array of `length` zeros whose elements must not be read: reading one throws a plain Error, which
// the probe reports as not a BanditError (a length that no call can take is refused before).
function unreadable(length) {
  return new Proxy(new Array(length).fill(0), {
    get(target, key, receiver) {
      if (typeof key === 'string' && /^(?:0|[1-9][0-9]*)$/.test(key)) throw new Error(`element ${key} was read`);
      return Reflect.get(target, key, receiver);
    },
  });
}

const scalarKinds = {
  // An item or arm identifier, in [0, 2^32-1].
  id: () => [
    ...notNumbers.map(([label, value]) => [label, value, 'INVALID_ARGUMENT']),
    ['5.5', 5.5, 'INVALID_ARGUMENT'], ['-1', -1, 'INVALID_ARGUMENT'], ['2^32', 2 ** 32, 'INVALID_ARGUMENT'],
    ['NaN', Number.NaN, 'INVALID_ARGUMENT'], ['Infinity', Infinity, 'INVALID_ARGUMENT'],
  ],
  // A non-negative integer (a seed): at most `max`.
  natural: (valid, { max = 2 ** 32 - 1 } = {}) => [
    ...notNumbers.map(([label, value]) => [label, value, 'INVALID_ARGUMENT']),
    ['-1', -1, 'INVALID_ARGUMENT'], ['1.5', 1.5, 'INVALID_ARGUMENT'], [`${max} + 1`, max + 1, 'INVALID_ARGUMENT'],
    ['NaN', Number.NaN, 'INVALID_ARGUMENT'], ['Infinity', Infinity, 'INVALID_ARGUMENT'],
  ],
  // An optional limit (build's maxItems): a non-negative integer, or left out (no limit).
  limit: () => [
    ...notNumbers.filter(([label]) => label !== 'undefined').map(([label, value]) => [label, value, 'INVALID_ARGUMENT']),
    ['-1', -1, 'INVALID_ARGUMENT'], ['1.5', 1.5, 'INVALID_ARGUMENT'], ['2^32', 2 ** 32, 'INVALID_ARGUMENT'],
    ['NaN', Number.NaN, 'INVALID_ARGUMENT'], ['Infinity', Infinity, 'INVALID_ARGUMENT'],
  ],
  // A count (k, K, D, numVertices): a positive integer; `max` is the largest accepted.
  count: (valid, { max = 2 ** 32 - 1 } = {}) => [
    ...notNumbers.map(([label, value]) => [label, value, 'INVALID_ARGUMENT']),
    ['0', 0, 'INVALID_ARGUMENT'], ['-1', -1, 'INVALID_ARGUMENT'], ['1.5', 1.5, 'INVALID_ARGUMENT'],
    [`${max} + 1`, max + 1, 'INVALID_ARGUMENT'], ['NaN', Number.NaN, 'INVALID_ARGUMENT'], ['-Infinity', -Infinity, 'INVALID_ARGUMENT'],
  ],
  // A name (an option table's kind or type): a string the core knows.
  name: () => [
    ['null', null, 'INVALID_ARGUMENT'], ['a number', 5, 'INVALID_ARGUMENT'], ['an object', {}, 'INVALID_ARGUMENT'],
    ['a BigInt', 5n, 'INVALID_ARGUMENT'], ['an unknown name', 'nope', 'INVALID_ARGUMENT'], ['a misspelt name', 'hnws', 'INVALID_ARGUMENT'],
    ['a revoked Proxy', revoked({}), 'INVALID_ARGUMENT'],
  ],
  // A decision log's text (JSON lines or CSV).
  logText: () => [
    ['null', null, 'INVALID_ARGUMENT'], ['a number', 5, 'INVALID_ARGUMENT'], ['an object', {}, 'INVALID_ARGUMENT'],
    ['a BigInt', 5n, 'INVALID_ARGUMENT'], ['empty', '', 'INVALID_ARGUMENT'], ['CSV without the columns', 'a,b\n1,2\n', 'INVALID_ARGUMENT'],
    ['a JSON line without propensity', '{"arm":1,"reward":0}', 'INVALID_ARGUMENT'], ['propensity 0', 'arm,reward,propensity\n1,0,0\n', 'INVALID_ARGUMENT'],
    ['a revoked Proxy', revoked({}), 'INVALID_ARGUMENT'],
  ],
  // A decision's event id (reward): a positive safe integer; one this policy never decided is UNKNOWN_ID.
  eventId: () => [
    ...notNumbers.map(([label, value]) => [label, value, 'INVALID_ARGUMENT']),
    ['0', 0, 'INVALID_ARGUMENT'], ['-1', -1, 'INVALID_ARGUMENT'], ['1.5', 1.5, 'INVALID_ARGUMENT'],
    ['2^53', 2 ** 53, 'INVALID_ARGUMENT'], ['NaN', Number.NaN, 'INVALID_ARGUMENT'], ['Infinity', Infinity, 'INVALID_ARGUMENT'],
    ['an event never decided', 123456, 'UNKNOWN_ID'],
  ],
  // A decision's rewards: a number, or one per slate position (finite; at most 1e15 in magnitude).
  rewards: () => [
    ...notNumbers.filter(([label]) => !label.startsWith('an array')).map(([label, value]) => [label, value, 'INVALID_ARGUMENT']),
    ['NaN', Number.NaN, 'NON_FINITE'], ['Infinity', Infinity, 'NON_FINITE'], ['1e16', 1e16, 'INVALID_ARGUMENT'],
    ['[NaN]', [Number.NaN], 'NON_FINITE'], ['an array of strings', ['1'], 'INVALID_ARGUMENT'],
    ['a revoked Proxy of an array', revoked([1]), 'INVALID_ARGUMENT'],
    // Issue 52: 10^6 rewards were copied to the heap before the core found no decision of that size.
    ['more rewards than any slate decided (none of them read)', unreadable(2 ** 20), 'INVALID_ARGUMENT'],
  ],
  // A reward: finite, at most 1e15 in magnitude.
  reward: () => [
    ...notNumbers.map(([label, value]) => [label, value, 'INVALID_ARGUMENT']),
    ['NaN', Number.NaN, 'NON_FINITE'], ['Infinity', Infinity, 'NON_FINITE'], ['-Infinity', -Infinity, 'NON_FINITE'],
    ['1e16', 1e16, 'INVALID_ARGUMENT'], ['-3e38', -3e38, 'INVALID_ARGUMENT'],
  ],
  // A weight in [0, 1] (forget's factor).
  fraction: () => [
    ...notNumbers.map(([label, value]) => [label, value, 'INVALID_ARGUMENT']),
    ['NaN', Number.NaN, 'NON_FINITE'], ['Infinity', Infinity, 'NON_FINITE'], ['-0.5', -0.5, 'INVALID_ARGUMENT'],
    ['1.5', 1.5, 'INVALID_ARGUMENT'], ['1e300', 1e300, 'INVALID_ARGUMENT'],
  ],
};

// Array kinds: `element` values rejected inside an otherwise valid array, then whole values.
const notArrays = [
  ['null', null], ['undefined', undefined], ['a string', '1,2,3'], ['a number', 5], ['an array-like object', { length: 1, 0: 1 }],
  ['a DataView', new DataView(new ArrayBuffer(8))], ['an ArrayBuffer', new ArrayBuffer(8)],
  ['a BigInt64Array', new BigInt64Array(2)], ['a BigUint64Array', new BigUint64Array(2)],
  ['a revoked Proxy of an array', revoked([1, 2, 3])],
];

// `lengthFirst`: a wrong length is refused before any element is read (rewards against their ids).
function arrayKind({ elements, detachedType, wrongLength }) {
  return (valid, { dimensioned = false, lengthFirst = false } = {}) => {
    const cases = notArrays.map(([label, value]) => [label, value, 'INVALID_ARGUMENT']);
    cases.push(['a view of a detached buffer', detached(detachedType, valid.length), 'INVALID_ARGUMENT']);
    const length = valid.length;
    if (length > 0) {
      for (const [label, value, code] of elements) {
        const array = Array.from(valid);
        array[length - 1] = value;
        cases.push([`an array with ${label}`, array, code]);
        // The same value in a Float64Array, where it can be represented.
        if (typeof value === 'number') {
          const typed = Float64Array.from(valid);
          typed[length - 1] = value;
          cases.push([`a Float64Array with ${label}`, typed, code]);
        }
      }
      const sparse = Array.from(valid);
      delete sparse[length - 1];
      cases.push(['a sparse array (a hole at the end)', sparse, 'INVALID_ARGUMENT']);
    }
    if (dimensioned && wrongLength) cases.push(['one value too many', [...Array.from(valid), valid[0] ?? 0], 'DIMENSION_MISMATCH']);
    if (lengthFirst) cases.push(['10^6 values (none of them read)', unreadable(1e6), 'DIMENSION_MISMATCH']);
    return cases;
  };
}

const arrayKinds = {
  // Identifiers or indices: integers in [0, 2^32-1].
  ids: arrayKind({
    detachedType: Uint32Array,
    elements: [
      ['1.5', 1.5, 'INVALID_ARGUMENT'], ['-1', -1, 'INVALID_ARGUMENT'], ['2^32', 2 ** 32, 'INVALID_ARGUMENT'],
      ['NaN', Number.NaN, 'INVALID_ARGUMENT'], ['the string "1"', '1', 'INVALID_ARGUMENT'], ['null', null, 'INVALID_ARGUMENT'],
      ['a BigInt', 1n, 'INVALID_ARGUMENT'],
    ],
  }),
  // Vectors stored in float32: finite, at most 1e15 in magnitude.
  vectors: arrayKind({
    detachedType: Float32Array,
    wrongLength: true,
    elements: [
      ['NaN', Number.NaN, 'NON_FINITE'], ['Infinity', Infinity, 'NON_FINITE'], ['-Infinity', -Infinity, 'NON_FINITE'],
      ['3e38 (every score would be Infinity)', 3e38, 'INVALID_ARGUMENT'], ['1e39 (beyond float32)', 1e39, 'NON_FINITE'],
      ['2e15', 2e15, 'INVALID_ARGUMENT'], ['the string "1"', '1', 'INVALID_ARGUMENT'], ['null', null, 'INVALID_ARGUMENT'],
      ['a BigInt', 1n, 'INVALID_ARGUMENT'],
    ],
  }),
  // Features and rewards of ridge regressions (double): finite, at most 1e15 in magnitude.
  features: arrayKind({
    detachedType: Float64Array,
    wrongLength: true,
    elements: [
      ['NaN', Number.NaN, 'NON_FINITE'], ['-Infinity', -Infinity, 'NON_FINITE'], ['1e300', 1e300, 'INVALID_ARGUMENT'],
      ['2e15', 2e15, 'INVALID_ARGUMENT'], ['the string "1"', '1', 'INVALID_ARGUMENT'], ['undefined', undefined, 'INVALID_ARGUMENT'],
    ],
  }),
  // Doubles the core only compares (weights, bounded rewards): finite.
  values: arrayKind({
    detachedType: Float64Array,
    wrongLength: true,
    elements: [
      ['NaN', Number.NaN, 'NON_FINITE'], ['Infinity', Infinity, 'NON_FINITE'], ['the string "1"', '1', 'INVALID_ARGUMENT'],
      ['a BigInt', 1n, 'INVALID_ARGUMENT'],
    ],
  }),
};

const objectKinds = {
  // An options object read by JavaScript; `bad` lists [label, value, code] of its own.
  options: (valid, { bad = [] } = {}) => [
    ['null', null, 'INVALID_ARGUMENT'], ['a number', 5, 'INVALID_ARGUMENT'], ['a string', 'k', 'INVALID_ARGUMENT'],
    ['an array', [], 'INVALID_ARGUMENT'], ['a Uint8Array', new Uint8Array(2), 'INVALID_ARGUMENT'],
    ['a revoked Proxy', revoked({ ...valid }), 'INVALID_ARGUMENT'],
    ...Object.keys(valid ?? {}).map((key) => [`${key} a revoked Proxy`, { ...valid, [key]: revoked({}) }, 'INVALID_ARGUMENT']),
    ...bad,
  ],
  // Saved bytes.
  bytes: () => [
    ['null', null, 'INVALID_ARGUMENT'], ['an array', [1, 2, 3], 'INVALID_ARGUMENT'], ['a string', 'abc', 'INVALID_ARGUMENT'],
    ['a DataView', new DataView(new ArrayBuffer(16)), 'INVALID_ARGUMENT'], ['a Float32Array', new Float32Array(4), 'INVALID_ARGUMENT'],
    ['a detached Uint8Array', detached(Uint8Array, 16), 'INVALID_ARGUMENT'], ['12 zero bytes', new Uint8Array(12), 'CORRUPT_STATE'],
    ['a revoked Proxy', revoked(new Uint8Array(4)), 'INVALID_ARGUMENT'],
    // instanceof ArrayBuffer holds for it, and then its byteLength threw a TypeError.
    ['a Proxy of an ArrayBuffer', new Proxy(new ArrayBuffer(16), {}), 'INVALID_ARGUMENT'],
  ],
};

export const kinds = { ...scalarKinds, ...arrayKinds, ...objectKinds };
export const isArrayKind = (kind) => kind in arrayKinds;
// The typed array each array kind is passed to the core as.
export const typedArrayOf = { ids: Uint32Array, vectors: Float32Array, features: Float64Array, values: Float64Array };
export const isObjectKind = (kind) => kind === 'options';

const dim = 3;
const unit = [1, 0, 0, 0, 1, 0, 0, 0, 1];
// What a call made in make() left for the next call: the last selection of a policy.
const lastSelection = new WeakMap();

// An option that must be a positive integer (0 means "not given" where `zero` is true).
const positive = (name, { zero = false } = {}) => [
  ...(zero ? [] : [[`${name} 0`, { [name]: 0 }, 'INVALID_ARGUMENT']]), [`${name} -1`, { [name]: -1 }, 'INVALID_ARGUMENT'],
  [`${name} "2"`, { [name]: '2' }, 'INVALID_ARGUMENT'], [`${name} 1.5`, { [name]: 1.5 }, 'INVALID_ARGUMENT'],
  [`${name} NaN`, { [name]: Number.NaN }, 'INVALID_ARGUMENT'], [`${name} null`, { [name]: null }, 'INVALID_ARGUMENT']];

// Constructor options every class must refuse: [label, value, code]; a plain object is spread over
// the class's valid options, a function of (sb, valid options) makes the value.
const badConstructorOptions = [
  ['null', null], ['a number', 3], ['a string', 'dim'], ['an array', [3]], ['a Float64Array', new Float64Array(3)],
  ['dim NaN', { dim: Number.NaN }], ['dim Infinity', { dim: Infinity }], ['dim as a BigInt', { dim: 3n }],
  ['seed as a function', { seed: () => 1 }], ['seed -Infinity', { seed: -Infinity }],
  ['a revoked Proxy', (sb, valid) => revoked({ ...valid })], ['seed a revoked Proxy', { seed: revoked({}) }],
  ['a revoked Proxy of an array as seed', { seed: revoked([1]) }],
  // Issue 52: the options' own toJSON replaced them once they were checked; it is an unknown option.
  ['their own toJSON', { toJSON() { const { toJSON, ...rest } = this; return rest; } }], ['toJSON a number', { toJSON: 1 }],
].map(([label, value]) => [label, value, 'INVALID_ARGUMENT']);

// A list of ids or labels in an options object: integers in [0, 2^32-1], in an array.
const badIdList = (name) => [
  [`${name} null`, { [name]: null }, 'INVALID_ARGUMENT'], [`${name} a string`, { [name]: '1' }, 'INVALID_ARGUMENT'],
  [`${name} a number`, { [name]: 1 }, 'INVALID_ARGUMENT'], [`${name} an object`, { [name]: { 0: 1 } }, 'INVALID_ARGUMENT'],
  [`${name} with -1`, { [name]: [-1] }, 'INVALID_ARGUMENT'], [`${name} with 1.5`, { [name]: [1.5] }, 'INVALID_ARGUMENT'],
  [`${name} with 2^32`, { [name]: [2 ** 32] }, 'INVALID_ARGUMENT'], [`${name} with NaN`, { [name]: [Number.NaN] }, 'INVALID_ARGUMENT'],
  [`${name} with a BigInt`, { [name]: [1n] }, 'INVALID_ARGUMENT'], [`${name} a Float64Array with 0.5`, { [name]: Float64Array.of(0.5) }, 'INVALID_ARGUMENT'],
];
// add's labels: as badIdList, and one per id (`valid` has the right length).
const badLabels = (name, valid) => [
  ...badIdList(name),
  [`${name} one too many`, { [name]: [...valid, 0] }, 'DIMENSION_MISMATCH'], [`${name} empty`, { [name]: [] }, 'DIMENSION_MISMATCH'],
];

// The options of an index's search and searchBatch.
const searchOptionsArg = ['options', () => ({ shortlist: 3, exclude: [1], labels: [0] }), {
  bad: [['a misspelt key', { shortlsit: 3 }, 'INVALID_ARGUMENT'], ['a misspelt filter', { exclued: [1] }, 'INVALID_ARGUMENT'],
    ...positive('shortlist', { zero: true }), ...badIdList('exclude'), ...badIdList('labels'),
    ['labels no item carries', { labels: [99] }, 'EMPTY'], ['every item excluded', { exclude: [1, 2, 3] }, 'EMPTY']],
}];

// Each family: kind and perType (a registered family: every registered type, options perType[type] or
// {}), and/or classes [name, constructor options] written here (another class, or a second row of a
// registered class with other options); make(sb, name, options) a small live object;
// snapshot(object) what a failed call must not change; works(sb, name, options) a fresh object's
// correct answer; twin(sb, object), where two objects made alike would differ, an object that
// answers as `object` does; members: name -> { get: true } or { args: [[kind, valid(object), extra]], static }.
export const families = {
  'MIPS indexes': {
    kind: 'index',
    perType: { hnsw: { M: 4 }, 'pca-tree': { depth: 1 }, adaptive: { base: { type: 'exact' } } },
    options: (sb, options) => ({ dim, seed: 1, ...options }),
    make(sb, name, options) {
      const index = new sb[name]({ dim, seed: 1, ...options });
      index.add([1, 2, 3], unit);
      return index;
    },
    snapshot: (index) => [index.size, index.dim, index.has(1), index.has(4), index.search([1, 0.5, 0.25], 3)],
    works(sb, name, options) {
      const index = new sb[name]({ dim, seed: 1, ...options });
      index.add([7, 8, 9], unit);
      const found = Array.from(index.search([0, 0, 2], 1).ids);
      index.dispose();
      return found[0] === 9;
    },
    constructorOptions: [...badConstructorOptions, ['a misspelt key', { sed: 2 }, 'INVALID_ARGUMENT'],
      ['journal (gone in 0.2.0: saved states are snapshots)', { journal: true }, 'INVALID_ARGUMENT']],
    members: {
      dim: { get: true },
      size: { get: true },
      has: { args: [['id', () => 1]] },
      add: {
        args: [['ids', () => [4]], ['vectors', () => [0, 1, 1], { dimensioned: true }],
          ['options', () => ({ labels: [6] }), { bad: [['a misspelt key', { label: [6] }, 'INVALID_ARGUMENT'], ...badLabels('labels', [6])] }]],
      },
      remove: { args: [['ids', () => [2]]] },
      // One label per id here; several labels per item and their hostile forms: attributes.test.js.
      setLabels: { args: [['ids', () => [2]], ['ids', () => [6]]] },
      setValues: {
        args: [['ids', () => [2]], ['options', () => ({ stock: [3] }), {
          bad: [['a NaN value', { stock: [Number.NaN] }, 'NON_FINITE'], ['a name of 200 bytes', { ['x'.repeat(200)]: [1] }, 'INVALID_ARGUMENT'],
            ['values of another count', { stock: [1, 2] }, 'DIMENSION_MISMATCH']],
        }]],
      },
      setFeatures: { args: [['ids', () => [2]], ['vectors', () => [0, 1, 0], { dimensioned: true }]] },
      search: { args: [['vectors', () => [1, 0, 0], { dimensioned: true }], ['count', () => 2], searchOptionsArg] },
      // Two queries in one flat array (an array of vectors: search-batch.test.js).
      searchBatch: { args: [['vectors', () => [1, 0, 0, 0, 1, 0], { dimensioned: true }], ['count', () => 2], searchOptionsArg] },
      build: { args: [['limit', () => 10]] },
      stats: { args: [] },
      toBytes: { args: [] },
      fromBytes: { static: true, args: [['bytes', (index) => index.toBytes()]] },
    },
  },
  'linear policies': {
    kind: 'linear-policy',
    perType: { 'sub-elim': { index: { type: 'exact' } }, 'sub-ts': { index: { type: 'exact' } } },
    options: (sb, options) => ({ dim, seed: 1, horizon: 100, ...options }),
    make(sb, name, options) {
      const policy = new sb[name]({ dim, seed: 1, horizon: 100, ...options });
      policy.addArms([1, 2, 3], unit);
      for (let t = 0; t < 5; t++) policy.update(policy.select(), 0.5);
      return policy;
    },
    snapshot: (policy) => [policy.armCount, policy.dim, policy.type, policy.hasArm(1), policy.hasArm(4), policy.theta(), policy.stats()],
    works(sb, name, options) {
      const policy = new sb[name]({ dim, seed: 1, horizon: 100, ...options });
      policy.addArms([7], [1, 2, 3]);
      const arm = policy.select();
      policy.dispose();
      return arm === 7;
    },
    constructorOptions: [...badConstructorOptions, ['radius not a rule', { radius: 'tight' }, 'INVALID_ARGUMENT'],
      ['radius a number', { radius: 1 }, 'INVALID_ARGUMENT'], ['a misspelt key', { lamda: 1 }, 'INVALID_ARGUMENT'],
      ['a misspelt index key', { index: { type: 'hnsw', efSerch: 8 } }, 'INVALID_ARGUMENT'],
      ['journal (gone in 0.2.0: saved states are snapshots)', { journal: false }, 'INVALID_ARGUMENT'],
      ['journal in the index options', { index: { type: 'hnsw', journal: false } }, 'INVALID_ARGUMENT'],
      ['a toJSON of the index options', { index: { type: 'exact', toJSON: () => ({ type: 'hnsw' }) } }, 'INVALID_ARGUMENT']],
    members: {
      dim: { get: true },
      armCount: { get: true },
      type: { get: true },
      hasArm: { args: [['id', () => 1]] },
      addArms: {
        args: [['ids', () => [4]], ['features', () => [0, 1, 1], { dimensioned: true }],
          ['options', () => ({ labels: [5] }), {
            bad: [['a misspelt key', { label: [5] }, 'INVALID_ARGUMENT'], ['two labels for one arm', { labels: [5, 6] }, 'INVALID_ARGUMENT'],
              ...badIdList('labels')],
          }]],
      },
      removeArms: { args: [['ids', () => [2]]] },
      select: {
        args: [['options', () => ({ exclude: [1], labels: [0] }), {
          bad: [['a misspelt filter', { exclued: [1] }, 'INVALID_ARGUMENT'], ['k (slates are selectSlate)', { k: 2 }, 'INVALID_ARGUMENT'],
            ...badIdList('exclude'), ...badIdList('labels'),
            ['labels no arm carries', { labels: [99] }, 'EMPTY'], ['every arm excluded', { exclude: [1, 2, 3] }, 'EMPTY']],
        }]],
      },
      selectSlate: {
        args: [['count', () => 2], ['options', () => ({ exclude: [3], labels: [0] }), {
          bad: [['a misspelt filter', { label: [0] }, 'INVALID_ARGUMENT'], ...badIdList('exclude'), ...badIdList('labels'),
            ['labels no arm carries', { labels: [99] }, 'EMPTY'], ['every arm excluded', { exclude: [1, 2, 3] }, 'EMPTY']],
        }]],
      },
      update: { args: [['id', () => 1], ['reward', () => 0.25]] },
      decide: {
        args: [['options', () => ({ exclude: [1], labels: [0] }), {
          bad: [['a misspelt filter', { exclued: [1] }, 'INVALID_ARGUMENT'], ...badIdList('exclude'), ...badIdList('labels'),
            ['labels no arm carries', { labels: [99] }, 'EMPTY'], ['every arm excluded', { exclude: [1, 2, 3] }, 'EMPTY']],
        }]],
      },
      decideSlate: {
        args: [['count', () => 2], ['options', () => ({ exclude: [3], labels: [0] }), {
          bad: [['a misspelt filter', { label: [0] }, 'INVALID_ARGUMENT'], ...badIdList('exclude'),
            ['every arm excluded', { exclude: [1, 2, 3] }, 'EMPTY']],
        }]],
      },
      // A constant event id: a decision made to get one would change the object the probe compares.
      reward: { args: [['eventId', () => 1], ['rewards', () => 0.25]] },
      theta: { args: [] },
      buildIndex: { args: [['limit', () => 10]] },
      forget: { args: [['fraction', () => 0.5]] },
      stats: { args: [] },
      toBytes: { args: [] },
      // The second argument names the catalogue of a user's state; a policy with its own arms takes none.
      fromBytes: {
        static: true,
        args: [['bytes', (policy) => policy.toBytes()], ['options', () => ({ catalogue: undefined }), {
          bad: [['a misspelt key', { catalog: undefined }, 'INVALID_ARGUMENT'], ['catalogue a number', { catalogue: 3 }, 'INVALID_ARGUMENT'],
            ['catalogue a plain object', { catalogue: { dim: 3 } }, 'INVALID_ARGUMENT']],
        }]],
      },
    },
  },
  // The catalogue shared by users (every linear policy given { catalogue }: catalogue.test.js).
  catalogues: {
    classes: [['Catalogue', {}], ['Catalogue', { index: { type: 'exact' } }]],
    options: (sb, options) => ({ dim, seed: 1, ...options }),
    make(sb, name, options) {
      const catalogue = new sb[name]({ dim, seed: 1, ...options });
      catalogue.add([1, 2, 3], unit, { labels: [1, 2, 3] });
      return catalogue;
    },
    snapshot: (catalogue) => [catalogue.size, catalogue.dim, catalogue.has(1), catalogue.has(4), catalogue.stats()],
    // A catalogue's identity is drawn at random: an object made alike is its restored copy.
    twin: (sb, catalogue) => sb.Catalogue.fromBytes(catalogue.toBytes()),
    works(sb, name, options) {
      const catalogue = new sb[name]({ dim, seed: 1, ...options });
      catalogue.add([7], [1, 2, 3]);
      const user = new sb.LinUCB({ catalogue });
      const arm = user.select();
      user.dispose();
      catalogue.dispose();
      return arm === 7;
    },
    constructorOptions: [...badConstructorOptions, ['a misspelt key', { sed: 2 }, 'INVALID_ARGUMENT'],
      ['a misspelt index key', { index: { type: 'hnsw', efSerch: 8 } }, 'INVALID_ARGUMENT'],
      ['dim 4097', { dim: 4097 }, 'INVALID_ARGUMENT'],
      ['a toJSON of the index options', { index: { type: 'exact', toJSON: () => ({ type: 'hnsw' }) } }, 'INVALID_ARGUMENT']],
    members: {
      dim: { get: true },
      size: { get: true },
      has: { args: [['id', () => 1]] },
      add: {
        args: [['ids', () => [4]], ['features', () => [0, 1, 1], { dimensioned: true }],
          ['options', () => ({ labels: [5] }), {
            bad: [['a misspelt key', { label: [5] }, 'INVALID_ARGUMENT'], ['two labels for one arm', { labels: [5, 6] }, 'INVALID_ARGUMENT'],
              ['a label of -1', { labels: [-1] }, 'INVALID_ARGUMENT'], ['a label of 2^32', { labels: [2 ** 32] }, 'INVALID_ARGUMENT'],
              ['labels a number', { labels: 5 }, 'INVALID_ARGUMENT']],
          }]],
      },
      remove: { args: [['ids', () => [2]]] },
      // One label per id here; several labels per item and their hostile forms: attributes.test.js.
      setLabels: { args: [['ids', () => [2]], ['ids', () => [6]]] },
      setValues: {
        args: [['ids', () => [2]], ['options', () => ({ stock: [3] }), {
          bad: [['a NaN value', { stock: [Number.NaN] }, 'NON_FINITE'], ['a name of 200 bytes', { ['x'.repeat(200)]: [1] }, 'INVALID_ARGUMENT'],
            ['values of another count', { stock: [1, 2] }, 'DIMENSION_MISMATCH']],
        }]],
      },
      setFeatures: { args: [['ids', () => [2]], ['features', () => [0, 1, 0], { dimensioned: true }]] },
      build: { args: [['limit', () => 10]] },
      stats: { args: [] },
      toBytes: { args: [] },
      fromBytes: { static: true, args: [['bytes', (catalogue) => catalogue.toBytes()]] },
    },
  },
  'matroid semi-bandits': {
    kind: 'semi-bandit-policy',
    options: (sb, options) => ({ matroid: sb.Matroid.uniform(6, 2), horizon: 100, seed: 1, ...options }),
    make(sb, name, options) {
      const matroid = sb.Matroid.uniform(6, 2);
      const policy = new sb[name]({ matroid, horizon: 100, seed: 1, ...options });
      matroid.dispose();
      for (let t = 0; t < 4; t++) {
        const basis = policy.select();
        policy.update(basis, Array.from(basis, (arm) => arm / 6));
      }
      lastSelection.set(policy, policy.select());
      return policy;
    },
    snapshot: (policy) => [policy.rounds, policy.armCount, policy.rank, policy.stats()],
    works(sb, name, options) {
      const matroid = sb.Matroid.partition([0, 0, 1, 1, 2]);
      const policy = new sb[name]({ matroid, seed: 1, ...options });
      matroid.dispose();
      const basis = policy.select();
      policy.dispose();
      return basis.length === 3;
    },
    // The matroid option is checked by the JS layer (a Matroid of this module, not disposed).
    constructorOptions: [...badConstructorOptions, ['matroid a number', { matroid: 3 }, 'INVALID_ARGUMENT'],
      ['a misspelt key', { horizn: 100 }, 'INVALID_ARGUMENT'],
      // FasterCUCB's rounding step log(1 + epsilon / 3) was 0 (CUCB and CTS have no epsilon).
      ['epsilon 1e-300', { epsilon: 1e-300 }, 'INVALID_ARGUMENT'],
      ['journal (gone in 0.2.0: saved states are snapshots)', { journal: true }, 'INVALID_ARGUMENT'],
      ['matroid a plain object', { matroid: { rank: 2 } }, 'INVALID_ARGUMENT'],
      ['a matroid disposed by a getter of the options', (sb, valid) => ({
        ...valid,
        get horizon() {
          valid.matroid.dispose();
          return 100;
        },
      }), 'DISPOSED']],
    members: {
      rank: { get: true },
      armCount: { get: true },
      rounds: { get: true },
      select: { args: [] },
      update: { args: [['ids', (policy) => lastSelection.get(policy)], ['values', (policy) => Array.from(lastSelection.get(policy), () => 0.5), { dimensioned: true, lengthFirst: true }]] },
      forget: { args: [['fraction', () => 0.5]] },
      stats: { args: [] },
      toBytes: { args: [] },
      fromBytes: { static: true, args: [['bytes', (policy) => policy.toBytes()]] },
    },
  },
  matroids: {
    classes: [['Matroid', {}]],
    // Only the factories make matroids.
    constructorOptions: [['no arguments', undefined, 'INVALID_ARGUMENT'], ['an object', {}, 'INVALID_ARGUMENT']],
    options: () => undefined,
    make: (sb) => sb.Matroid.graphic(4, [0, 1, 1, 2, 2, 0, 2, 3]),
    snapshot: (matroid) => [matroid.rank, matroid.groundSetSize, matroid.kind, matroid.maxWeightBasis([4, 3, 2, 1]), matroid.isIndependent([0, 1, 2])],
    works(sb) {
      const matroid = sb.Matroid.transversal(3, 2, [0, 0, 1, 0, 2, 1]);
      const rank = matroid.rank;
      matroid.dispose();
      return rank === 2;
    },
    members: {
      rank: { get: true },
      groundSetSize: { get: true },
      kind: { get: true },
      isIndependent: { args: [['ids', () => [0, 3]]] },
      maxWeightBasis: { args: [['values', () => [1, 2, 3, 4], { dimensioned: true }]] },
      // The factories (static: called on the class, made objects are disposed by the suite).
      uniform: { static: true, args: [['count', () => 4], ['count', () => 2]] },
      partition: { static: true, args: [['ids', () => [0, 1, 1]]] },
      graphic: { static: true, args: [['count', () => 4, { max: 2 ** 28 }], ['ids', () => [0, 1, 1, 2]]] },
      transversal: { static: true, args: [['count', () => 2, { max: 2 ** 28 }], ['count', () => 1, { max: 2 ** 28 }], ['ids', () => [0, 0, 1, 0]]] },
    },
  },
  'combinatorial linear policies': {
    kind: 'cls-policy',
    perType: { 'comb-ts': { randomization: 'arm' } },
    classes: [['CombTS', { randomization: 'round', index: { type: 'exact' } }]],
    constructorOptions: [...badConstructorOptions, ['a misspelt key', { seeed: 1 }, 'INVALID_ARGUMENT'],
      ['journal (not an option of any class)', { journal: false }, 'INVALID_ARGUMENT']],
    options: (sb, options) => ({ dim, k: 2, seed: 1, ...options }),
    make(sb, name, options) {
      const policy = new sb[name]({ dim, k: 2, seed: 1, ...options });
      const features = [1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0];
      for (let t = 0; t < 3; t++) policy.update(policy.select(features, { k: 2 }), [1, 0]);
      if (options.index) policy.setArms(features);
      lastSelection.set(policy, policy.select(features, { k: 2 }));
      return policy;
    },
    snapshot: (policy) => [policy.theta(), policy.armCount, policy.dim, policy.stats()],
    works(sb, name, options) {
      const policy = new sb[name]({ dim, k: 1, seed: 1, ...options });
      const chosen = policy.select([0, 0, 0, 1, 1, 1], { k: 2 });
      policy.dispose();
      return chosen.length === 2;
    },
    members: {
      dim: { get: true },
      armCount: { get: true },
      select: {
        args: [['features', () => [1, 0, 0, 0, 1, 0], { dimensioned: true }],
          ['options', () => ({ k: 1 }), {
            bad: [['a misspelt key', { kk: 1 }, 'INVALID_ARGUMENT'], ...positive('k'),
              ['perGroup without groups', { k: 1, perGroup: 1 }, 'INVALID_ARGUMENT'],
              ['groups of BigInts', { k: 1, groups: new BigUint64Array(2), perGroup: 1 }, 'INVALID_ARGUMENT'],
              ['groups without perGroup', { k: 1, groups: [0, 1] }, 'INVALID_ARGUMENT']],
          }]],
      },
      setArms: { args: [['features', () => [1, 0, 0, 0, 1, 0], { dimensioned: true }]] },
      update: { args: [['ids', (policy) => lastSelection.get(policy)], ['features', () => [1, 0], { dimensioned: true, lengthFirst: true }]] },
      forget: { args: [['fraction', () => 0.5]] },
      theta: { args: [] },
      stats: { args: [] },
      toBytes: { args: [] },
      fromBytes: { static: true, args: [['bytes', (policy) => policy.toBytes()]] },
    },
  },
};

// The envelope's head of a state of `type` with an empty payload (docs/state-format.md): 'SBST', format
// version 5, the library and type names, payload length 0, a checksum left at 0.
function stateHead(type) {
  const text = (value) => [...new Uint8Array(new Uint32Array([value.length]).buffer), ...new TextEncoder().encode(value)];
  return Uint8Array.from([0x53, 0x42, 0x53, 0x54, 5, 0, ...text('0.4.0'), ...text(type), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
}

// The module's functions: name -> { args, works(sb) }.
const smallLinear = { environment: { type: 'linear', dim: 2, arms: 5, seed: 1 }, policy: { type: 'lin-ucb' }, horizon: 20, seed: 1 };
const smallEvaluation = {
  policy: { type: 'lin-ucb', dim: 2 }, arms: { ids: [0, 1], features: [1, 0, 0, 1] },
  log: { arms: [0, 1, 0], rewards: [1, 0, 1], propensities: [0.5, 0.5, 0.5] },
};
export const moduleFunctions = {
  boundedME: {
    args: [['values', () => [0.1, 0.9, 0.5, 0.5], { dimensioned: true }], ['count', () => 2], ['count', () => 2],
      ['options', () => ({ epsilon: 0.2 }), { bad: [['epsilon NaN', { epsilon: Number.NaN }, 'INVALID_ARGUMENT'], ['k as a BigInt', { k: 1n }, 'INVALID_ARGUMENT']] }]],
    works: (sb) => sb.boundedME([0, 0, 1, 1], 2, 2, { epsilon: 0.01, delta: 0.01 }).arms[0] === 1,
  },
  simulate: {
    args: [['options', () => smallLinear, {
      bad: [
        ['onProgress a number', { ...smallLinear, onProgress: 3 }, 'INVALID_ARGUMENT'],
        ['horizon NaN', { ...smallLinear, horizon: Number.NaN }, 'INVALID_ARGUMENT'],
        ['horizon as a BigInt', { ...smallLinear, horizon: 20n }, 'INVALID_ARGUMENT'],
        ['a misspelt key', { ...smallLinear, horizn: 20 }, 'INVALID_ARGUMENT'],
        ['a misspelt policy key', { ...smallLinear, policy: { type: 'lin-ucb', lamda: 1 } }, 'INVALID_ARGUMENT'],
        ['a misspelt index key of a policy', { ...smallLinear, policy: { type: 'sub-ts', index: { type: 'lsh', bit: 4 } } }, 'INVALID_ARGUMENT'],
        ['ratings as numbers', { ...smallLinear, environment: { type: 'ratings', ratings: [1, 2] } }, 'INVALID_ARGUMENT'],
        ['ratings on a detached buffer', { ...smallLinear, environment: { type: 'ratings', ratings: detached(Uint8Array, 8) } }, 'INVALID_ARGUMENT'],
        ['ratings a Proxy of an ArrayBuffer', { ...smallLinear, environment: { type: 'ratings', ratings: new Proxy(new ArrayBuffer(8), {}) } }, 'INVALID_ARGUMENT'],
        ['a toJSON of the policy', { ...smallLinear, policy: { type: 'lin-ucb', toJSON: () => ({ type: 'lin-ts' }) } }, 'INVALID_ARGUMENT'],
      ],
    }]],
    works: (sb) => sb.simulate(smallLinear).t.at(-1) === 20,
  },
  randomChecksum: {
    args: [['natural', () => 1, { max: Number.MAX_SAFE_INTEGER }], ['natural', () => 10, { max: 2 ** 20 }]],
    works: (sb) => /^[0-9a-f]{16}$/.test(sb.randomChecksum(1, 10)),
  },
  optionTable: {
    args: [['name', () => 'index'], ['name', () => 'hnsw']],
    works: (sb) => sb.optionTable('index', 'hnsw').some((option) => option.name === 'efSearch') && sb.optionTable().length >= 22,
  },
  evaluate: {
    args: [['options', () => smallEvaluation, {
      bad: [
        ['a misspelt key', { ...smallEvaluation, clipp: 2 }, 'INVALID_ARGUMENT'],
        ['no log', { policy: smallEvaluation.policy, arms: smallEvaluation.arms }, 'INVALID_ARGUMENT'],
        ['a propensity of 0', { ...smallEvaluation, log: { ...smallEvaluation.log, propensities: [0.5, 0, 0.5] } }, 'INVALID_ARGUMENT'],
        ['a propensity above 1', { ...smallEvaluation, log: { ...smallEvaluation.log, propensities: [0.5, 2, 0.5] } }, 'INVALID_ARGUMENT'],
        ['an arm the policy lacks', { ...smallEvaluation, log: { ...smallEvaluation.log, arms: [0, 7, 1] } }, 'UNKNOWN_ID'],
        ['arrays of different lengths', { ...smallEvaluation, log: { ...smallEvaluation.log, rewards: [1, 0] } }, 'INVALID_ARGUMENT'],
        ['a NaN reward', { ...smallEvaluation, log: { ...smallEvaluation.log, rewards: [1, Number.NaN, 0] } }, 'NON_FINITE'],
        ['a position beyond the largest slate', { ...smallEvaluation, log: { ...smallEvaluation.log, positions: [0, 2 ** 32 - 1, 1] } }, 'INVALID_ARGUMENT'],
        ['an unknown estimator', { ...smallEvaluation, estimators: ['ipw'] }, 'INVALID_ARGUMENT'],
        ['an unknown policy type', { ...smallEvaluation, policy: { type: 'lin-usb', dim: 2 } }, 'INVALID_ARGUMENT'],
        ['a misspelt log key', { ...smallEvaluation, log: { ...smallEvaluation.log, propensity: [1, 1, 1] } }, 'INVALID_ARGUMENT'],
        ['a toJSON of the policy', { ...smallEvaluation, policy: { ...smallEvaluation.policy, toJSON: () => ({ type: 'lin-ts', dim: 2 }) } }, 'INVALID_ARGUMENT'],
      ],
    }]],
    works: (sb) => sb.evaluate(smallEvaluation).ips.n === 3,
  },
  // Pure JavaScript (the log's file formats): allowed inside onProgress.
  parseDecisionLog: {
    args: [['logText', () => 'arm,reward,propensity\n0,1,0.5\n1,0,0.5\n']],
    reentrant: true,
    works: (sb) => sb.parseDecisionLog('{"arm":4,"reward":1,"propensity":0.25}').arms[0] === 4,
  },
  formatDecision: {
    args: [['options', () => ({ arm: 1, reward: 0.5, propensity: 0.25 }), {
      bad: [['arm -1', { arm: -1, reward: 0, propensity: 1 }, 'INVALID_ARGUMENT'], ['propensity 2', { arm: 1, reward: 0, propensity: 2 }, 'INVALID_ARGUMENT'],
        ['no reward', { arm: 1, propensity: 1 }, 'INVALID_ARGUMENT'], ['arm a BigInt', { arm: 1n, reward: 0, propensity: 1 }, 'INVALID_ARGUMENT'],
        ['a BigInt in another key', { arm: 1, reward: 0, propensity: 1, id: 5n }, 'INVALID_ARGUMENT'],
        ['another key that refers to itself', (() => { const decision = { arm: 1, reward: 0, propensity: 1 }; decision.self = decision; return decision; })(), 'INVALID_ARGUMENT']],
    }]],
    reentrant: true,
    works: (sb) => JSON.parse(sb.formatDecision({ arm: 2, reward: 1, propensity: 0.5 })).arm === 2,
  },
  // Allowed inside onProgress: it runs no algorithm.
  memoryUsage: { args: [], reentrant: true, works: (sb) => sb.memoryUsage().heapBytes > 0 },
  // The head of a state (sb.inspectState reads no further, and does not check the checksum).
  inspectState: {
    args: [['bytes', () => stateHead('exact')]],
    works: (sb) => sb.inspectState(stateHead('sub-ts@catalogue')).class === 'SubTS',
  },
};
