// The shop's model off the page's main thread: this Worker owns the module, the catalogue restored
// from its snapshot, the visitor's Sub-TS model and its record in IndexedDB. The page (shop.js) posts
// what the visitor did and draws what comes back: the slate, the model's estimate and the items it
// rates highest. Restoring the 8 MB snapshot and the simulated visitor's 600 slates would otherwise
// hold the page still. One request at a time: { id, type, ...arguments } in, { id, result } or
// { id, error } out, and { type: 'progress', received, total } while the catalogue arrives.
import init from 'sublinear-bandits';
import { seededRandom } from '../../bench/lib/seeded-random.mjs';
import { parseShopAsset } from './shop-catalogue.js';
import { chooseSlate, NOT_AGAIN, simulateVisitor, SLATE, slateFeedback } from './shop-visitor.js';
import { forgetVisitor, loadVisitor, saveVisitor } from './shop-store.js';

// The items the model rates highest, shown beside the slate.
const TOP_RATED = 5;

let sb = null;
let shop = null;
let catalogue = null;
let user = null;
let recent = [];

function newUser() {
  user?.dispose();
  user = new sb.SubTS({ catalogue, seed: 1 });
  recent = [];
}

// Both files, with the bytes received posted as they arrive (where the host states both lengths;
// a compressed transfer states the compressed length, which the decoded bytes would overrun).
async function download(base, names) {
  const responses = await Promise.all(names.map(async (name) => {
    const response = await fetch(new URL(name, base));
    if (!response.ok) throw new Error(`${name} did not load (${response.status})`);
    return response;
  }));
  const lengths = responses.map((response) => (response.headers.get('content-encoding') ? 0 : Number(response.headers.get('content-length')) || 0));
  const total = lengths.every((length) => length > 0) ? lengths.reduce((a, b) => a + b, 0) : 0;
  const received = names.map(() => 0);
  return Promise.all(responses.map(async (response, i) => {
    if (!response.body) return response.arrayBuffer();
    const reader = response.body.getReader();
    const parts = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      received[i] += value.length;
      self.postMessage({ type: 'progress', received: received.reduce((a, b) => a + b, 0), total });
    }
    const bytes = new Uint8Array(received[i]);
    let at = 0;
    for (const part of parts) {
      bytes.set(part, at);
      at += part.length;
    }
    return bytes.buffer;
  }));
}

// The items the model rates highest now: its mean estimate x^T theta of every item, the best
// TOP_RATED kept in order while scanning (sorting 60,000 scores would cost more).
function topRated(theta) {
  const best = [];
  for (let n = 0; n < shop.count; n++) {
    let score = 0;
    for (let j = 0; j < shop.dim; j++) score += shop.features[n * shop.dim + j] * theta[j];
    if (best.length === TOP_RATED && score <= best[TOP_RATED - 1].score) continue;
    let at = best.length;
    while (at > 0 && best[at - 1].score < score) at -= 1;
    best.splice(at, 0, { arm: n, score });
    if (best.length > TOP_RATED) best.pop();
  }
  return best.map(({ arm }) => arm);
}

// The next slate: the model's (chooseSlate), or with `kind` only items of that kind ("More like
// this"), with what the page shows of the model and what the slate cost.
function slate(kind = null) {
  const started = performance.now();
  const before = catalogue.stats().innerProducts;
  const exclude = recent.flat();
  const arms = kind === null
    ? chooseSlate(user, { exclude, fresh: user.stats().updates === 0 })
    : Array.from(user.selectSlate(SLATE, { exclude, labels: [kind] }));
  const milliseconds = performance.now() - started;
  const innerProducts = catalogue.stats().innerProducts - before;
  recent = [...recent.slice(1 - NOT_AGAIN), arms];
  const theta = Array.from(user.theta());
  const stats = user.stats();
  const { index } = catalogue.stats();
  return {
    arms, milliseconds, innerProducts, theta, top: stats.updates === 0 ? [] : topRated(theta),
    stats: { updates: stats.updates, forgetting: stats.forgetting, approximation: stats.approximation },
    size: catalogue.size, built: index.built, modelBytes: user.toBytes().length,
  };
}

async function save() {
  const state = { user: user.toBytes() };
  await saveVisitor(state);
  return state.user.length;
}

// An action on the slate, then the next slate and the model saved.
async function acted(change, kind = null) {
  change();
  const next = slate(kind);
  return { ...next, savedBytes: await save() };
}

// The simulated visitor, in a sandbox: fresh Sub-TS and Linear TS models over the same catalogue,
// never the visitor's own, `runs` runs with seeds from `base`.
async function simulate({ tastes, base, runs }) {
  const results = [];
  for (let r = 0; r < runs; r++) {
    self.postMessage({ type: 'simulation', run: r });
    const run = {};
    for (const [key, Policy] of [['sub', sb.SubTS], ['linear', sb.LinTS]]) {
      const model = new Policy({ catalogue, seed: base + r });
      try {
        run[key] = { ...simulateVisitor(model, shop.labels, tastes, seededRandom(base + r)), forgetting: model.stats().forgetting };
      } finally {
        model.dispose();
      }
    }
    results.push(run);
  }
  return { runs: results, exact: catalogue.stats().index.built < catalogue.size };
}

const handlers = {
  async open({ base }) {
    sb = await init();
    const started = performance.now();
    const [asset, snapshot] = await download(base, ['shop/fashion-shop.bin', 'shop/fashion-shop.sbst']);
    shop = parseShopAsset(asset);
    const loaded = performance.now();
    // The catalogue as the site built it, graph included: nothing to add or build here.
    catalogue = sb.Catalogue.fromBytes(new Uint8Array(snapshot));
    if (catalogue.dim !== shop.dim || catalogue.size !== shop.count) throw new Error('the catalogue snapshot does not match the shop asset');
    const restoreMs = performance.now() - loaded;
    const saved = await loadVisitor().catch(() => undefined);
    let restored = false;
    if (saved?.user) {
      try {
        user = sb.SubTS.fromBytes(saved.user, { catalogue });
        restored = true;
      } catch {
        // A model saved over another catalogue (another version of the site), or a damaged one, is
        // dropped, not shown as an error.
        user = null;
      }
    }
    if (!user) newUser();
    return {
      asset, snapshotBytes: snapshot.byteLength, restored, restoreMs, loadMs: performance.now() - started,
      threads: sb.threads, built: catalogue.stats().index.built, ...slate(),
    };
  },
  feedback: ({ arms, liked }) => acted(() => {
    for (const [arm, reward] of slateFeedback(arms, liked)) user.update(arm, reward);
  }),
  // "More like this": the item is liked, and the next slate holds only its kind.
  more: ({ arm }) => acted(() => user.update(arm, 1), shop.labels[arm]),
  // "Not for me": the item alone is passed over, and the slate is chosen again.
  dislike: ({ arm }) => acted(() => user.update(arm, 0)),
  async forget() {
    await forgetVisitor();
    newUser();
    return slate();
  },
  simulate,
};

self.onmessage = async ({ data: { id, type, ...request } }) => {
  try {
    const result = await handlers[type](request);
    self.postMessage({ id, result }, result?.asset ? [result.asset] : []);
  } catch (error) {
    self.postMessage({ id, error: `${error?.code ? `${error.code}: ` : ''}${error?.message ?? error}` });
  }
};
