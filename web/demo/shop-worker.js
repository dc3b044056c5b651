// The shop's model off the page's main thread: this Worker owns the module, the catalogue restored
// from its snapshot, the visitor's Sub-TS model and its record in IndexedDB. The page (shop.js) posts
// what the visitor did and draws what comes back: the slate, the model's estimate and the items it
// rates highest. Restoring the 8 MB snapshot and the simulated visitor's 600 slates would otherwise
// hold the page still. Requests: { id, type, ...arguments } in, { id, result } or { id, error } out,
// and { type: 'progress', part, received, total } while the main asset, then the snapshot, arrive.
// On a slow connection the snapshot takes most of a minute: 'start' answers the first slate from the
// main asset (an eighth of the bytes, fetched first) without the module; 'restore' answers once the
// module and the catalogue are ready; an action that comes before waits for them (queued, in order).
import init from 'sublinear-bandits';
import { seededRandom } from '../../bench/lib/seeded-random.mjs';
import { parseShopAsset } from './shop-catalogue.js';
import { firstSlate, NOT_AGAIN, simulateVisitor, SLATE, slateFeedback } from './shop-visitor.js';
import { forgetVisitor, loadVisitor, saveVisitor } from './shop-store.js';

// The items the model rates highest, shown beside the slate.
const TOP_RATED = 5;

let sb = null;
let shop = null;
let catalogue = null;
let user = null;
let recent = [];
// Set by 'start': resolves once the module, the catalogue and the visitor's model are ready, which
// they start to load when the page asks for 'restore' (after the first slate's thumbnails).
let ready = null;
let load = null;
// Whether the visitor acted on a slate before the catalogue was ready (then 'restore' draws none).
let acted = false;

function newUser() {
  user?.dispose();
  user = new sb.SubTS({ catalogue, seed: 1 });
  recent = [];
}

// One file, with the bytes received posted as they arrive (the total where the host states the
// length; a compressed transfer states the compressed length, which the decoded bytes would overrun).
// The files are fetched one after the other, not together: on a slow link the main asset, which the
// first slate needs, then has the whole bandwidth.
async function download(base, name, part) {
  const response = await fetch(new URL(name, base));
  if (!response.ok) throw new Error(`${name} did not load (${response.status})`);
  const total = response.headers.get('content-encoding') ? 0 : Number(response.headers.get('content-length')) || 0;
  if (!response.body) return response.arrayBuffer();
  const reader = response.body.getReader();
  const parts = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    received += value.length;
    self.postMessage({ type: 'progress', part, received, total });
  }
  const bytes = new Uint8Array(received);
  let at = 0;
  for (const chunk of parts) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes.buffer;
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

// The first slate, from the main asset alone (firstSlate: no model, no catalogue).
function first() {
  const started = performance.now();
  const arms = firstSlate(shop);
  recent = [arms];
  return { arms, first: true, milliseconds: performance.now() - started, size: shop.count };
}

// What the page shows of the model: its estimate, the items it rates highest, its state.
function modelView() {
  const theta = Array.from(user.theta());
  const stats = user.stats();
  return {
    theta, top: stats.updates === 0 ? [] : topRated(theta),
    stats: { updates: stats.updates, forgetting: stats.forgetting, approximation: stats.approximation },
    size: catalogue.size, built: catalogue.stats().index.built, modelBytes: user.toBytes().length,
  };
}

// The next slate: for a model that has learned nothing the first slate (as before the catalogue
// arrived), else the model's selectSlate, or with `kind` only items of that kind ("More like this");
// with what the page shows of the model and what the slate cost.
function slate(kind = null) {
  if (kind === null && user.stats().updates === 0) return { ...first(), ...modelView() };
  const started = performance.now();
  const before = catalogue.stats().innerProducts;
  const exclude = recent.flat();
  const arms = Array.from(user.selectSlate(SLATE, kind === null ? { exclude } : { exclude, labels: [kind] }));
  const milliseconds = performance.now() - started;
  const innerProducts = catalogue.stats().innerProducts - before;
  recent = [...recent.slice(1 - NOT_AGAIN), arms];
  return { arms, milliseconds, innerProducts, ...modelView() };
}

async function save() {
  const state = { user: user.toBytes() };
  await saveVisitor(state);
  return state.user.length;
}

// An action on the slate, then the next slate and the model saved. One that comes before the
// catalogue waits for it: the model learns it as if it had come after.
async function act(change, kind = null) {
  acted = true;
  await ready;
  change();
  const next = slate(kind);
  return { ...next, savedBytes: await save() };
}

// The simulated visitor, in a sandbox: fresh Sub-TS and Linear TS models over the same catalogue,
// never the visitor's own, `runs` runs with seeds from `base`.
async function simulate({ tastes, base, runs }) {
  await ready;
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

// The module (fetched while the snapshot arrives), the catalogue restored from the snapshot, and the
// visitor's model: restored from this browser, or a new one.
async function restore(base) {
  const [module, snapshot] = await Promise.all([init(), download(base, 'shop/fashion-shop.sbst', 'snapshot')]);
  sb = module;
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
  return { snapshotBytes: snapshot.byteLength, restored, restoreMs, threads: sb.threads };
}

const handlers = {
  // The main asset, and the first slate from it; the catalogue then restores in the background.
  async start({ base }) {
    const asset = await download(base, 'shop/fashion-shop.bin', 'asset');
    shop = parseShopAsset(asset);
    ready = new Promise((resolve) => { load = resolve; }).then(() => restore(base));
    // Heard by 'restore' (the page's request); here only kept from being an unhandled rejection.
    ready.catch(() => {});
    return { asset, ...first() };
  },
  // Once the catalogue is ready: the model's view, and for a restored model that the visitor has not
  // acted on yet its own slate (the first slate stays otherwise: what the visitor clicks is on it).
  async restore() {
    load();
    const loaded = await ready;
    const view = loaded.restored && !acted ? slate() : modelView();
    return { ...loaded, ...view };
  },
  feedback: ({ arms, liked }) => act(() => {
    for (const [arm, reward] of slateFeedback(arms, liked)) user.update(arm, reward);
  }),
  // "More like this": the item is liked, and the next slate holds only its kind.
  more: ({ arm }) => act(() => user.update(arm, 1), shop.labels[arm]),
  // "Not for me": the item alone is passed over, and the slate is chosen again.
  dislike: ({ arm }) => act(() => user.update(arm, 0)),
  async forget() {
    await ready;
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
