import { plantedRatingsText } from './data.js';

// The papers' experiments at a scale a laptop runs in under a minute, each with its full-scale
// setting. A preset is a list of labelled (environment, policy) runs sharing a horizon and seeds;
// `paper` holds the numbers the paper reports for the same rows, shown beside ours.

const linearPolicies = {
  linearElim: { label: 'Linear Elim', policy: { type: 'linear-elim', index: { type: 'exact' } } },
  subElim: (shortlist) => ({ label: `Sub-Elim, shortlist ${shortlist}`, policy: { type: 'sub-elim', shortlist, index: { type: 'hnsw' } } }),
  linearTs: { label: 'Linear TS', policy: { type: 'lin-ts', index: { type: 'exact' } } },
  subTs: (shortlist) => ({ label: `Sub-TS, shortlist ${shortlist}`, policy: { type: 'sub-ts', shortlist, index: { type: 'hnsw' } } }),
};

// Section 7: K is the final arm count; C_change arms arrive every 20 steps.
function growingArms(finalArms, horizon, perChange = 2, remove = 0) {
  const initial = Math.max(100, finalArms - Math.floor(horizon / 20) * (perChange - remove));
  return { type: 'linear', dim: 16, arms: initial, noise: 1, change: { every: 20, add: perChange, remove } };
}

function scaled(small, full) {
  return { small, full };
}

const powerOfTen = (K) => `10^${Math.round(Math.log10(K))}`;

// Runs timed from JavaScript (timed-trial.js) over several numbers of arms K, for the time-against-K
// chart: `method` gives the colour, `group` the dash, `arms` the x position. Default options only,
// so the chart shows what a user gets.
function timedOverK(method, policy, sizes, environment, group) {
  return sizes.map((K) => ({
    method, group, arms: K, timed: true, policy,
    label: `${method}${group ? `, ${group}` : ''}, K = ${powerOfTen(K)}`,
    environment: environment(K),
  }));
}

const staticLinearArms = (K) => ({ type: 'linear', dim: 16, arms: K, noise: 1 });

// Rank 50 in every class: 51 vertices for the graph, 50 right vertices (2 per arm) for transversal.
const rankFiftyMatroids = { uniform: { rank: 50 }, partition: { groups: 50 }, graphic: { vertices: 51 }, transversal: { right: 50, degree: 2 } };

export const presets = [
  {
    id: 'paper000-table1',
    title: 'Sub-Elim and Sub-TS vs linear-time baselines (Yang et al., arXiv:2103.02729, Table 1)',
    source: 'Linear bandits in sublinear time, Table 1: d = 16, 2 arms every 20 steps, shortlist 30',
    metric: 'regret',
    horizon: scaled(2000, 20000),
    seeds: scaled(2, 10),
    runs: ({ full }) => {
      const K = full ? 100000 : 5000;
      const horizon = full ? 20000 : 2000;
      return [linearPolicies.linearElim, linearPolicies.subElim(30), linearPolicies.linearTs, linearPolicies.subTs(30)]
        .map((run) => ({ ...run, environment: growingArms(K, horizon) }));
    },
    paper: {
      columns: ['K', 'policy', 'regret', 'time (s)'],
      rows: [
        [5000, 'Linear Elim', '3866 ± 195', 11.74], [5000, 'Sub-Elim, shortlist 30', '3758 ± 190', '2.22 (1.99)'],
        [5000, 'Linear TS', '582 ± 54', 30.08], [5000, 'Sub-TS, shortlist 30', '605 ± 59', '19.41 (19.29)'],
        [100000, 'Linear Elim', '4804 ± 146', 221.19], [100000, 'Sub-Elim, shortlist 30', '4701 ± 150', '59.40 (3.04)'],
        [100000, 'Linear TS', '721 ± 92', 280.78], [100000, 'Sub-TS, shortlist 30', '734 ± 89', '32.81 (29.10)'],
      ],
    },
  },
  {
    id: 'paper000-table2',
    title: 'Shortlist size p (Yang et al., arXiv:2103.02729, Table 2)',
    source: 'Linear bandits in sublinear time, Table 2: K = 100,000, p in {10, 30, 100}',
    metric: 'regret',
    horizon: scaled(2000, 20000),
    seeds: scaled(2, 10),
    runs: ({ full }) => {
      const K = full ? 100000 : 5000;
      const horizon = full ? 20000 : 2000;
      return [linearPolicies.linearTs, linearPolicies.subTs(10), linearPolicies.subTs(30), linearPolicies.subTs(100)]
        .map((run) => ({ ...run, environment: growingArms(K, horizon) }));
    },
    paper: {
      columns: ['policy', 'regret', 'time (s)'],
      rows: [['Linear TS', '721 ± 92', 280.78], ['Sub-TS, shortlist 10', '736 ± 89', '31.44 (27.75)'], ['Sub-TS, shortlist 100', '721 ± 92', '36.35 (32.64)'],
        ['Linear Elim', '4803 ± 146', 221.19], ['Sub-Elim, shortlist 10', '4691 ± 133', '59.07 (2.85)'], ['Sub-Elim, shortlist 100', '4837 ± 143', '59.84 (3.91)']],
    },
  },
  {
    id: 'paper000-table3',
    title: 'Movie recommendation (Yang et al., arXiv:2103.02729, Table 3)',
    source: 'Linear bandits in sublinear time, Table 3: MovieLens-1M, 16-dimensional ALS movie features, 2 movies arrive every '
      + '20 steps, regret 1 unless the held-out user rated the movie 4 or more. Choose ratings.dat above to run it on the real '
      + 'data; without a file a GENERATED MovieLens-format file stands in (200 users, 300 movies, planted rank 4), '
      + 'so the numbers are not comparable to the paper\'s',
    metric: 'regret',
    horizon: scaled(2000, 20000),
    seeds: scaled(2, 10),
    // Used when no ratings file was chosen.
    defaultRatings: () => plantedRatingsText(),
    runs: ({ full }) => {
      const environment = { type: 'ratings', dim: 16, testUsers: full ? 300 : 20, minRatings: full ? 100 : 50, change: { every: 20, add: 2 } };
      return [linearPolicies.linearElim, linearPolicies.subElim(30), linearPolicies.linearTs, linearPolicies.subTs(30)]
        .map((run) => ({ ...run, environment }));
    },
    paper: {
      columns: ['policy', 'regret', 'time (s)'],
      rows: [['Linear Elim', '3847 ± 212', 29.55], ['Sub-Elim, shortlist 30', '3795 ± 206', '4.22 (3.47)'], ['Sub-Elim, shortlist 100', '3806 ± 206', '4.83 (4.09)'],
        ['Linear TS', '1193 ± 66', 29.83], ['Sub-TS, shortlist 30', '1177 ± 66', '19.59 (19.38)'], ['Sub-TS, shortlist 100', '1202 ± 68', '20.63 (20.41)']],
    },
  },
  {
    id: 'paper000-table4',
    title: 'Arms added and deleted (Yang et al., arXiv:2103.02729, Table 4)',
    source: 'Linear bandits in sublinear time, Table 4: K = 10,000, every 20 steps 2 arms added and 2 deleted',
    metric: 'regret',
    horizon: scaled(2000, 20000),
    seeds: scaled(2, 10),
    runs: ({ full }) => {
      const environment = { type: 'linear', dim: 16, arms: full ? 10000 : 3000, noise: 1, change: { every: 20, add: 2, remove: 2 } };
      return [linearPolicies.linearTs, linearPolicies.subTs(10), linearPolicies.subTs(30), linearPolicies.subTs(100)]
        .map((run) => ({ ...run, environment }));
    },
    paper: {
      columns: ['policy', 'regret', 'time (s)'],
      rows: [['Linear TS', '612 ± 43', 44.8], ['Sub-TS, shortlist 10', '640 ± 42', '25.49 (25.23)'], ['Sub-TS, shortlist 30', '612 ± 43', '26.37 (26.11)'], ['Sub-TS, shortlist 100', '612 ± 43', '29.69 (29.43)']],
    },
  },
  {
    id: 'paper000-table5',
    title: 'Rate of arm arrivals C_change (Yang et al., arXiv:2103.02729, Table 5)',
    source: 'Linear bandits in sublinear time, Table 5: 10,000 initial arms, C_change in {2, 10, 50} every 20 steps',
    metric: 'regret',
    horizon: scaled(2000, 20000),
    seeds: scaled(2, 10),
    runs: ({ full }) => [2, 10, 50].flatMap((perChange) => {
      const environment = { type: 'linear', dim: 16, arms: full ? 10000 : 3000, noise: 1, change: { every: 20, add: perChange, remove: 0 } };
      return [linearPolicies.linearTs, linearPolicies.subTs(30)].map((run) => ({ ...run, label: `${run.label}, C_change ${perChange}`, environment }));
    }),
    paper: {
      columns: ['C_change', 'policy', 'regret', 'time (s)'],
      rows: [[2, 'Linear TS', '566 ± 52', 45.54], [2, 'Sub-TS, shortlist 30', '566 ± 52', '21.01 (20.76)'],
        [10, 'Linear TS', '639 ± 54', 55.99], [10, 'Sub-TS, shortlist 30', '638 ± 54', '24.91 (24.65)'],
        [50, 'Linear TS', '581 ± 45', 106.96], [50, 'Sub-TS, shortlist 30', '619 ± 62', '48.87 (48.62)']],
    },
  },
  {
    id: 'paper000-time-vs-k',
    title: 'Time per step against K, the number of arms (Yang et al., arXiv:2103.02729, our experiment)',
    source: 'Linear bandits in sublinear time claims a step time sublinear in K; its tables show two values of K. Ours: a fixed set of '
      + 'K Gaussian arms, d = 16, default options, each policy timed over every step (its setup apart)',
    metric: 'regret',
    horizon: scaled(1000, 2000),
    seeds: scaled(1, 3),
    // Sub-Elim builds its index over arms lifted to d(d+1)/2 dimensions: its K stop a power of ten lower.
    runs: ({ full }) => {
      const sizes = full ? [1000, 10000, 100000, 1000000] : [1000, 10000, 100000];
      const elimSizes = sizes.slice(0, -1);
      return [
        ...timedOverK('Linear TS', { type: 'lin-ts' }, sizes, staticLinearArms),
        ...timedOverK('Sub-TS', { type: 'sub-ts' }, sizes, staticLinearArms),
        ...timedOverK('Linear Elim', { type: 'linear-elim' }, elimSizes, staticLinearArms),
        ...timedOverK('Sub-Elim', { type: 'sub-elim' }, elimSizes, staticLinearArms),
      ];
    },
    paper: {
      columns: ['K', 'policy', 'time (s), T = 20,000'],
      rows: [[5000, 'Linear TS', 30.08], [5000, 'Sub-TS, shortlist 30', '19.41 (19.29)'], [100000, 'Linear TS', 280.78], [100000, 'Sub-TS, shortlist 30', '32.81 (29.10)'],
        [5000, 'Linear Elim', 11.74], [5000, 'Sub-Elim, shortlist 30', '2.22 (1.99)'], [100000, 'Linear Elim', 221.19], [100000, 'Sub-Elim, shortlist 30', '59.40 (3.04)']],
    },
  },
  {
    id: 'paper000-crossover',
    title: 'When Sub-TS and Sub-Elim pay back their indexes: total time against the horizon (Yang et al., arXiv:2103.02729, our experiment)',
    source: 'Linear bandits in sublinear time reports total times at one horizon; ours: Linear TS against Sub-TS and Linear Elim against Sub-Elim, with default options, over '
      + 'a fixed set of K Gaussian arms (d = 16), the total time (setup included) at checkpoints 1, 2, 5, 10, … of the horizon',
    metric: 'regret',
    horizon: scaled(100000, 200000),
    seeds: scaled(1, 3),
    // The total-time chart's verdicts: where each sublinear method's total drops below its baseline's.
    crossover: [{ baseline: 'Linear TS', sublinear: 'Sub-TS' }, { baseline: 'Linear Elim', sublinear: 'Sub-Elim' }],
    runs: ({ full }) => {
      // Above 44,640 arms, from where Sub-TS's default graph pays (below, it scans like Linear TS).
      const K = full ? 100000 : 50000;
      return [['Linear TS', 'lin-ts'], ['Sub-TS', 'sub-ts'], ['Linear Elim', 'linear-elim'], ['Sub-Elim', 'sub-elim']].map(([method, type]) => ({
        method, label: `${method}, K = ${K.toLocaleString('en-US')}`, timed: true, policy: { type }, environment: staticLinearArms(K) }));
    },
    paper: {
      columns: ['K', 'policy', 'time (s), T = 20,000'],
      rows: [[5000, 'Linear TS', 30.08], [5000, 'Sub-TS, shortlist 30', '19.41 (19.29)'], [100000, 'Linear TS', 280.78], [100000, 'Sub-TS, shortlist 30', '32.81 (29.10)'],
        [5000, 'Linear Elim', 11.74], [5000, 'Sub-Elim, shortlist 30', '2.22 (1.99)'], [100000, 'Linear Elim', 221.19], [100000, 'Sub-Elim, shortlist 30', '59.40 (3.04)']],
    },
  },
  {
    id: 'catalogue-users',
    title: '100 users sharing one catalogue: per-user regret bands (our experiment with the policies of Yang et al., arXiv:2103.02729)',
    source: 'One catalogue, many users: K Gaussian arms (d = 16) stored once in a Catalogue and 100 users over it, each with a taste '
      + 'of their own (theta_u = theta* + spread |theta*| z_u / sqrt(d), spread 0.5) and a policy of their own that holds only its model, '
      + 'served in turn; spread 0 gives every user the same taste, so its band is the policies\' own randomness. Each curve is the median '
      + 'user\'s own cumulative regret, its band the quartiles over the users (q1 to q3)',
    metric: 'regret',
    perUser: true,
    horizon: scaled(20000, 100000),
    seeds: scaled(1, 3),
    // LinUCB is left out: it scores every arm's width (O(K d^2) a step), 19 s for this run in Node.
    runs: ({ full }) => {
      const environment = (spread) => ({ type: 'linear', dim: 16, arms: full ? 20000 : 2000, noise: 1, users: 100, spread });
      return [
        { label: 'Linear TS, 100 users', policy: { type: 'lin-ts' }, environment: environment(0.5) },
        { label: 'Sub-TS, 100 users', policy: { type: 'sub-ts' }, environment: environment(0.5) },
        { label: 'Linear TS, 100 users of one taste (spread 0)', policy: { type: 'lin-ts' }, environment: environment(0) },
      ];
    },
    summary: {
      column: 'a user at the end: regret median (q1–q3); bytes',
      value: (run, results) => {
        const final = (key) => (results.reduce((sum, result) => sum + result.users.regret[key].at(-1), 0) / results.length).toFixed(1);
        return `${final('median')} (${final('q1')}–${final('q3')}); ${results[0].users.memory.perUserBytes.toLocaleString('en-US')} B`;
      },
    },
    paper: {
      columns: ['what', 'goal'],
      rows: [['per-user regret', 'every user learns their own taste: the median user\'s curve flattens, and the band stays narrow'],
        ['what a user costs', 'its model only (O(d^2) bytes, whatever K): the table\'s last column, against the catalogue shared by all'],
        ['measured', 'npm run bench -- catalogue: 10,000 users over 10^6 x 32 in one Node process (bench/results/catalogue.md)']],
    },
  },
  {
    id: 'changing-tastes',
    title: 'Tastes that change: forgetting \'auto\' (the default) against \'none\' and a discount (our experiment with the policies of Yang et al., arXiv:2103.02729)',
    source: 'Gaussian arms (d = 16, noise 0.5) whose taste theta* turns to an orthogonal one and back every 2,000 steps (drift: switch), '
      + 'and one whose taste rotates once every 8,000 steps (drift: rotate). \'auto\' restarts a model when its prediction errors show a '
      + 'change; \'none\' keeps every observation for ever; a discount of 0.99 weighs an observation of age a by 0.99^a (D-LinUCB)',
    metric: 'regret',
    horizon: scaled(6000, 20000),
    seeds: scaled(2, 5),
    runs: () => {
      const switching = { type: 'linear', dim: 16, arms: 2000, noise: 0.5, drift: { kind: 'switch', every: 2000 } };
      const rotating = { type: 'linear', dim: 16, arms: 2000, noise: 0.5, drift: { kind: 'rotate', period: 8000 } };
      return [
        { label: 'Linear TS, auto (default), switching', policy: { type: 'lin-ts' }, environment: switching },
        { label: 'Linear TS, none, switching', policy: { type: 'lin-ts', forgetting: 'none' }, environment: switching },
        { label: 'Linear TS, discount 0.99, switching', policy: { type: 'lin-ts', forgetting: { discount: 0.99 } }, environment: switching },
        { label: 'LinUCB, auto (default), rotating', policy: { type: 'lin-ucb' }, environment: rotating },
        { label: 'LinUCB, none, rotating', policy: { type: 'lin-ucb', forgetting: 'none' }, environment: rotating },
      ];
    },
    paper: {
      columns: ['what', 'goal'],
      rows: [['after a switch', '\'auto\' finds it within some tens of steps and relearns as a fresh model would; \'none\' keeps playing the old favourites'],
        ['with no change', '\'auto\' finds nothing and costs nothing (npm run bench -- drift: no change found in the stationary runs)'],
        ['measured', 'npm run bench -- drift (bench/results/drift.md)']],
    },
  },
  {
    id: 'paper001-figure1',
    title: "BoundedME's (ε, δ) guarantee on adversarial lists (Liu et al., arXiv:1812.06360, Figure 1)",
    source: 'A bandit approach to maximum inner product search, Figure 1: 10^4 arms, lists of 10^5 rewards in {0, 1} '
      + 'with ones drawn first, one fresh instance per round; the (1 − δ)-percentile suboptimality must stay below ε',
    metric: 'regret',
    horizon: scaled(20, 20),
    seeds: scaled(1, 1),
    runs: ({ full }) => {
      const environment = { type: 'mab-bp', arms: full ? 10000 : 2000, listLength: full ? 100000 : 10000 };
      const epsilons = full ? [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6] : [0.1, 0.3, 0.5];
      const deltas = full ? [0.01, 0.05, 0.1, 0.2, 0.3] : [0.1];
      return epsilons.flatMap((epsilon) => deltas.map((delta) => ({
        label: `BoundedME, ε ${epsilon}, δ ${delta}`, policy: { type: 'bounded-me', epsilon, delta }, environment })));
    },
    // Each round is one instance: its regret is that instance's suboptimality.
    summary: {
      column: '(1 − δ)-percentile suboptimality (must be ≤ ε)',
      value: (run, results) => {
        const perRound = results.flatMap((result) => Array.from(result.cumulativeRegret,
          (total, i) => total - (i > 0 ? result.cumulativeRegret[i - 1] : 0))).sort((a, b) => a - b);
        const at = Math.max(0, Math.ceil((1 - run.policy.delta) * perRound.length) - 1);
        return perRound[at].toFixed(4);
      },
    },
    paper: {
      columns: ['figure', 'what the paper shows'],
      rows: [['Figure 1', 'for ε from 0 to 0.6 and every δ in {0.01, 0.05, 0.1, 0.2, 0.3} (20 datasets each), the average over δ of the (1 − δ)-percentile suboptimality lies below ε, usually far below'],
        ['rounds', 'each round is one instance; with a horizon up to 100 every instance is recorded, so the percentile is exact']],
    },
  },
  {
    id: 'paper001-figures2-3',
    title: 'Precision against online speedup on synthetic data (Liu et al., arXiv:1812.06360, Figures 2 and 3)',
    source: 'A bandit approach to maximum inner product search, Figures 2 (Gaussian) and 3 (uniform): BoundedME against '
      + 'LSH-MIPS, Greedy-MIPS and PCA-MIPS, top 5, one query per round; the paper uses 10^4 vectors of 10^5 dimensions, '
      + 'the full scale here 10^4 of 10^4 (10^9 floats would not fit the WebAssembly heap)',
    metric: 'reward',
    tradeoff: true,
    horizon: scaled(20, 50),
    seeds: scaled(1, 3),
    runs: ({ full }) => ['gaussian', 'uniform'].flatMap((dataset) => {
      const environment = { type: 'mips', dataset, items: full ? 10000 : 2000, dim: full ? 10000 : 1000 };
      const method = (name, label, policy) => ({ group: dataset, method: name, label: `${label} (${dataset})`, policy: { k: 5, ...policy }, environment });
      return [
        method('Exact', 'Exact scan', { type: 'exact' }),
        ...[0.05, 0.1, 0.2, 0.4].map((epsilon) => method('BoundedME', `BoundedME ε ${epsilon}`, { type: 'bounded-me', epsilon, delta: 0.1 })),
        ...[[4, 16], [8, 16], [12, 8], [16, 4]].map(([bits, tables]) => method('LSH-MIPS', `LSH a ${bits}, b ${tables}`, { type: 'lsh', bits, tables })),
        ...[0.1, 0.3, 0.6].map((budgetFraction) => method('Greedy-MIPS', `Greedy B ${budgetFraction * 100}%`, { type: 'greedy', budgetFraction })),
        ...[2, 4, 6, 8].map((depth) => method('PCA-MIPS', `PCA tree depth ${depth}`, { type: 'pca-tree', depth })),
      ];
    }),
    paper: {
      columns: ['figure', 'what the paper shows'],
      rows: [['Figures 2, 3', 'at small speedups every method is precise; as the speedup grows the others lose precision quickly while BoundedME stays high, with no preprocessing'],
        ['ours', 'the chart below the curves: precision@5 against the select-time ratio to the exact scan on the same data; bench/results/mips-paper.md has the benchmark']],
    },
  },
  {
    id: 'paper003-figure2',
    title: 'Arm-wise randomization on clustered arms (Takemura and Ito, arXiv:1909.02251, Figure 2)',
    source: 'Arm-wise randomization for combinatorial linear semi-bandits, Figure 2: d = 11, N = 2000, k = 100, T = 10, clusters at angle θ',
    metric: 'reward',
    horizon: scaled(10, 10),
    seeds: scaled(3, 5),
    runs: ({ full }) => (full ? [Math.PI / 4, (3 * Math.PI) / 8, Math.PI / 2] : [(3 * Math.PI) / 8, Math.PI / 2]).flatMap((angle) => {
      const environment = { type: 'clustered', dim: 11, arms: 2000, k: 100, angle };
      const degrees = Math.round((angle * 180) / Math.PI);
      return [
        { label: `C2UCB, θ ${degrees}°`, policy: { type: 'c2ucb', lambda: 1, alpha: 1 } },
        { label: `PC2UCB, θ ${degrees}°`, policy: { type: 'pc2ucb', lambda: 1, alpha: 1, c: 1 } },
        { label: `Round-wise TS, θ ${degrees}°`, policy: { type: 'comb-ts', randomization: 'round', v: 0.3 } },
        { label: `Arm-wise TS, θ ${degrees}°`, policy: { type: 'comb-ts', randomization: 'arm', v: 0.3 } },
        { label: `Greedy, θ ${degrees}°`, policy: { type: 'greedy-cls' } },
      ].map((run) => ({ ...run, environment }));
    }),
    paper: {
      columns: ['figure', 'what the paper shows'],
      rows: [['Figure 2', 'cumulative reward against θ: arm-wise randomization (PC2UCB, arm-wise TS) beats C2UCB and round-wise TS as the clusters become orthogonal (θ → 90°)'],
        ['parameters', 'the paper tunes each over 5 geometric values in [1e-2, 1e2]; these runs use fixed values (npm run bench -- cls tunes)']],
    },
  },
  {
    id: 'paper003-table1',
    title: 'Sending promotions (Takemura and Ito, arXiv:1909.02251, Table I)',
    source: 'Arm-wise randomization for combinatorial linear semi-bandits, Table I: M = 10 promotions, k users each among '
      + 'N = 100 k drawn per round, T = 20. With a MovieLens file (the file input above) users are its users (ALS factors) '
      + 'and rewards their ratings; without one, a generated clustered population stands in (rewards 0 or 1, so not comparable '
      + 'in scale to the paper\'s ratings)',
    metric: 'reward',
    horizon: scaled(20, 20),
    seeds: scaled(2, 5),
    runs: ({ full }) => (full ? [50, 100, 150, 200] : [5]).flatMap((k) => {
      const environment = { type: 'promotion', promotions: 10, k, users: 100 * k, rank: full ? 50 : 10 };
      return [
        { label: `Greedy, k ${k}`, policy: { type: 'greedy-cls' } },
        { label: `CombLinUCB, k ${k}`, policy: { type: 'comb-lin-ucb' } },
        { label: `CombLinTS, k ${k}`, policy: { type: 'comb-lin-ts' } },
        { label: `C2UCB, k ${k}`, policy: { type: 'c2ucb', alpha: 0.3 } },
        { label: `PC2UCB, k ${k}`, policy: { type: 'pc2ucb', alpha: 0.3, c: 1 } },
        { label: `Round-wise TS, k ${k}`, policy: { type: 'comb-ts', randomization: 'round', v: 0.3 } },
        { label: `Arm-wise TS, k ${k}`, policy: { type: 'comb-ts', randomization: 'arm', v: 0.3 } },
      ].map((run) => ({ ...run, environment }));
    }),
    paper: {
      columns: ['k', 'Greedy', 'CombLinUCB', 'CombLinTS', 'C2UCB', 'PC2UCB', 'Round-wise TS', 'Arm-wise TS'],
      rows: [[50, 1588.6, 2090.5, 1749.2, 2183.0, 2304.5, 2121.9, 2304.3], [100, 3765.1, 5032.0, 3850.3, 4879.5, 5359.8, 4744.4, 5298.0],
        [150, 5471.6, 7653.0, 6212.0, 7276.0, 8210.6, 7243.8, 7945.0], [200, 7939.6, 10092.5, 8918.4, 9708.5, 11147.2, 9724.1, 10928.2]],
    },
  },
  {
    id: 'matroid-scaling',
    title: 'FasterCUCB against CUCB and CTS on matroids (our experiment for Tzeng et al., arXiv:2405.17968)',
    source: 'Matroid semi-bandits in sublinear time has no experiment; ours: Bernoulli arms on uniform, partition, graphic and transversal matroids of rank 50',
    metric: 'regret',
    horizon: scaled(2000, 20000),
    seeds: scaled(2, 5),
    runs: ({ full }) => {
      const K = full ? 100000 : 10000;
      return Object.entries(rankFiftyMatroids).flatMap(([kind, shape]) => {
        const environment = { type: 'matroid', K, matroid: { kind, ...shape } };
        return [
          { label: `CUCB, ${kind}`, policy: { type: 'cucb' } },
          { label: `FasterCUCB, ${kind}`, policy: { type: 'faster-cucb', epsilon: 0.1 } },
          { label: `CTS, ${kind}`, policy: { type: 'cts' } },
        ].map((run) => ({ ...run, environment }));
      });
    },
    // The time-against-K chart: each policy's time per round after its initial pulls (K / 50
    // rounds that only visit unpulled arms), over at least 50 rounds and 0.25 s, or 2,000 rounds.
    scaling: ({ full }) => {
      const sizes = full ? [1000, 10000, 100000, 1000000] : [1000, 10000, 100000];
      return Object.entries(rankFiftyMatroids).flatMap(([kind, shape]) => [['CUCB', 'cucb'], ['FasterCUCB', 'faster-cucb'], ['CTS', 'cts']]
        .flatMap(([method, type]) => timedOverK(method, { type }, sizes, (K) => ({ type: 'matroid', K, matroid: { kind, ...shape } }), kind)))
        .map((run) => ({ ...run, seeds: 1, steadyRounds: { min: 50, max: 2000, seconds: 0.25 } }));
    },
    paper: {
      columns: ['what', 'goal'],
      rows: [['select time', 'grows clearly sublinearly in K for FasterCUCB (K ×1000 → time < ×30)'], ['regret', 'FasterCUCB within 10% of CUCB'],
        ['measured', 'FasterCUCB select time ×1.10 (uniform) and ×1.28 (partition) from K = 10^3 to 10^6, CUCB ×1229 and ×174 (npm run bench -- matroid; bench/results/matroid-million.md)']],
    },
  },
];

export function findPreset(id) {
  return presets.find((preset) => preset.id === id) ?? presets[0];
}
