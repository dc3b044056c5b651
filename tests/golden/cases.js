// The golden saved states (tests/golden/<Class>.sbst): for every class with toBytes(), a small object
// built deterministically, and the transcript of what it does next (transcript(object, sb)). write.mjs saves the objects
// and their transcripts; tests/js/golden-states.test.js loads the files of every earlier version
// and replays the transcript, so a format change that breaks old states cannot go unnoticed.
// Every registered type of each family is a case (registeredClasses), with its options from
// `perType` below or {}: a new type has its case with no row here (`node tests/golden/write.mjs
// --missing` writes its files, which the golden test requires).
import { gaussian, registeredClasses, seededRandom } from '../js/helpers.js';

const dim = 4;
const ids = (first, count) => Uint32Array.from({ length: count }, (_, i) => first + i);

function index(name, options = {}) {
  return {
    make(sb) {
      const random = seededRandom(1);
      const object = new sb[name]({ dim, seed: 2, ...options });
      // Labels since format 4: three categories, searched with filters in the transcript.
      object.add(ids(0, 120), gaussian(random, 120 * dim), { labels: Uint32Array.from({ length: 120 }, (_, i) => i % 3) });
      object.remove([3, 4, 5]);
      object.search(gaussian(random, dim), 5);
      return object;
    },
    transcript(object) {
      const random = seededRandom(3);
      const out = [];
      for (let q = 0; q < 5; q++) {
        const query = gaussian(random, dim);
        out.push(...object.search(query, 5).ids, ...object.search(query, 5, { labels: [1], exclude: [1, 7, 10] }).ids);
      }
      return out;
    },
  };
}

// Rewards of a fixed linear model, so that transcripts do not depend on a noise stream.
const linearReward = (features, arm) => features[arm * dim] - 0.5 * features[arm * dim + 1];

function linear(name, options = {}) {
  const features = Float64Array.from(gaussian(seededRandom(4), 60 * dim));
  return {
    make(sb) {
      const object = new sb[name]({ dim, seed: 5, horizon: 500, ...options });
      object.addArms(ids(0, 60), features, { labels: Uint32Array.from({ length: 60 }, (_, i) => i % 4) });
      for (let t = 0; t < 30; t++) {
        const arm = object.select();
        object.update(arm, linearReward(features, arm));
      }
      object.removeArms([7]);
      return object;
    },
    transcript(object) {
      const out = [];
      for (let t = 0; t < 30; t++) {
        // Every third step a filtered slate (labels saved with the arms), fed back per position.
        const shown = t % 3 === 0 ? Array.from(object.selectSlate(3, { labels: [t % 4], exclude: [t] })) : [object.select()];
        out.push(shown.length === 1 ? shown[0] : shown);
        for (const arm of shown) object.update(arm, linearReward(features, arm));
      }
      return out;
    },
  };
}

function semiBandit(name, options = {}) {
  const bernoulli = (arm, t) => ((arm * 7 + t * 3) % 10 < arm % 10 ? 1 : 0);
  return {
    make(sb) {
      const matroid = sb.Matroid.partition(Uint32Array.from({ length: 30 }, (_, i) => i % 4));
      const object = new sb[name]({ matroid, horizon: 500, seed: 6, ...options });
      matroid.dispose();
      for (let t = 0; t < 20; t++) {
        const basis = object.select();
        object.update(basis, Float64Array.from(basis, (arm) => bernoulli(arm, t)));
      }
      return object;
    },
    transcript(object) {
      const out = [];
      for (let t = 20; t < 35; t++) {
        const basis = object.select();
        out.push(...basis);
        object.update(basis, Float64Array.from(basis, (arm) => bernoulli(arm, t)));
      }
      return out;
    },
  };
}

function combinatorial(name, options = {}) {
  const rounds = (seed) => {
    const random = seededRandom(seed);
    return () => Float64Array.from(gaussian(random, 8 * dim));
  };
  const play = (object, next, count, out) => {
    for (let t = 0; t < count; t++) {
      const x = next();
      const rows = object.select(x, { k: 2 });
      out?.push(...rows);
      object.update(rows, Float64Array.from(rows, (row) => linearReward(x, row)));
    }
  };
  return {
    make(sb) {
      const object = new sb[name]({ dim, k: 2, seed: 7, ...options });
      play(object, rounds(8), 10);
      return object;
    },
    transcript(object) {
      const out = [];
      play(object, rounds(9), 10, out);
      return out;
    },
  };
}

// A catalogue with labels and a half-built graph; its transcript is what a Sub-TS user over the
// restored catalogue plays, and the catalogue's identity (kept by its snapshot).
function catalogue() {
  const features = Float64Array.from(gaussian(seededRandom(6), 80 * dim));
  return {
    make(sb) {
      const object = new sb.Catalogue({ dim, seed: 7, index: { type: 'hnsw', M: 4, efConstruction: 8 } });
      object.add(ids(0, 80), features, { labels: Uint32Array.from({ length: 80 }, (_, i) => i % 5) });
      object.remove([7, 8]);
      object.build(40);
      return object;
    },
    transcript(object, sb) {
      const user = new sb.SubTS({ catalogue: object, seed: 8, horizon: 500 });
      const out = [object.stats().identity, object.stats().labelled];
      for (let t = 0; t < 30; t++) {
        const arm = user.select();
        out.push(arm);
        user.update(arm, linearReward(features, arm));
      }
      // The index's labels are the catalogue's: a filtered slate.
      out.push(Array.from(user.selectSlate(4, { labels: [2] })));
      user.dispose();
      return out;
    },
  };
}

// Options of the types whose golden state is made with other than the defaults. They shaped the
// states already committed: a row changed here no longer replays its transcripts.
const perType = {
  index: { hnsw: { M: 6 }, lsh: { bits: 4, tables: 4 }, adaptive: { base: { type: 'hnsw', M: 4 } }, 'pca-tree': { depth: 2 } },
  'linear-policy': {},
  'semi-bandit-policy': {},
  'cls-policy': { 'comb-ts': { randomization: 'arm' } },
};
const caseOf = { index, 'linear-policy': linear, 'semi-bandit-policy': semiBandit, 'cls-policy': combinatorial };

// The golden cases of the module `sb`: class name -> { make(sb), transcript(object, sb) }.
export function goldenCases(sb) {
  const cases = {};
  for (const [kind, options] of Object.entries(perType)) {
    for (const [name, own] of registeredClasses(sb, kind, options)) cases[name] = caseOf[kind](name, own);
  }
  cases.Catalogue = catalogue();
  return cases;
}
