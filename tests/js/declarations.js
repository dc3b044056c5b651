// Reading the hand-written .d.ts files as text, for the tests that hold them to the option tables
// (option-tables.test.js: names; option-defaults.test.js: defaults and ranges): `export interface X
// extends Y {` blocks, their two-space-indented `name?:` members with the JSDoc just above each, and
// `declare class C extends ...` with either `constructor(options: X)` or a generic base `Base<X>`.

// Map(interface -> { parents, keys, docs: Map(member -> its JSDoc as one line) }).
export function interfacesOf(text) {
  const interfaces = new Map();
  const pattern = /^(?:export )?interface (\w+)(?:<[^>]*>)?(?: extends ([\w, ]+))? \{\n([\s\S]*?)^\}/gm;
  for (const [, name, parents, body] of text.matchAll(pattern)) {
    const keys = [...body.matchAll(/^ {2}(?:readonly )?(\w+)\??:/gm)].map((match) => match[1]);
    const docs = new Map();
    for (const [, doc, member] of body.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*\n {2}(?:readonly )?(\w+)\??:/g)) {
      docs.set(member, doc.replace(/^\s*\*\s?/gm, '').replace(/\s+/g, ' ').trim());
    }
    interfaces.set(name, { parents: parents ? parents.split(',').map((parent) => parent.trim()) : [], keys, docs });
  }
  return interfaces;
}

export function keysOf(interfaces, name) {
  const entry = interfaces.get(name);
  if (!entry) throw new Error(`no interface ${name}`);
  return [...entry.keys, ...entry.parents.flatMap((parent) => keysOf(interfaces, parent))];
}

// Map(member -> JSDoc) over an interface and its parents (the nearest declaration wins).
export function docsOf(interfaces, name) {
  const entry = interfaces.get(name);
  if (!entry) throw new Error(`no interface ${name}`);
  const docs = new Map();
  for (const parent of [...entry.parents].reverse()) for (const [key, doc] of docsOf(interfaces, parent)) docs.set(key, doc);
  for (const [key, doc] of entry.docs) docs.set(key, doc);
  return docs;
}

// Class name -> the interface of its constructor's options.
export function constructorOptionsOf(text) {
  const classes = new Map();
  for (const [, name, generic, body] of text.matchAll(/^export declare class (\w+) (?:extends|implements) \w+(?:<(\w+)>)? \{(\}|\n[\s\S]*?^\})/gm)) {
    const constructor = body.match(/constructor\(options: (\w+)\)/);
    if (constructor || generic) classes.set(name, constructor ? constructor[1] : generic);
  }
  return classes;
}

export const families = [
  { file: 'web/src/mips.d.ts', kind: 'index' },
  { file: 'web/src/linear.d.ts', kind: 'linear-policy' },
  { file: 'web/src/catalogue.d.ts', kind: 'catalogue' },
  // `matroid` is read by the JS layer (a Matroid object), never by the core.
  { file: 'web/src/matroid.d.ts', kind: 'semi-bandit-policy', jsOnly: ['matroid'] },
  { file: 'web/src/cls.d.ts', kind: 'cls-policy' },
];

// The toys' declarations (tests/toys/toys.d.ts: the toy run's module registers them), held to the
// toy module's tables as the package's files are to the package's: each entry names its file's
// classes of the kind, and the package's files whose interfaces its options extend.
export const toyFamilies = [
  { file: 'tests/toys/toys.d.ts', kind: 'index', classes: ['ToyNormBoundIndex'], imports: ['web/src/mips.d.ts'] },
  { file: 'tests/toys/toys.d.ts', kind: 'linear-policy', classes: ['ToyGreedy'], imports: ['web/src/linear.d.ts'] },
];
