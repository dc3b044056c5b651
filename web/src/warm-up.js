// The warm-up init() runs before it resolves (issue 15: no call over 50 ms). V8 compiles a wasm
// function only when it is first called, then runs it on baseline code (Liftoff) until it has run
// enough to be optimised in the background; a long loop started on baseline code stays there until
// it returns. So a first large call in a fresh process takes about twice as long as the same call
// once the code has run on a small problem (bench/results/design-measurements.md). The warm-up runs
// the hot paths of large arm sets (exact scans of short and long rows, the lifts, the ridge updates,
// HNSW insertion and search, the reviews) on 2,000 arms with each of the four policies that serve
// them, a few ms a task, and lets the event loop run between the tasks, so that neither init() nor
// the first calls hold the thread for long. Every object it makes is disposed: the wasm heap has
// grown a few MB and holds nothing of it (the helper threads it started stay, with their stacks).
const kArms = 2000;
const kDim = 16;
const kSteps = 20;
const kStepsATask = 5;

// Arms from a fixed sequence (no random state of the caller's is touched).
function warmUpArms() {
  const ids = Uint32Array.from({ length: kArms }, (_, i) => i);
  const features = new Float32Array(kArms * kDim);
  let state = 0x9e3779b9;
  for (let i = 0; i < features.length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    features[i] = state / 2 ** 31 - 1;
  }
  return { ids, features };
}

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

// `sb`: the classes init() defined. Resolves once every task has run.
export async function warmUp(sb) {
  const { ids, features } = warmUpArms();
  for (const name of ['LinTS', 'SubTS', 'LinearElim', 'SubElim']) {
    const policy = new sb[name]({ dim: kDim, horizon: 1000, seed: 1 });
    try {
      policy.addArms(ids, features);
      await nextTask();
      // Sub-TS starts no graph over so few arms by itself: half of one, so that its steps search a
      // graph, scan the arms not in it and insert a slice of them, as at 10^6 arms. (Sub-Elim's
      // default answers through its bounds, not its graphs.)
      if (name === 'SubTS') {
        policy.buildIndex(kArms / 2);
        await nextTask();
      }
      for (let t = 1; t <= kSteps; t++) {
        policy.update(policy.select(), 0);
        if (t % kStepsATask === 0) await nextTask();
      }
    } finally {
      policy.dispose();
    }
  }
}
