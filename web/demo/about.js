// What the page says about itself: the papers, one note per preset (what to look for, our setting
// beside the paper's, a verdict), one sentence per algorithm. Kept apart from presets.js, which says
// what runs; the verdicts quote measurements from the "Measured" section of docs/performance.md and
// bench/results/, and say so where nothing was measured.

// The project's public repository. A placeholder until the project is published: the one place to
// change it.
export const repositoryUrl = 'https://github.com/sublinear-bandits/sublinear-bandits';

// cite: how the page's labels cite a paper (first author and arXiv id, as the rest of the repository does).
export const papers = {
  '000': { title: 'Linear Bandit Algorithms with Sublinear Time Complexity', authors: 'Shuo Yang, Tongzheng Ren, Sanjay Shakkottai, Eric Price, Inderjit S. Dhillon, Sujay Sanghavi', venue: 'ICML 2022', url: 'https://arxiv.org/abs/2103.02729', cite: 'Yang et al., arXiv:2103.02729' },
  '001': { title: 'A Bandit Approach to Maximum Inner Product Search', authors: 'Rui Liu, Tianyi Wu, Barzan Mozafari', url: 'https://arxiv.org/abs/1812.06360', cite: 'Liu et al., arXiv:1812.06360' },
  '002': { title: 'Matroid Semi-Bandits in Sublinear Time', authors: 'Ruo-Chun Tzeng, Naoto Ohsaka, Kaito Ariu', venue: 'ICML 2024', url: 'https://arxiv.org/abs/2405.17968', cite: 'Tzeng et al., arXiv:2405.17968' },
  '003': { title: 'An Arm-Wise Randomization Approach to Combinatorial Linear Semi-Bandits', authors: 'Kei Takemura, Shinji Ito', url: 'https://arxiv.org/abs/1909.02251', cite: 'Takemura and Ito, arXiv:1909.02251' },
};

// Per preset: the paper it comes from, what to look for, both settings (ours at laptop and full
// scale, the paper's) and a verdict.
export const presetNotes = {
  'paper000-table1': {
    paper: '000',
    lookFor: 'Sub-TS\'s regret curve on top of Linear TS\'s (the index finds the same arms), Sub-Elim\'s close to Linear Elim\'s, and the time-per-step bars of each pair.',
    settings: { laptop: 'K = 5,000 (final), T = 2,000, 2 seeds', full: 'K = 100,000, T = 20,000, 10 seeds', paper: 'K = 5,000 and 100,000, T = 20,000, 10 runs' },
    verdict: 'Sub-TS: regret reproduced (in our laptop runs its curve is Linear TS\'s exactly); speed not at this scale. Over 5,000 arms our exact SIMD scan takes hundredths of a millisecond, less than a search of the HNSW graph would, so Sub-TS starts its graph only from about 45,000 arms (d = 16, default options) and until then answers by the exact scan: Linear TS\'s choices in Linear TS\'s time (in Node at K = 5,000, 0.99 of its total at T = 20,000). '
      + 'At K = 100,000 (benchmark, one seed) Sub-TS\'s steps were 2.6× faster, but building its index took 18 s, so its total was 0.58× Linear TS\'s; the paper\'s speedups are against baselines that took 11–14 ms per step, ours about 0.3 ms. '
      + 'Sub-Elim and Linear Elim: regret reproduced in kind with the default (practical) confidence radius: in our laptop run both reached 805 (2 seeds, identical curves), Linear TS 306; the paper\'s 3,866 is at T = 20,000. With the papers\' worst-case radius (option radius: \'theoretical\') the elimination policies are still exploring at T = 2,000 and their curves are straight lines (about 27,000).'
  },
  'paper000-table2': {
    paper: '000',
    lookFor: 'The Sub-TS curves for shortlists 10, 30 and 100 (one dash pattern each) against Linear TS: a shortlist large enough gives exactly the same decisions (identical curves are listed under the chart), a larger shortlist costs a little more per step.',
    settings: { laptop: 'K = 5,000 (final), T = 2,000, 2 seeds', full: 'K = 100,000, T = 20,000, 10 seeds', paper: 'K = 100,000, T = 20,000, 10 runs; also Sub-Elim rows, not run here' },
    verdict: 'Regret reproduced in kind: in our laptop run (2 seeds) all three shortlists gave Linear TS\'s curve exactly (306 ± 62), as the paper\'s shortlist 100 does. Speed not at laptop scale: over 5,000 arms each Sub-TS answers by the exact scan, as Linear TS does, because a search of its graph would cost more (see Table 1). The full scale was not measured in this page.',
  },
  'paper000-table3': {
    paper: '000',
    lookFor: 'Regret per recommendation (1 unless the held-out user rated the movie 4 or more): the sublinear policies\' curves beside the baselines\'.',
    settings: { laptop: 'a generated MovieLens-format file (200 users, 300 movies) or yours, 20 held-out users rated more than 50 times, T = 2,000, 2 seeds (users)', full: '300 held-out users rated more than 100 times, T = 20,000, 10 seeds (users)', paper: 'MovieLens-1M, 3,952 movies (1,952 at the start, 2 more every 20 steps), T = 20,000, 300 users' },
    verdict: 'Not reproduced here: no ratings data could be downloaded where this page was built, so it was run only on generated files, whose numbers are not comparable to the paper\'s. Choose MovieLens-1M\'s ratings.dat to run it; not measured on real data.',
  },
  'paper000-table4': {
    paper: '000',
    lookFor: 'Sub-TS while arms are added and deleted: its curves against Linear TS\'s (larger shortlists coincide with it) and its time per step, which includes keeping the index current.',
    settings: { laptop: 'K = 3,000, T = 2,000, 2 seeds', full: 'K = 10,000, T = 20,000, 10 seeds', paper: 'K = 10,000, T = 20,000' },
    verdict: 'Regret reproduced in kind: in our laptop run (2 seeds) Sub-TS with every shortlist gave Linear TS\'s curve exactly (323 ± 32), deletions included; the paper\'s shortlist 10 lost a little. Speed not at laptop scale (0.09–0.12 ms per step against 0.07 for the scan, plus 0.2–0.3 s of setup). The full scale was not measured in this page.',
  },
  'paper000-table5': {
    paper: '000',
    lookFor: 'The same comparison with 2, 10 or 50 arms arriving every 20 steps (one dash pattern per rate): more arrivals mean more index insertions, so Sub-TS\'s time per step grows with the rate.',
    settings: { laptop: '3,000 initial arms, T = 2,000, 2 seeds', full: '10,000 initial arms, T = 20,000, 10 seeds', paper: '10,000 initial arms, T = 20,000; also Elim rows, not run here' },
    verdict: 'Regret reproduced in kind: in our laptop run Sub-TS gave Linear TS\'s curve exactly at every rate. Speed not at laptop scale, and the cost of arrivals shows: Sub-TS took 0.06, 0.10 and 0.27 ms per step at 2, 10 and 50 arrivals against 0.06–0.08 for the scan. The full scale was not measured in this page.',
  },
  'paper000-time-vs-k': {
    paper: '000',
    lookFor: 'The time-against-K chart (log-log): a line as steep as K itself (slope 1) is a policy that scans every arm; a flatter line is sublinear. Compare each pair of colours — Linear TS with Sub-TS, Linear Elim with Sub-Elim — and the verdict under the chart, which gives each line\'s growth as measured in your browser.',
    settings: { laptop: 'K = 10^3, 10^4, 10^5 (Linear Elim and Sub-Elim: 10^3, 10^4), d = 16, T = 1,000 steps, 1 seed', full: 'K = 10^3 … 10^6 (Elim pair up to 10^5), T = 2,000, 3 seeds', paper: 'K = 5,000 and 100,000 with arms arriving, T = 20,000, 10 runs (total times only)' },
    verdict: 'Measured in your browser each time (the line under the chart): setup is not in these times — the next experiment, total time against the horizon, counts it. Sub-Elim\'s index holds the arms lifted to d(d + 1) / 2 = 136 dimensions, so its K stop a power of ten below Sub-TS\'s to keep the run short.',
  },
  'paper000-crossover': {
    paper: '000',
    lookFor: 'Where each pair of lines crosses: Sub-TS starts higher (building its index is part of its total) and rises more slowly once its steps are faster; past the crossing it has paid back its index. Sub-Elim builds its stage indexes the same way, but Linear Elim\'s steps are already cheap once its reviews have shrunk the stages, so the elimination pair stays close together.',
    settings: { laptop: 'K = 50,000 fixed Gaussian arms, d = 16, T = 100,000, checkpoints 1, 2, 5, 10, …, 1 seed', full: 'K = 100,000, T = 200,000, 3 seeds', paper: 'K = 5,000 and 100,000, T = 20,000: total times only, Sub-TS 1.5× and 8.6× faster than Linear TS, Sub-Elim 5.3× and 3.7× faster than Linear Elim' },
    verdict: 'Measured in your browser each time: the line under the chart says, for each pair, from which horizon the sublinear policy\'s total was below its baseline\'s, or that it was not within this horizon and where the measured rates of the last checkpoints would put the crossing. In Node (`npm run bench -- horizon`) Sub-TS was ahead from T = 20,000 at K = 10^5 and 10^6, never above 2× before.',
  },
  'catalogue-users': {
    paper: '000',
    lookFor: 'One line per policy: the median user\'s own cumulative regret, with a band from the first to the third quartile over the 100 users. A band that stays narrow while the line flattens means every user learns their own taste from their own steps, although all of them share one catalogue (and Sub-TS one index) that none of them copies. The third line\'s users share one taste (spread 0): its band is what the policies\' own randomness alone spreads. The table\'s last column gives the median user\'s final regret and the bytes of one user\'s model.',
    settings: { laptop: 'K = 2,000 fixed Gaussian arms, d = 16, 100 users (spread 0.5, and 0), T = 20,000 steps (200 per user), 1 seed', full: 'K = 20,000, T = 100,000 (1,000 per user), 3 seeds', paper: 'one user per run (the paper has no experiment with many users); Linear TS and Sub-TS are its Algorithms' },
    verdict: 'Measured in your browser each time (in Node the laptop-scale runs took about 1 s each). In Node (npm run bench -- catalogue) 10,000 SubTS users over one catalogue of 10^6 × 32 fit in one process; bench/results/catalogue.md has their memory, step times and their regret beside a Linear TS with its own copy of the arms.',
  },
  'changing-tastes': {
    paper: '000',
    lookFor: 'The switching world\'s three Linear TS lines: with forgetting \'auto\' (the default) the regret bends back to flat some tens of steps after each switch of taste (every 2,000 steps), as the model finds the change in its own prediction errors and starts again with what it saw since; with \'none\' the policy keeps its old favourites and the curve keeps climbing; a discount of 0.99 (D-LinUCB) pays for forgetting all the time, also between switches. The rotating world\'s two LinUCB lines show the same for a taste that turns slowly.',
    settings: { laptop: 'K = 2,000 Gaussian arms, d = 16, noise 0.5, a switch every 2,000 steps or a rotation every 8,000, T = 6,000, 2 seeds', full: 'T = 20,000, 5 seeds', paper: 'no experiment with changing tastes (its policies keep every observation); the forgetting is D-LinUCB\'s discount (Russac et al. 2019), SW-LinUCB\'s window (Cheung et al. 2019) and detected restarts (Zhao et al. 2020)' },
    verdict: 'Measured (npm run bench -- drift, bench/results/drift.md, 3 seeds): after a switch \'auto\' has 0.10x (LinUCB) and 0.19x (Linear TS) of \'none\'\'s regret, near a restart oracle told the switch times (0.09x, 0.19x); under a rotation 0.14x and 0.19x; where nothing changes 1.00x, with no change found in any run, while a discount of 0.99 costs 13.7x and 7.6x there.',
  },
  'paper001-figure1': {
    paper: '001',
    lookFor: 'The table\'s last column: the (1 − δ)-percentile suboptimality of the arm BoundedME returns must stay at or below ε.',
    settings: { laptop: '2,000 arms, lists of 10,000, ε ∈ {0.1, 0.3, 0.5}, δ = 0.1, 20 instances', full: '10,000 arms, lists of 100,000, 7 values of ε × 5 of δ, 20 instances', paper: '10,000 arms, lists of 100,000, 20 instances per setting' },
    verdict: 'Reproduced: in our laptop run the percentile suboptimality was 0.0007, 0.015 and 0.046 for ε = 0.1, 0.3 and 0.5; at the paper\'s scale (benchmark) the worst over 20 instances was 0.001, 0.015 and 0.088 for ε = 0.05, 0.2 and 0.5 — far inside the guarantee, as the paper reports.',
  },
  'paper001-figures2-3': {
    paper: '001',
    lookFor: 'The precision-against-speedup chart: a method is better the higher (more precise) and further right (faster than the exact scan) its points lie. One colour per method, one point per parameter, circles for Gaussian and triangles for uniform data.',
    settings: { laptop: '2,000 vectors of 1,000 dimensions, 20 queries, 1 seed', full: '10,000 vectors of 10,000 dimensions, 50 queries, 3 seeds', paper: '10,000 vectors of 100,000 dimensions (does not fit the WebAssembly heap)' },
    verdict: 'Not reproduced. In our benchmark at 10,000 × 10,000, with every method ranking its candidates with the exact scan\'s SIMD kernel, all methods are about as fast as the scan at precision@5 ≥ 0.9 (BoundedME 1.07×, LSH-MIPS 1.05× on Gaussian data), and at precision@5 ≥ 0.5 LSH-MIPS (Gaussian) and PCA-MIPS (uniform) beat BoundedME: our scan is SIMD at memory speed and BoundedME still reads 41% of the coordinates at high precision. '
      + 'At laptop scale (1,000 dimensions, 20 queries) one run gave BoundedME 0.5–2.4 ms per query against the scan\'s 1.3–1.5 ms: no reliable speedup at this size, and timings of 20 queries are noisy.',
  },
  'paper003-figure2': {
    paper: '003',
    lookFor: 'Cumulative reward at each cluster angle θ: as the clusters become orthogonal (θ → 90°) the arm-wise methods (PC2UCB, arm-wise TS) should earn more than C2UCB and round-wise TS.',
    settings: { laptop: 'd = 11, N = 2,000, k = 100, T = 10, θ ∈ {67.5°, 90°}, 3 seeds', full: 'θ ∈ {45°, 67.5°, 90°}, 5 seeds', paper: 'd = 11, N = 2,000, k = 100, T = 10, θ over (0°, 90°], 5 trials, each method tuned over 5 parameter values' },
    verdict: 'Reproduced in kind: in our laptop run (3 seeds, fixed parameters) arm-wise TS and PC2UCB earned more than C2UCB and round-wise TS at both angles (at 90°: 272 and 208 against −14 and 135), with wide spreads; Greedy did as well as arm-wise TS here. The benchmark (npm run bench -- cls), tuned as in the paper, found the best arm-wise method ahead at every angle from 67.5°.',
  },
  'paper003-table1': {
    paper: '003',
    lookFor: 'Total reward of each policy (columns of the paper\'s table): in the paper PC2UCB and arm-wise TS lead.',
    settings: { laptop: 'M = 10 promotions, k = 5 users each among 500 per round, T = 20, 2 seeds; generated users or your ratings file', full: 'k ∈ {50, 100, 150, 200}, 100 k users per round, 5 seeds', paper: 'MovieLens 20M, M = 10, k ∈ {50, 100, 150, 200}, T = 20, 5 trials, each method tuned' },
    verdict: 'Not reproduced: with generated users (rewards 0 or 1) the methods are close — in our laptop run Greedy (328) and PC2UCB (321) led, CombLinTS (264) trailed — and the benchmark\'s tuned columns at k = 50–200 were within a few percent of each other with no method first at every k. MovieLens 20M was not available here; runs on a real file were not measured.',
  },
  'matroid-scaling': {
    paper: '002',
    lookFor: 'FasterCUCB\'s regret close to CUCB\'s on each matroid (K = 10,000 at laptop scale), and the time-against-K chart (log-log): CUCB and CTS touch every arm in every round, so their lines rise with K; FasterCUCB\'s should stay nearly flat. Its verdict line gives each line\'s growth as measured in your browser.',
    settings: { laptop: 'regret: K = 10,000, rank 50, T = 2,000, 2 seeds; time against K: K = 10^3, 10^4, 10^5, each policy timed over at least 50 rounds (and 0.25 s, or 2,000 rounds) after its initial pulls (K / 50 rounds), 1 seed', full: 'regret: K = 100,000, T = 20,000, 5 seeds; time against K: K = 10^3 … 10^6', paper: 'no experiment (a theoretical paper); ours follows its claim' },
    verdict: 'Reproduced in the benchmark: from K = 10^3 to 10^6 (T = 50,000) FasterCUCB\'s select time grew ×1.10 (uniform) and ×1.28 (partition) while CUCB\'s grew ×1229 and ×174, at regret within 1.4% of CUCB\'s. In our laptop run (K = 10,000) FasterCUCB\'s regret was within 1.1% of CUCB\'s on every matroid and its steps 6.6× (uniform), 13× (partition), 1.7× (graphic) and 1.2× (transversal) faster; CTS had a third of their regret but the slowest steps. The time-against-K chart measures the growth in your browser.',
  },
};

// One sentence per algorithm, with the policy or index types of simulate() it describes.
export const algorithms = [
  ['Linear TS', ['lin-ts'], 'Thompson sampling for linear bandits: each step samples a parameter from the posterior and plays the arm with the largest inner product with it, found by scanning every arm.'],
  ['Sub-TS', ['sub-ts'], 'Algorithm 4 of Yang et al. (arXiv:2103.02729): Linear TS whose arg max is answered by an HNSW index (a shortlist of p candidates ranked exactly), so a step need not touch every arm.'],
  ['Linear Elim', ['linear-elim'], 'Elimination in doubling stages: arms whose upper confidence bound falls below the best lower bound are dropped; every step scans the remaining arms.'],
  ['Sub-Elim', ['sub-elim'], 'Algorithm 3 of Yang et al. (arXiv:2103.02729): Linear Elim whose stage searches go first through upper bounds on each arm\'s uncertainty (it never grows, so a value once computed bounds it): a few hundred recomputations find the stage\'s most uncertain arm exactly, where Linear Elim scans; an HNSW index over lifted arm vectors answers when the bounds run out and it is cheap.'],
  ['LinUCB (OFUL)', ['lin-ucb'], 'Plays the arm with the largest upper confidence bound on its reward (custom mode only).'],
  ['BoundedME', ['bounded-me'], 'Liu et al. (arXiv:1812.06360): MIPS as best-arm identification — it samples coordinates without replacement and halves the candidates each round, with an (ε, δ) guarantee and no preprocessing.'],
  ['Exact scan', ['exact'], 'Computes every inner product with SIMD: the baseline every speedup is measured against.'],
  ['LSH-MIPS', ['lsh'], 'Simple-LSH: random hyperplane hashes of a transformed vector, a bits per table and b tables; candidates are the items that collide with the query.'],
  ['Greedy-MIPS', ['greedy'], 'Walks per-coordinate sorted lists and scores only a budget B of the most promising items.'],
  ['PCA-MIPS', ['pca-tree'], 'A PCA tree: the query descends to one leaf and scans it; a deeper tree is faster and less precise.'],
  ['HNSW', ['hnsw'], 'A navigable small-world graph (hnswlib) searched greedily: approximate, much faster than a scan on large sets.'],
  ['CUCB', ['cucb'], 'Plays the maximum-weight basis of the matroid under every arm\'s upper confidence bound: work linear in K per round.'],
  ['FasterCUCB', ['faster-cucb'], 'Tzeng et al. (arXiv:2405.17968): rounds the arms\' statistics so that equivalent arms share a bin and maintains the maximum-weight basis dynamically, so a round costs time sublinear in K.'],
  ['CTS', ['cts'], 'Combinatorial Thompson sampling: one posterior sample per arm, then the maximum-weight basis.'],
  ['C2UCB', ['c2ucb'], 'Combinatorial LinUCB: the k arms with the largest upper bounds; on clustered arms the bounds tie within a cluster, so it picks whole clusters.'],
  ['PC2UCB', ['pc2ucb'], 'Takemura and Ito (arXiv:1909.02251): C2UCB with an arm-wise random perturbation of the bonus, which breaks those ties.'],
  ['Round-wise TS / Arm-wise TS', ['comb-ts'], 'Thompson sampling with one posterior sample per round for all arms, or (Takemura and Ito, arXiv:1909.02251) one per arm.'],
  ['CombLinUCB / CombLinTS', ['comb-lin-ucb', 'comb-lin-ts'], 'Earlier combinatorial linear UCB and Thompson sampling baselines that Takemura and Ito (arXiv:1909.02251) compare with.'],
  ['Greedy', ['greedy-cls'], 'Plays the best arms under the current ridge estimate, without exploring.'],
];
