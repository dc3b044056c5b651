// The shop: a visitor's taste learned over real product images, in the page. The catalogue is
// Fashion-MNIST's 60,000 training images (shop-asset.mjs): the main asset (labels, features, bases)
// and the catalogue's snapshot with its HNSW graph built are fetched when the section first opens,
// the thumbnails a chunk at a time when an item of the chunk is drawn. The visitor is a Sub-TS user
// over the catalogue whose model is kept in this browser's IndexedDB, and nothing leaves the page. The slates, what a click
// teaches and the simulated visitor are shop-visitor.js's.
import { seededRandom } from '../../bench/lib/seeded-random.mjs';
import { CurveChart } from './charts.js';
import { parseShopAsset } from './shop-catalogue.js';
import { chooseSlate, clicksToHalf, NOT_AGAIN, simulateVisitor, SLATE, slateFeedback } from './shop-visitor.js';

export const CLASSES = ['T-shirt/top', 'Trouser', 'Pullover', 'Dress', 'Coat', 'Sandal', 'Shirt', 'Sneaker', 'Bag', 'Ankle boot'];
const DATABASE = 'sublinear-bandits-shop';
const STORE = 'visitor';
const SIMULATED_SLATES = 60;
// The simulation's runs a press: a verdict from one run would claim more than it shows.
const SIMULATED_RUNS = 5;
// The items the model rates highest, shown beside the slate.
const TOP_RATED = 5;
// A simulated visitor whose taste changes turns to the later taste from this slate on.
const TASTE_CHANGES_AT = 30;

// IndexedDB, promised: the visitor's saved state ({ catalogue, user } bytes) under one key.
function database() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}
async function stored(mode, action) {
  const db = await database();
  try {
    return await new Promise((resolve, reject) => {
      const request = action(db.transaction(STORE, mode).objectStore(STORE));
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  } finally {
    db.close();
  }
}
const loadVisitor = () => stored('readonly', (store) => store.get('state'));
const saveVisitor = (state) => stored('readwrite', (store) => store.put(state, 'state'));
const forgetVisitor = () => stored('readwrite', (store) => store.delete('state'));

// Grey levels of one image (Uint8 or any numbers, stretched to 0..255) into a canvas.
function drawImage(canvas, values, side) {
  canvas.width = side;
  canvas.height = side;
  const context = canvas.getContext('2d');
  const image = context.createImageData(side, side);
  let low = Infinity;
  let high = -Infinity;
  for (const v of values) {
    low = Math.min(low, v);
    high = Math.max(high, v);
  }
  const range = high - low || 1;
  for (let p = 0; p < side * side; p++) {
    const grey = 255 - Math.round((255 * (values[p] - low)) / range);
    image.data.set([grey, grey, grey, 255], 4 * p);
  }
  context.putImageData(image, 0, 0);
}

export function setUpShop(sb) {
  const $ = (selector) => document.querySelector(selector);
  const section = $('#shop');
  const status = $('#shop-status');
  const error = $('#shop-error');
  const slateList = $('#shop-slate');
  let shop = null;
  let catalogue = null;
  let user = null;
  let recent = [];
  let chart = null;
  const shownClasses = [];

  function showError(failure) {
    error.textContent = failure instanceof sb.BanditError ? `${failure.code}: ${failure.message}` : String(failure?.message ?? failure);
    error.hidden = false;
  }

  function newUser() {
    user?.dispose();
    user = new sb.SubTS({ catalogue, seed: 1 });
    recent = [];
    shownClasses.length = 0;
  }

  const nameOf = (arm) => `${CLASSES[shop.labels[arm]]} no. ${arm}`;
  // The thumbnails' chunks fetched so far (promises of their grey levels): 60,000 images are 47 MB,
  // so a chunk is fetched only when one of its items is drawn, and once.
  const chunks = new Map();
  const chunkOf = (arm) => {
    const chunk = Math.floor(arm / shop.chunk);
    if (!chunks.has(chunk)) {
      const name = `shop/thumbnails-${String(chunk).padStart(3, '0')}.bin`;
      chunks.set(chunk, fetch(new URL(name, document.baseURI)).then((response) => {
        if (!response.ok) throw new Error(`${name} did not load (${response.status})`);
        return response.arrayBuffer();
      }).then((buffer) => new Uint8Array(buffer)).catch((failure) => {
        // Asked again at the next drawing.
        chunks.delete(chunk);
        throw failure;
      }));
    }
    return chunks.get(chunk);
  };
  const thumbnail = (arm) => {
    const canvas = document.createElement('canvas');
    canvas.width = shop.side;
    canvas.height = shop.side;
    const pixels = shop.side * shop.side;
    const at = (arm % shop.chunk) * pixels;
    chunkOf(arm).then((grey) => drawImage(canvas, grey.subarray(at, at + pixels), shop.side), showError);
    return canvas;
  };
  // An item's picture with its name under it.
  function itemFigure(arm) {
    const caption = document.createElement('span');
    caption.className = 'shop-name';
    caption.textContent = nameOf(arm);
    return [thumbnail(arm), caption];
  }

  // The items the model rates highest now: its mean estimate x^T theta of every item (a pass over
  // the catalogue's features, as a shop's "your picks" shelf would be).
  function topRated(theta) {
    // The best TOP_RATED kept in order while scanning (sorting 60,000 scores would cost more).
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

  // What was learned: theta's image (the basis coordinates back in pixels: a blend of the kinds'
  // mean images), the items it rates highest, the kinds of the recent slates, the step's time and the
  // index's state.
  function describe(milliseconds) {
    const theta = user.theta();
    // What a test (or a curious visitor) can compare across a reload: the model's estimate.
    section.dataset.theta = Array.from(theta, (v) => v.toFixed(6)).join(' ');
    const pixels = shop.side * shop.side;
    const image = new Float64Array(pixels);
    for (let b = 0; b < shop.dim - 1; b++) for (let p = 0; p < pixels; p++) image[p] += theta[b] * shop.picture[b * pixels + p];
    drawImage($('#shop-estimate'), image, shop.side);
    const stats = user.stats();
    const top = stats.updates === 0 ? [] : topRated(theta);
    section.dataset.top = top.join(' ');
    $('#shop-top').replaceChildren(...top.map((arm) => {
      const item = document.createElement('li');
      item.dataset.class = CLASSES[shop.labels[arm]];
      item.append(...itemFigure(arm));
      return item;
    }));
    const last = shownClasses.slice(-5 * SLATE);
    const counts = CLASSES.map((_, c) => last.filter((label) => label === c).length);
    $('#shop-shares').replaceChildren(...CLASSES.map((name, c) => {
      const item = document.createElement('li');
      const share = last.length ? counts[c] / last.length : 0;
      item.dataset.class = name;
      item.dataset.share = share.toFixed(3);
      item.textContent = `${name}: ${(100 * share).toFixed(0)}%`;
      item.style.setProperty('--share', `${(100 * share).toFixed(1)}%`);
      return item;
    }));
    const { index } = catalogue.stats();
    const { forgetting } = stats;
    // When the model noticed a change of taste (its default forgetting, 'auto'), counted back from
    // now in the items it has learned from.
    section.dataset.changes = String(forgetting.changes);
    const ago = forgetting.lastChange === null ? null : stats.updates - forgetting.lastChange;
    section.dataset.changedAgo = ago === null ? '' : String(ago);
    const noticed = forgetting.changes > 0
      ? `it noticed a change of taste ${forgetting.changes === 1 ? 'once' : `${forgetting.changes} times`}, last ${ago} items seen ago, and kept only what came after`
      : 'it has noticed no change of taste';
    const searched = Number(section.dataset.innerProducts);
    const size = catalogue.size.toLocaleString('en');
    // What the slate cost, as the catalogue counted it (the graph's walk, the shortlists ranked exactly
    // and any slice of an audit's exact scan). The first slate's search per kind keeps a tenth of the
    // items: so selective a filter is answered by scanning the kind's items instead of the graph.
    const graph = searched < catalogue.size
      ? `its HNSW graph search scored ${searched.toLocaleString('en')} of the ${size} items`
      : `${searched.toLocaleString('en')} inner products: a search per kind, each scanning that kind's items`;
    section.dataset.graph = String(searched < catalogue.size && index.built === catalogue.size);
    const { approximation } = stats;
    const audits = approximation?.audits
      ? `; exact audits found a better item in ${approximation.misses} of ${approximation.audits} searches`
      : '';
    $('#shop-state').textContent = `Slate chosen in ${milliseconds.toFixed(2)} ms by Sub-TS over ${size} items (${graph}${audits}); ` +
      `learned from ${stats.updates} items seen, ${noticed}; the model is ${user.toBytes().length.toLocaleString('en')} bytes.`;
  }

  // The next slate: the model's (chooseSlate), or with `kind` only items of that kind ("More like
  // this": selectSlate with a label filter).
  function showSlate(kind = null) {
    const started = performance.now();
    const innerProductsBefore = catalogue.stats().innerProducts;
    const exclude = recent.flat();
    const arms = kind === null
      ? chooseSlate(user, { exclude, fresh: user.stats().updates === 0 })
      : Array.from(user.selectSlate(SLATE, { exclude, labels: [kind] }));
    const milliseconds = performance.now() - started;
    section.dataset.innerProducts = String(catalogue.stats().innerProducts - innerProductsBefore);
    recent = [...recent.slice(1 - NOT_AGAIN), arms];
    for (const arm of arms) shownClasses.push(shop.labels[arm]);
    slateList.replaceChildren(...arms.map((arm) => {
      const item = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'shop-item';
      button.dataset.arm = String(arm);
      button.dataset.class = CLASSES[shop.labels[arm]];
      button.setAttribute('aria-label', `${nameOf(arm)}. I like this`);
      button.append(...itemFigure(arm));
      button.addEventListener('click', () => feedback(arms, arm));
      const actions = document.createElement('div');
      actions.className = 'shop-actions';
      actions.append(smallButton('More like this', `More like ${nameOf(arm)}`, () => moreLikeThis(arm)),
        smallButton('Not for me', `${nameOf(arm)} is not for me`, () => dislike(arm)));
      item.append(button, actions);
      return item;
    }));
    describe(milliseconds);
    return arms;
  }

  function smallButton(text, label, action) {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = text;
    button.setAttribute('aria-label', label);
    button.addEventListener('click', action);
    return button;
  }

  // The model alone: the catalogue is the site's snapshot, fetched again on the next visit (the
  // browser's cache may keep it), and a model restores only over a catalogue of the same identity.
  async function save() {
    const state = { user: user.toBytes() };
    await saveVisitor(state);
    $('#shop-stored').textContent = `Stored in this browser: your model, ${(state.user.length / 1024).toFixed(1)} KB.`;
    section.dataset.storedBytes = String(state.user.length);
    section.dataset.saved = String(Date.now());
    delete section.dataset.forgotten;
  }

  // A click on `liked` (or none, -1), read as a cascade (slateFeedback): the items before it in the
  // slate were passed over, the items after it teach nothing.
  function feedback(arms, liked) {
    act(() => {
      const taught = slateFeedback(arms, liked);
      for (const [arm, reward] of taught) user.update(arm, reward);
      $('#shop-ack').textContent = liked < 0
        ? `None of these: the ${taught.length} items count as passed over. A new slate follows.`
        : `You liked ${nameOf(liked)}${taught.length > 1 ? `; the ${taught.length - 1} items before it count as passed over` : ''}. A new slate follows.`;
      showSlate();
    });
  }

  // "More like this": the item is liked, and the next slate holds only its kind.
  function moreLikeThis(arm) {
    act(() => {
      user.update(arm, 1);
      $('#shop-ack').textContent = `You asked for more like ${nameOf(arm)}: here are ${CLASSES[shop.labels[arm]]} items the model rates highest.`;
      showSlate(shop.labels[arm]);
    });
  }

  // "Not for me": the item alone is passed over, and the slate is chosen again.
  function dislike(arm) {
    act(() => {
      user.update(arm, 0);
      $('#shop-ack').textContent = `Noted: ${nameOf(arm)} is not for you. A new slate follows.`;
      showSlate();
    });
  }

  // A visitor's action on the slate: the model changes, focus stays on the new slate, and the model is saved.
  function act(change) {
    try {
      change();
      if (slateList.contains(document.activeElement) || document.activeElement === document.body) slateList.querySelector('.shop-item')?.focus();
      save().catch(showError);
    } catch (failure) {
      showError(failure);
    }
  }

  // The simulated visitor, in a sandbox: fresh Sub-TS and Linear TS models over the same catalogue,
  // never the visitor's own, SIMULATED_RUNS runs with seeds drawn at each press (the models' and the
  // clicks'), and a verdict that says what the runs show: the liked share at the end, the regret of
  // the two policies paired run by run, the time each took to choose a slate (the same call, timed
  // the same way), and with a later taste, how many clicks the slates took to follow it.
  async function simulate() {
    const parse = (value) => value.split(',').map(Number);
    const first = parse($('#shop-taste').value);
    const later = $('#shop-taste-later').value === '' ? null : parse($('#shop-taste-later').value);
    const tastes = Array.from({ length: SIMULATED_SLATES }, (_, s) => (later && s >= TASTE_CHANGES_AT ? later : first));
    const base = crypto.getRandomValues(new Uint32Array(1))[0] % 1_000_000;
    const runs = [];
    const verdict = $('#shop-verdict');
    for (let r = 0; r < SIMULATED_RUNS; r++) {
      verdict.textContent = `Run ${r + 1} of ${SIMULATED_RUNS}…`;
      // Let the page draw the progress.
      await new Promise((resolve) => setTimeout(resolve, 0));
      const run = {};
      for (const [key, Policy] of [['sub', sb.SubTS], ['linear', sb.LinTS]]) {
        const model = new Policy({ catalogue, seed: base + r });
        try {
          run[key] = { ...simulateVisitor(model, shop.labels, tastes, seededRandom(base + r)), forgetting: model.stats().forgetting };
        } finally {
          model.dispose();
        }
      }
      runs.push(run);
    }
    drawRegret(runs);
    for (const key of Object.keys(verdict.dataset)) delete verdict.dataset[key];
    Object.assign(verdict.dataset, verdictOf(runs, base, later !== null));
    verdict.textContent = verdictText(verdict.dataset, first, later);
  }

  // The verdict's numbers, as strings (the verdict element's dataset).
  function verdictOf(runs, base, turns) {
    const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
    const sum = (values) => values.reduce((a, b) => a + b, 0);
    const lastShares = runs.map(({ sub }) => mean(sub.shares.slice(-10)));
    const differences = runs.map(({ sub, linear }) => sum(sub.regrets) - sum(linear.regrets));
    const spread = Math.sqrt(differences.reduce((s, d) => s + (d - mean(differences)) ** 2, 0) / (runs.length - 1));
    // Student's t at 97.5% for SIMULATED_RUNS - 1 = 4 degrees of freedom.
    const half = (2.776 * spread) / Math.sqrt(runs.length);
    const numbers = {
      seeds: `${base}-${base + runs.length - 1}`,
      share: mean(lastShares).toFixed(3),
      shareLow: Math.min(...lastShares).toFixed(3),
      shareHigh: Math.max(...lastShares).toFixed(3),
      sub: mean(runs.map(({ sub }) => sum(sub.regrets))).toFixed(2),
      linear: mean(runs.map(({ linear }) => sum(linear.regrets))).toFixed(2),
      difference: mean(differences).toFixed(2),
      differenceLow: (mean(differences) - half).toFixed(2),
      differenceHigh: (mean(differences) + half).toFixed(2),
      exact: String(catalogue.stats().index.built < catalogue.size),
      identical: String(runs.every(({ sub, linear }) => sub.regrets.every((regret, s) => regret === linear.regrets[s]))),
      subMs: mean(runs.flatMap(({ sub }) => sub.milliseconds)).toFixed(3),
      linearMs: mean(runs.flatMap(({ linear }) => linear.milliseconds)).toFixed(3),
    };
    if (turns) {
      const followed = runs.map(({ sub }) => clicksToHalf(sub, TASTE_CHANGES_AT));
      // Noticed after the turn: the change the model last found came after the turn's slate.
      const noticed = runs.filter(({ sub }) => sub.forgetting.lastChange !== null && sub.forgetting.lastChange > sub.updates[TASTE_CHANGES_AT]);
      Object.assign(numbers, { followed: followed.map((c) => (Number.isFinite(c) ? String(c) : 'never')).join(' '), noticed: String(noticed.length) });
    }
    return numbers;
  }

  function verdictText(numbers, first, later) {
    const names = (kinds) => kinds.map((c) => CLASSES[c]).join(' or ');
    const percent = (x) => `${(100 * Number(x)).toFixed(0)}%`;
    const low = Number(numbers.differenceLow);
    const high = Number(numbers.differenceHigh);
    const comparison = numbers.identical === 'true'
      ? `the same as Linear TS's at every slate of every run${numbers.exact === 'true' ? ' (its graph not built, Sub-TS\'s search is an exact scan, as Linear TS\'s is)' : ''}`
      : low > 0 ? 'more than Linear TS\'s: on these runs the sublinear search cost some learning'
      : high < 0 ? 'less than Linear TS\'s on these runs' : 'not told apart from Linear TS\'s by these runs';
    let text = `${SIMULATED_RUNS} runs of ${SIMULATED_SLATES} slates (seeds ${numbers.seeds}): ${names(later ?? first)} held ${percent(numbers.share)} of the last 10 slates ` +
      `(${percent(numbers.shareLow)} to ${percent(numbers.shareHigh)} across runs; ${(100 / CLASSES.length * (later ?? first).length).toFixed(0)}% of the catalogue). ` +
      `Sub-TS's regret, ${numbers.sub} expected clicks missed a run, is ${comparison} (${numbers.linear}; ` +
      `the paired difference ${numbers.difference}, 95% interval ${numbers.differenceLow} to ${numbers.differenceHigh}). ` +
      `Choosing a slate took ${numbers.subMs} ms with Sub-TS and ${numbers.linearMs} ms with Linear TS.`;
    if (later) {
      const followed = numbers.followed.split(' ');
      text += ` After the taste turned from ${names(first)} at slate ${TASTE_CHANGES_AT + 1}, a slate was half ${names(later)} after ` +
        `${followed.join(', ')} clicks in the ${SIMULATED_RUNS} runs; the model noticed the change in ${numbers.noticed} of them.`;
    }
    return text;
  }

  // Cumulative regret, mean and spread over the runs, per policy.
  function drawRegret(runs) {
    chart ??= new CurveChart($('#shop-regret'), { yLabel: 'cumulative regret (expected clicks missed)', legend: $('#shop-regret-legend') });
    const t = Array.from({ length: SIMULATED_SLATES }, (_, s) => s + 1);
    const curve = (key) => {
      const cumulative = runs.map((run) => run[key].regrets.map(((total) => (value) => (total += value))(0)));
      const mean = t.map((_, s) => cumulative.reduce((a, c) => a + c[s], 0) / runs.length);
      const std = t.map((_, s) => Math.sqrt(cumulative.reduce((a, c) => a + (c[s] - mean[s]) ** 2, 0) / runs.length));
      return { t, mean, std };
    };
    chart.update([
      { label: 'Sub-TS (the shop\'s policy)', ...curve('sub'), style: { colour: '#3b6ea8', dash: [] } },
      { label: 'Linear TS (exact scan)', ...curve('linear'), style: { colour: '#c0392b', dash: [6, 3] } },
    ]);
    chart.chart.options.scales.x.title.text = 'slate';
    chart.chart.update();
  }

  async function forget() {
    await forgetVisitor();
    newUser();
    delete section.dataset.saved;
    // Set once the stored model is gone (a reload before that could still restore it).
    section.dataset.forgotten = 'true';
    $('#shop-ack').textContent = 'Your model is deleted from this browser; the slates start again from every kind.';
    showSlate();
  }

  // The main asset and the catalogue's snapshot, fetched together, with what has arrived in the
  // status line (a slow connection sees it move): the share of both where the host states their
  // lengths, the kilobytes otherwise (a compressed transfer states the compressed length, which the
  // decoded bytes would overrun).
  async function download(names) {
    const responses = await Promise.all(names.map(async (name) => {
      const response = await fetch(new URL(name, document.baseURI));
      if (!response.ok) throw new Error(`${name} did not load (${response.status})`);
      return response;
    }));
    const lengths = responses.map((response) => (response.headers.get('content-encoding') ? 0 : Number(response.headers.get('content-length')) || 0));
    const total = lengths.every((length) => length > 0) ? lengths.reduce((a, b) => a + b, 0) : 0;
    const received = names.map(() => 0);
    const progress = () => {
      const sum = received.reduce((a, b) => a + b, 0);
      status.textContent = total
        ? `Loading the catalogue… ${Math.round((100 * sum) / total)}% of ${(total / 1024).toFixed(0)} KB`
        : `Loading the catalogue… ${(sum / 1024).toFixed(0)} KB received`;
    };
    return Promise.all(responses.map(async (response, i) => {
      if (!response.body) return response.arrayBuffer();
      const reader = response.body.getReader();
      const parts = [];
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parts.push(value);
        received[i] += value.length;
        progress();
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

  async function open() {
    const started = performance.now();
    status.textContent = 'Loading the catalogue…';
    const [buffer, snapshot] = await download(['shop/fashion-shop.bin', 'shop/fashion-shop.sbst']);
    shop = parseShopAsset(buffer);
    const loaded = performance.now();
    // The catalogue as the site built it, graph included: nothing to add or build here.
    catalogue = sb.Catalogue.fromBytes(new Uint8Array(snapshot));
    if (catalogue.dim !== shop.dim || catalogue.size !== shop.count) throw new Error('the catalogue snapshot does not match the shop asset');
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
    section.dataset.restored = String(restored);
    const { index } = catalogue.stats();
    const kb = (bytes) => (bytes / 1024).toFixed(0);
    status.textContent = `${shop.count.toLocaleString('en')} items (${kb(buffer.byteLength)} KB, and their HNSW graph ` +
      `of ${index.built.toLocaleString('en')} in a ${kb(snapshot.byteLength)} KB snapshot) ready in ${(performance.now() - started).toFixed(0)} ms ` +
      `(${(performance.now() - loaded).toFixed(0)} ms of it to load the snapshot)` + (restored ? '; your model was restored from this browser.' : '.');
    showSlate();
    for (const id of ['#shop-none', '#shop-forget', '#shop-simulate', '#shop-taste', '#shop-taste-later']) $(id).disabled = false;
    section.dataset.ready = 'true';
  }

  $('#shop-none').addEventListener('click', () => {
    const arms = Array.from(slateList.querySelectorAll('.shop-item'), (button) => Number(button.dataset.arm));
    feedback(arms, -1);
  });
  $('#shop-forget').addEventListener('click', () => forget().catch(showError));
  $('#shop-simulate').addEventListener('click', () => {
    $('#shop-simulate').disabled = true;
    simulate().catch(showError).finally(() => { $('#shop-simulate').disabled = false; });
  });
  // The asset loads when the section is first opened.
  section.addEventListener('toggle', () => {
    if (section.open && !shop) open().catch(showError);
  });
  if (section.open) open().catch(showError);
}
