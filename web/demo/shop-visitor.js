// The shop's rules, shared by the page (shop.js), its benchmark (bench/shop.mjs) and its tests: how a
// slate is chosen, what a click on it teaches, and the simulated visitor. No DOM: Node runs it too.

// A slate's size, and how many of the last slates' items are not shown again at once.
export const SLATE = 10;
export const NOT_AGAIN = 2;
// A simulated visitor clicks an item of a liked kind with this probability, any other with LIKE_NOT.
export const LIKE = 0.8;
export const LIKE_NOT = 0.05;

// The slate a model shows: its best `size` items (selectSlate), but for a model that has learned
// nothing yet the best item of each kind in turn (a select per kind, filtered by its label), so that
// a new visitor sees every kind at once instead of the one or two a prior draw favours.
export function chooseSlate(model, { size = SLATE, exclude = [], fresh = false, kinds = 10 } = {}) {
  if (!fresh) return Array.from(model.selectSlate(size, { exclude }));
  const arms = [];
  for (let kind = 0; kind < kinds && arms.length < size; kind++) {
    arms.push(model.select({ labels: [kind], exclude }));
  }
  return arms;
}

// The page's first slate for a model that has learned nothing, from the shop's main asset alone
// (parseShopAsset: labels, features, chunk), so that it can be shown before the catalogue's 8 MB
// snapshot and the module have arrived: for each kind in turn, among its first `chunk` items (the
// largest features of the kind, which a linear model's slates come back to, so the thumbnails fetched
// for this slate serve later slates too), the one whose features point most nearly along the kind's
// mean features: a clear example of each kind. It draws nothing from the model, so a click on it
// teaches the model the same whether the catalogue arrived before the click or after.
export function firstSlate({ labels, features, dim, chunk }, { size = SLATE, kinds = 10 } = {}) {
  const means = Array.from({ length: kinds }, () => new Float64Array(dim));
  const counts = new Array(kinds).fill(0);
  labels.forEach((kind, n) => {
    counts[kind] += 1;
    for (let j = 0; j < dim; j++) means[kind][j] += features[n * dim + j];
  });
  const arms = [];
  for (let kind = 0; kind < kinds && arms.length < size; kind++) {
    // Items are numbered by kind, then by the norm of their features, largest first.
    const start = labels.indexOf(kind);
    let best = -1;
    let bestCosine = -Infinity;
    for (let n = start; n < Math.min(start + chunk, labels.length) && labels[n] === kind; n++) {
      let dot = 0;
      let norm = 0;
      for (let j = 0; j < dim; j++) {
        dot += features[n * dim + j] * means[kind][j];
        norm += features[n * dim + j] ** 2;
      }
      const cosine = dot / Math.sqrt(norm || 1);
      if (cosine > bestCosine) [best, bestCosine] = [n, cosine];
    }
    if (best >= 0 && counts[kind] > 0) arms.push(best);
  }
  return arms;
}

// What one slate teaches, as [arm, reward] pairs, under the cascade model of a click (Kveton et al.
// 2015, "Cascading bandits"): the visitor looks at the slate in order and clicks the first item they
// like, so the items before the click were seen and passed over (0), the clicked one is 1, and the
// items after it were perhaps never looked at and teach nothing. With no click (-1) every item was
// passed over. Counting the items after a click as 0 teaches that a liked kind is clicked about once
// in a slate full of it: a signal too weak to follow a change of taste (`npm run bench -- shop`).
export function slateFeedback(arms, clicked) {
  const seen = clicked < 0 ? arms.length : arms.indexOf(clicked) + 1;
  return Array.from(arms).slice(0, seen).map((arm) => [arm, arm === clicked ? 1 : 0]);
}

// A simulated visitor of a fresh `model` (a linear policy over the shop's catalogue): tastes[s], the
// liked kinds at slate s; `random` a stream of uniform numbers in [0, 1) for the clicks (an item of a
// liked kind with probability LIKE, another LIKE_NOT, the first click in slate order counts).
// `feedback` is what a slate teaches (slateFeedback by default). Per slate: the liked share, the
// regret (the best slate's expected clicks minus this one's, item by item), the clicks and the
// model's updates before it, and the milliseconds choosing it took.
export function simulateVisitor(model, labels, tastes, random, { feedback = slateFeedback, size = SLATE } = {}) {
  const shares = [];
  const regrets = [];
  const clicks = [];
  const updates = [];
  const milliseconds = [];
  let clicked = 0;
  let updated = 0;
  let recent = [];
  tastes.forEach((liked, s) => {
    const likes = (arm) => (liked.includes(labels[arm]) ? LIKE : LIKE_NOT);
    const started = performance.now();
    const arms = chooseSlate(model, { size, exclude: recent.flat(), fresh: s === 0 });
    milliseconds.push(performance.now() - started);
    recent = [...recent.slice(1 - NOT_AGAIN), arms];
    shares.push(arms.filter((arm) => liked.includes(labels[arm])).length / arms.length);
    regrets.push(arms.reduce((sum, arm) => sum + LIKE - likes(arm), 0));
    clicks.push(clicked);
    updates.push(updated);
    const click = arms.find((arm) => random() < likes(arm)) ?? -1;
    if (click >= 0) clicked += 1;
    for (const [arm, reward] of feedback(arms, click)) {
      model.update(arm, reward);
      updated += 1;
    }
  });
  return { shares, regrets, clicks, updates, milliseconds };
}

// The clicks after slate `from` until a slate held the liked kinds at least half (Infinity if none did).
export function clicksToHalf({ shares, clicks }, from = 0) {
  const slate = shares.findIndex((share, s) => s >= from && share >= 0.5);
  return slate < 0 ? Infinity : clicks[slate] - clicks[from];
}
