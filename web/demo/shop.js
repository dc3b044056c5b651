// The shop: a visitor's taste learned over real product images, in the page. The catalogue is
// Fashion-MNIST (shop-asset.mjs), fetched when the section first opens; each item's features are its
// coordinates in the asset's basis and a constant. One Catalogue holds the items and their HNSW
// graph; the visitor is a Sub-TS user over it whose model (a few KB) is kept in this browser's
// IndexedDB with the catalogue's snapshot, and nothing leaves the page.
import { applyTheme, Chart } from './charts.js';
import { seededRandom } from '../../bench/lib/seeded-random.mjs';
import { parseShopAsset } from './shop-catalogue.js';

export const CLASSES = ['T-shirt/top', 'Trouser', 'Pullover', 'Dress', 'Coat', 'Sandal', 'Shirt', 'Sneaker', 'Bag', 'Ankle boot'];
const SLATE = 8;
// Items of the last two slates are not shown again at once.
const NOT_AGAIN = 2;
const DATABASE = 'sublinear-bandits-shop';
const STORE = 'visitor';
// A simulated visitor clicks an item of a liked class with this probability, any other with LIKE_NOT.
const LIKE = 0.8;
const LIKE_NOT = 0.05;
const SIMULATED_SLATES = 60;
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

  // What was learned: theta's image (the basis coordinates back in pixels), the classes of the
  // recent slates, the step's time and the index's state.
  function describe(milliseconds) {
    const theta = user.theta();
    // What a test (or a curious visitor) can compare across a reload: the model's estimate.
    section.dataset.theta = Array.from(theta, (v) => v.toFixed(6)).join(' ');
    const pixels = shop.side * shop.side;
    const image = new Float64Array(pixels);
    for (let b = 0; b < shop.dim - 1; b++) for (let p = 0; p < pixels; p++) image[p] += theta[b] * shop.basis[b * pixels + p];
    drawImage($('#shop-estimate'), image, shop.side);
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
    const stats = user.stats();
    const { forgetting } = stats;
    // When the model noticed a change of taste (its default forgetting, 'auto'): the update it
    // started again at, in slates of this page.
    section.dataset.changes = String(forgetting.changes);
    section.dataset.lastChange = forgetting.lastChange === null ? '' : String(forgetting.lastChange);
    const noticed = forgetting.changes > 0
      ? `it noticed a change of taste ${forgetting.changes === 1 ? 'once' : `${forgetting.changes} times`}, last at slate ${Math.ceil(forgetting.lastChange / SLATE)}, and kept only what came after`
      : 'it has noticed no change of taste';
    $('#shop-state').textContent = `Slate chosen in ${milliseconds.toFixed(2)} ms by Sub-TS over ${catalogue.size} items; ` +
      `the HNSW graph holds ${index.built} of them (${index.pending} waiting, searched exactly until built); ` +
      `${stats.updates} clicks and non-clicks learned, ${noticed}; the model is ${user.toBytes().length.toLocaleString('en')} bytes.`;
  }

  function showSlate() {
    const started = performance.now();
    const exclude = recent.flat();
    const arms = user.selectSlate(SLATE, { exclude });
    const milliseconds = performance.now() - started;
    recent = [...recent.slice(1 - NOT_AGAIN), Array.from(arms)];
    for (const arm of arms) shownClasses.push(shop.labels[arm]);
    slateList.replaceChildren(...Array.from(arms, (arm) => {
      const item = document.createElement('li');
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'shop-item';
      button.dataset.arm = String(arm);
      button.dataset.class = CLASSES[shop.labels[arm]];
      button.setAttribute('aria-label', `Item ${arm}: ${CLASSES[shop.labels[arm]]}. I like this`);
      const canvas = document.createElement('canvas');
      drawImage(canvas, shop.thumbnails.subarray(arm * shop.side * shop.side, (arm + 1) * shop.side * shop.side), shop.side);
      button.append(canvas);
      button.addEventListener('click', () => feedback(arms, arm));
      item.append(button);
      return item;
    }));
    describe(milliseconds);
    return arms;
  }

  async function save() {
    await saveVisitor({ catalogue: catalogue.toBytes(), user: user.toBytes() });
    section.dataset.saved = String(Date.now());
    delete section.dataset.forgotten;
  }

  // A click on `liked` (or none, -1): reward 1 for it, 0 for every other item of the slate.
  function learn(arms, liked) {
    for (const arm of arms) user.update(arm, arm === liked ? 1 : 0);
  }

  function feedback(arms, liked) {
    try {
      learn(arms, liked);
      showSlate();
      save().catch(showError);
    } catch (failure) {
      showError(failure);
    }
  }

  // The simulated visitor: a hidden taste clicks each slate (an item of a liked class with
  // probability LIKE, another with LIKE_NOT; its first click counts) for a fresh visitor, and the
  // same run is made by Linear TS over the same items; regret per slate is the best slate's expected
  // clicks minus the shown one's. With a later taste the visitor turns to it at TASTE_CHANGES_AT.
  async function simulate() {
    const first = $('#shop-taste').value.split(',').map(Number);
    const later = $('#shop-taste-later').value === '' ? null : $('#shop-taste-later').value.split(',').map(Number);
    let liked = first;
    const likes = (arm) => (liked.includes(shop.labels[arm]) ? LIKE : LIKE_NOT);
    const regretOf = (arms) => Array.from(arms).reduce((sum, arm) => sum + LIKE - likes(arm), 0);
    // Per slate, the share of the (current) liked kinds the visitor's slate held.
    const likedShares = [];
    await forget();
    const random = seededRandom(11);
    const baseline = new sb.LinTS({ catalogue, seed: 1 });
    const curves = { 'Sub-TS (the visitor)': [], 'Linear TS': [] };
    const times = { sub: 0, linear: 0 };
    let totals = [0, 0];
    const click = (arms) => Array.from(arms).find((arm) => random() < likes(arm)) ?? -1;
    try {
      for (let slate = 0; slate < SIMULATED_SLATES; slate++) {
        if (later && slate === TASTE_CHANGES_AT) liked = later;
        const started = performance.now();
        const arms = showSlate();
        times.sub += performance.now() - started;
        const linearStarted = performance.now();
        const baselineArms = baseline.selectSlate(SLATE);
        times.linear += performance.now() - linearStarted;
        likedShares.push(Array.from(arms).filter((arm) => liked.includes(shop.labels[arm])).length / arms.length);
        const chosen = click(arms);
        learn(arms, chosen);
        const baselineChosen = click(baselineArms);
        for (const arm of baselineArms) baseline.update(arm, arm === baselineChosen ? 1 : 0);
        totals = [totals[0] + regretOf(arms), totals[1] + regretOf(baselineArms)];
        curves['Sub-TS (the visitor)'].push(totals[0]);
        curves['Linear TS'].push(totals[1]);
        // Let the page draw the slate.
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      showSlate();
      await save();
    } finally {
      baseline.dispose();
    }
    drawRegret(curves);
    const last = shownClasses.slice(-10 * SLATE);
    const share = last.filter((label) => liked.includes(label)).length / last.length;
    const early = curves['Sub-TS (the visitor)'][9] / 10;
    const late = (totals[0] - curves['Sub-TS (the visitor)'][SIMULATED_SLATES - 11]) / 10;
    const verdict = $('#shop-verdict');
    Object.assign(verdict.dataset, { share: share.toFixed(3), early: early.toFixed(3), late: late.toFixed(3), sub: totals[0].toFixed(2), linear: totals[1].toFixed(2) });
    if (later) Object.assign(verdict.dataset, followingOf(likedShares, user.stats().forgetting));
    else for (const key of ['followedAfter', 'noticedAt']) delete verdict.dataset[key];
    verdict.textContent = `After ${SIMULATED_SLATES} slates, ${(100 * share).toFixed(0)}% of the last 10 slates were ${liked.map((c) => CLASSES[c]).join(' or ')} ` +
      `(${(100 / CLASSES.length * liked.length).toFixed(0)}% of the catalogue); regret per slate fell from ${early.toFixed(2)} over the first 10 to ${late.toFixed(2)} over the last 10. ` +
      `Sub-TS's total regret ${totals[0].toFixed(1)} against Linear TS's ${totals[1].toFixed(1)} on the same items ` +
      `(${totals[0] <= totals[1] * 1.1 ? 'within 10%: the sublinear search costs no learning here' : 'more than 10% above it on this run'}); ` +
      `${(times.sub / SIMULATED_SLATES).toFixed(2)} ms a slate against ${(times.linear / SIMULATED_SLATES).toFixed(2)} ms.` +
      (later ? ` ${followingText(verdict.dataset, first, later)}` : '');
  }

  // How the visitor's slates followed a change of taste: the slates after it until the new kind
  // held half of the slates (over 3 slates), and the slate where the model noticed, if it did.
  function followingOf(likedShares, forgetting) {
    let followedAfter = '';
    for (let slate = TASTE_CHANGES_AT + 2; slate < likedShares.length; slate++) {
      if ((likedShares[slate] + likedShares[slate - 1] + likedShares[slate - 2]) / 3 >= 0.5) {
        followedAfter = String(slate - TASTE_CHANGES_AT + 1);
        break;
      }
    }
    const noticed = forgetting.changes > 0 && forgetting.lastChange > TASTE_CHANGES_AT * SLATE;
    return { followedAfter, noticedAt: noticed ? String(Math.ceil(forgetting.lastChange / SLATE)) : '' };
  }

  function followingText({ followedAfter, noticedAt }, first, later) {
    const names = (kinds) => kinds.map((c) => CLASSES[c]).join(' or ');
    const followed = followedAfter === ''
      ? `${names(later)} had not yet held half of the slates ${SIMULATED_SLATES - TASTE_CHANGES_AT} slates after the taste turned from ${names(first)}`
      : `${followedAfter} slates after the taste turned from ${names(first)}, ${names(later)} held half of the slates`;
    const noticed = noticedAt === ''
      ? 'the model did not notice the change as such (one click a slate is little evidence against what it knew: it followed by learning the new clicks)'
      : `the model noticed the change at slate ${noticedAt} and started again from what came after`;
    return `${followed}; ${noticed}.`;
  }

  function drawRegret(curves) {
    const labels = curves['Linear TS'].map((_, i) => i + 1);
    const colours = ['#3b6ea8', '#c0392b'];
    const data = { labels, datasets: Object.entries(curves).map(([label, values], i) => ({ label, data: values, borderColor: colours[i], pointRadius: 0 })) };
    if (chart) {
      chart.data = data;
      chart.update();
      return;
    }
    chart = new Chart($('#shop-regret'), {
      type: 'line',
      data,
      options: { animation: false, maintainAspectRatio: false, scales: { x: { title: { display: true, text: 'slate' } }, y: { title: { display: true, text: 'cumulative regret (expected clicks missed)' } } } },
    });
    applyTheme(chart);
    chart.update();
  }

  async function forget() {
    await forgetVisitor();
    newUser();
    delete section.dataset.saved;
    // Set once the stored model is gone (a reload before that could still restore it).
    section.dataset.forgotten = 'true';
    showSlate();
  }

  async function open() {
    const started = performance.now();
    status.textContent = 'Loading the catalogue…';
    const response = await fetch(new URL('shop/fashion-shop.bin', document.baseURI));
    if (!response.ok) throw new Error(`the catalogue asset did not load (${response.status})`);
    const buffer = await response.arrayBuffer();
    shop = parseShopAsset(buffer);
    const saved = await loadVisitor().catch(() => undefined);
    let restored = false;
    if (saved) {
      try {
        catalogue = sb.Catalogue.fromBytes(saved.catalogue);
        user = sb.SubTS.fromBytes(saved.user, { catalogue });
        restored = true;
      } catch {
        // A state this version cannot read (or a damaged one) is dropped, not shown as an error.
        catalogue?.dispose();
        catalogue = null;
        user = null;
      }
    }
    if (!catalogue) {
      catalogue = new sb.Catalogue({ dim: shop.dim, index: { type: 'hnsw' }, seed: 1 });
      catalogue.add(shop.ids, shop.features, { labels: shop.labels });
      newUser();
    }
    section.dataset.restored = String(restored);
    status.textContent = `${shop.count.toLocaleString('en')} items (${(buffer.byteLength / 1024).toFixed(0)} KB) ready in ${(performance.now() - started).toFixed(0)} ms` +
      (restored ? '; your model was restored from this browser.' : '.');
    showSlate();
    for (const id of ['#shop-none', '#shop-forget', '#shop-simulate', '#shop-taste', '#shop-taste-later']) $(id).disabled = false;
    section.dataset.ready = 'true';
  }

  $('#shop-none').addEventListener('click', () => {
    const arms = Array.from(slateList.querySelectorAll('button'), (button) => Number(button.dataset.arm));
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
