// The shop: a visitor's taste learned over real product images, in the page. The catalogue is
// Fashion-MNIST's 60,000 training images (shop-asset.mjs). The model lives in a Worker
// (shop-worker.js: the module, the catalogue restored from its snapshot with the HNSW graph built, the
// visitor's Sub-TS model and its record in IndexedDB), so that neither the snapshot's restoring nor
// the simulated visitor holds the page still; this file draws what the Worker sends back and fetches
// the thumbnails, a chunk at a time, when an item of the chunk is drawn. The first slate comes from the
// main asset before the snapshot (seven times its size) has arrived: a visitor on a slow connection
// sees items while the graph loads, and what they click then is learned once it has. Nothing leaves
// the page.
import { CurveChart } from './charts.js';
import { parseShopAsset } from './shop-catalogue.js';
import { clicksToHalf, SLATE } from './shop-visitor.js';

export const CLASSES = ['T-shirt/top', 'Trouser', 'Pullover', 'Dress', 'Coat', 'Sandal', 'Shirt', 'Sneaker', 'Bag', 'Ankle boot'];
const SIMULATED_SLATES = 60;
// The simulation's runs a press: a verdict from one run would claim more than it shows.
const SIMULATED_RUNS = 5;
// A simulated visitor whose taste changes turns to the later taste from this slate on.
const TASTE_CHANGES_AT = 30;

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

// The shop's Worker, promised: call(type, request) resolves with its answer. `onProgress` and
// `onRun` hear how far the catalogue's download and a simulation have come.
function shopWorker({ onProgress, onRun }) {
  const worker = new Worker(new URL('./shop-worker.js', import.meta.url), { type: 'module' });
  const waiting = new Map();
  let next = 0;
  worker.onmessage = ({ data }) => {
    if (data.type === 'progress') return onProgress(data);
    if (data.type === 'simulation') return onRun(data.run);
    const { resolve, reject } = waiting.get(data.id);
    waiting.delete(data.id);
    if (data.error) reject(new Error(data.error));
    else resolve(data.result);
  };
  worker.onerror = (event) => {
    event.preventDefault();
    for (const { reject } of waiting.values()) reject(new Error(`the shop's worker failed: ${event.message ?? 'it did not load'}`));
    waiting.clear();
  };
  return {
    call: (type, request = {}) => new Promise((resolve, reject) => {
      next += 1;
      waiting.set(next, { resolve, reject });
      worker.postMessage({ id: next, type, ...request });
    }),
  };
}

export function setUpShop() {
  const $ = (selector) => document.querySelector(selector);
  const section = $('#shop');
  const status = $('#shop-status');
  const error = $('#shop-error');
  const slateList = $('#shop-slate');
  let shop = null;
  let worker = null;
  let chart = null;
  const shownClasses = [];

  function showError(failure) {
    error.textContent = String(failure?.message ?? failure);
    error.hidden = false;
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
    chunkOf(arm).then((grey) => {
      drawImage(canvas, grey.subarray(at, at + pixels), shop.side);
      // For a test to wait on (reading the pixels back would itself draw a console warning).
      canvas.dataset.drawn = 'true';
    }, showError);
    return canvas;
  };
  // An item's picture with its name under it.
  function itemFigure(arm) {
    const caption = document.createElement('span');
    caption.className = 'shop-name';
    caption.textContent = nameOf(arm);
    return [thumbnail(arm), caption];
  }

  // What was learned (the Worker's `view` of the model): theta's image (the basis coordinates back in
  // pixels: a blend of the kinds' mean images), the items it rates highest, the kinds of the recent
  // slates, the step's time and how the slate was searched. Before the catalogue has arrived there is
  // no model yet: the first slate alone, and what it was chosen from.
  function describe(view) {
    const { theta, stats, top } = view;
    if (!theta) {
      section.dataset.graph = 'false';
      section.dataset.innerProducts = '0';
      $('#shop-state').textContent = `${firstText(view)}; the model and the catalogue's HNSW graph are still loading (the status line says how much has arrived).`;
      return;
    }
    // What a test (or a curious visitor) can compare across a reload: the model's estimate.
    section.dataset.theta = theta.map((v) => v.toFixed(6)).join(' ');
    const pixels = shop.side * shop.side;
    const image = new Float64Array(pixels);
    for (let b = 0; b < shop.dim - 1; b++) for (let p = 0; p < pixels; p++) image[p] += theta[b] * shop.picture[b * pixels + p];
    drawImage($('#shop-estimate'), image, shop.side);
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
    const { forgetting, approximation } = stats;
    // When the model noticed a change of taste (its default forgetting, 'auto'), counted back from
    // now in the items it has learned from.
    section.dataset.changes = String(forgetting.changes);
    const ago = forgetting.lastChange === null ? null : stats.updates - forgetting.lastChange;
    section.dataset.changedAgo = ago === null ? '' : String(ago);
    const noticed = forgetting.changes > 0
      ? `it noticed a change of taste ${forgetting.changes === 1 ? 'once' : `${forgetting.changes} times`}, last ${ago} items seen ago, and weighed what it had learned before by a quarter`
      : 'it has noticed no change of taste';
    const searched = view.innerProducts;
    section.dataset.innerProducts = String(searched);
    const size = view.size.toLocaleString('en');
    // What the slate cost, as the catalogue counted it (the graph's walk, the shortlists ranked exactly
    // and any slice of an audit's exact scan). The first slate's search per kind keeps a tenth of the
    // items: so selective a filter is answered by scanning the kind's items instead of the graph.
    const graph = view.first ? null : searched < view.size
      ? `its HNSW graph search scored ${searched.toLocaleString('en')} of the ${size} items`
      : `${searched.toLocaleString('en')} inner products: a search per kind, each scanning that kind's items`;
    section.dataset.graph = String(!view.first && searched < view.size && view.built === view.size);
    const audits = approximation?.audits
      ? `; exact audits found a better item in ${approximation.misses} of ${approximation.audits} searches`
      : '';
    const chosen = view.first ? firstText(view) : `Slate chosen in ${view.milliseconds.toFixed(2)} ms by Sub-TS over ${size} items (${graph}${audits})`;
    $('#shop-state').textContent = `${chosen}; learned from ${stats.updates} items seen, ${noticed}; the model is ${view.modelBytes.toLocaleString('en')} bytes.`;
  }

  // How the first slate was chosen (firstSlate in shop-visitor.js): from the main asset, no model.
  const firstText = (view) => `First slate chosen in ${view.milliseconds.toFixed(2)} ms from the shop's main asset, no model or graph needed: ` +
    `of each kind's ${shop.chunk} items with the largest features, the one nearest the kind's mean direction`;

  // A slate from the Worker, drawn.
  let shown = null;
  function showSlate(view) {
    shown = view;
    const { arms } = view;
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
      button.addEventListener('click', () => act('feedback', { arms, liked: arm }, likedText(arms, arm)));
      const actions = document.createElement('div');
      actions.className = 'shop-actions';
      actions.append(
        smallButton('More like this', `More like ${nameOf(arm)}`, () => act('more', { arm },
          `You asked for more like ${nameOf(arm)}: here are ${CLASSES[shop.labels[arm]]} items the model rates highest.`)),
        smallButton('Not for me', `${nameOf(arm)} is not for me`, () => act('dislike', { arm },
          `Noted: ${nameOf(arm)} is not for you. A new slate follows.`)));
      item.append(button, actions);
      return item;
    }));
    describe(view);
  }

  function smallButton(text, label, action) {
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = text;
    button.setAttribute('aria-label', label);
    button.addEventListener('click', action);
    return button;
  }

  // A click on `liked` (or none, -1), read as a cascade (slateFeedback, in the Worker): the items
  // before it in the slate were passed over, the items after it teach nothing.
  function likedText(arms, liked) {
    const seen = liked < 0 ? arms.length : arms.indexOf(liked) + 1;
    return liked < 0
      ? `None of these: the ${seen} items count as passed over. A new slate follows.`
      : `You liked ${nameOf(liked)}${seen > 1 ? `; the ${seen - 1} items before it count as passed over` : ''}. A new slate follows.`;
  }

  // A visitor's action on the slate, acknowledged at once; the Worker updates the model, chooses the
  // next slate and saves the model. While it works (under a millisecond a slate, plus the saving)
  // the section is marked busy and further actions wait for the new slate.
  function act(type, request, acknowledgement) {
    if (section.dataset.busy) return;
    section.dataset.busy = 'true';
    // The Worker keeps an action made before the catalogue has arrived, and answers it after.
    $('#shop-ack').textContent = section.dataset.ready ? acknowledgement
      : `${acknowledgement.replace(/ A new slate follows\.$/, '')} Learned, and a new slate shown, when the catalogue has arrived.`;
    worker.call(type, request).then((view) => {
      showSlate(view);
      if (slateList.contains(document.activeElement) || document.activeElement === document.body || !document.activeElement) slateList.querySelector('.shop-item')?.focus();
      $('#shop-stored').textContent = `Stored in this browser: your model, ${(view.savedBytes / 1024).toFixed(1)} KB.`;
      section.dataset.storedBytes = String(view.savedBytes);
      section.dataset.saved = String(Date.now());
      delete section.dataset.forgotten;
    }).catch(showError).finally(() => { delete section.dataset.busy; });
  }

  // The simulated visitor, in a sandbox (the Worker's fresh Sub-TS and Linear TS models over the same
  // catalogue, never the visitor's own), SIMULATED_RUNS runs with seeds drawn at each press (the
  // models' and the clicks'), and a verdict that says what the runs show: the liked share at the end,
  // the regret of the two policies paired run by run, the time each took to choose a slate (the same
  // call, timed the same way), and with a later taste, how many clicks the slates took to follow it.
  async function simulate() {
    const parse = (value) => value.split(',').map(Number);
    const first = parse($('#shop-taste').value);
    const later = $('#shop-taste-later').value === '' ? null : parse($('#shop-taste-later').value);
    const tastes = Array.from({ length: SIMULATED_SLATES }, (_, s) => (later && s >= TASTE_CHANGES_AT ? later : first));
    const base = crypto.getRandomValues(new Uint32Array(1))[0] % 1_000_000;
    const verdict = $('#shop-verdict');
    verdict.textContent = `Run 1 of ${SIMULATED_RUNS}…`;
    const { runs, exact } = await worker.call('simulate', { tastes, base, runs: SIMULATED_RUNS });
    drawRegret(runs);
    for (const key of Object.keys(verdict.dataset)) delete verdict.dataset[key];
    Object.assign(verdict.dataset, verdictOf(runs, base, later !== null, exact));
    verdict.textContent = verdictText(verdict.dataset, first, later);
  }

  // The verdict's numbers, as strings (the verdict element's dataset).
  function verdictOf(runs, base, turns, exact) {
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
      exact: String(exact),
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
    if (section.dataset.busy) return;
    section.dataset.busy = 'true';
    try {
      const view = await worker.call('forget');
      delete section.dataset.saved;
      shownClasses.length = 0;
      // Set once the stored model is gone (a reload before that could still restore it).
      section.dataset.forgotten = 'true';
      $('#shop-ack').textContent = 'Your model is deleted from this browser; the slates start again from every kind.';
      showSlate(view);
    } finally {
      delete section.dataset.busy;
    }
  }

  // The main asset (the items' kinds and features), then the first slate from it at once; then the
  // catalogue's snapshot with its graph and the module, while the visitor can already look and click.
  async function open() {
    const started = performance.now();
    status.textContent = 'Loading the shop\'s items…';
    const kb = (bytes) => (bytes / 1024).toFixed(0);
    worker = shopWorker({
      // What has arrived, in the status line (a slow connection sees it move).
      onProgress: ({ part, received, total }) => {
        const share = total ? `${kb(received)} of ${kb(total)} KB (${Math.round((100 * received) / total)}%)` : `${kb(received)} KB received`;
        status.textContent = part === 'asset' ? `Loading the shop's items… ${share}`
          : `Loading the catalogue's HNSW graph… ${share}; the first slate is from the items alone, and what you click is learned when the graph has arrived.`;
      },
      onRun: (run) => { $('#shop-verdict').textContent = `Run ${run + 1} of ${SIMULATED_RUNS}…`; },
    });
    const first = await worker.call('start', { base: document.baseURI });
    shop = parseShopAsset(first.asset);
    showSlate(first);
    section.dataset.firstSlate = String(Math.round(performance.now() - started));
    $('#shop-none').disabled = false;
    // The snapshot (and the Worker's module) only once the first slate's thumbnails are in: on a slow
    // link they would otherwise share its bandwidth, and the visitor would wait longer for pictures
    // while the graph, whose bytes are the same either way, came no sooner.
    await Promise.allSettled(first.arms.map(chunkOf));
    const view = await worker.call('restore');
    section.dataset.restored = String(view.restored);
    status.textContent = `${shop.count.toLocaleString('en')} items (${kb(first.asset.byteLength)} KB, and their HNSW graph ` +
      `of ${view.built.toLocaleString('en')} in a ${kb(view.snapshotBytes)} KB snapshot) ready in ${(performance.now() - started).toFixed(0)} ms ` +
      `(${view.restoreMs.toFixed(0)} ms of it to load the snapshot, in a Worker with ${view.threads} thread${view.threads === 1 ? '' : 's'})` +
      (view.restored ? '; your model was restored from this browser.' : '.');
    // A restored model's own slate replaces the first, unless the visitor is already acting on it (the
    // Worker then answered without one).
    if (view.arms && !section.dataset.busy) showSlate(view);
    else describe({ ...shown, ...view });
    for (const id of ['#shop-forget', '#shop-simulate', '#shop-taste', '#shop-taste-later']) $(id).disabled = false;
    section.dataset.ready = 'true';
  }

  $('#shop-none').addEventListener('click', () => {
    const arms = Array.from(slateList.querySelectorAll('.shop-item'), (button) => Number(button.dataset.arm));
    act('feedback', { arms, liked: -1 }, likedText(arms, -1));
  });
  $('#shop-forget').addEventListener('click', () => forget().catch(showError));
  $('#shop-simulate').addEventListener('click', () => {
    $('#shop-simulate').disabled = true;
    simulate().catch(showError).finally(() => { $('#shop-simulate').disabled = false; });
  });
  // The catalogue loads when the section is first opened.
  let opened = false;
  const openOnce = () => {
    if (opened) return;
    opened = true;
    open().catch(showError);
  };
  section.addEventListener('toggle', () => {
    if (section.open) openOnce();
  });
  if (section.open) openOnce();
}
