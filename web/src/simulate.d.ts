// simulate() (docs/papers.md, "Simulations").
import type { LinearPolicyType } from './linear.js';

/** Environments of the linear family; other families add their own types. */
export interface LinearEnvironmentConfig {
  type: 'linear';
  /** Feature dimension d (16). */
  dim?: number;
  /** Initial number of arms K (1000). */
  arms?: number;
  /** Standard deviation of the Gaussian reward noise (1). */
  noise?: number;
  /** Scale theta* and every arm to unit norm (false: N(0, I) as in the paper). */
  normalize?: boolean;
  /** Every `every` rounds, remove `remove` random arms (never all), then add `add` fresh Gaussian arms. */
  change?: { every?: number; add?: number; remove?: number };
  /**
   * Tastes that change (docs/policies.md, "Tastes that change"): 'switch' turns each user's theta to an
   * orthogonal one of the same norm every `every` rounds (1000) and back at the next switch;
   * 'rotate' turns it in that plane once every `period` rounds (10000). Each user of a many-user run
   * has a phase of its own; regret is against the theta of the round.
   */
  drift?: { kind?: 'switch' | 'rotate'; every?: number; period?: number };
  /** Fixes the instance (theta*, arms, changes); default: derived from the run's seed. */
  seed?: number;
  /**
   * Users over one catalogue (1). Above 1 the arms go into one `Catalogue` and every user gets a
   * policy of their own over it (every linear policy); round t serves user (t - 1) mod users
   * (round-robin), and the result gains `users`. The policy's `index` becomes the catalogue's (default
   * exact for lin-ucb and lin-ts, the catalogue's graph for sub-ts), and each user's seed is derived
   * from the policy's and the user's number. 1 is exactly the simulation of one policy.
   */
  users?: number;
  /**
   * How far users' tastes lie from the shared mean theta* (0.5): user u's theta is
   * theta* + spread |theta*| z_u / sqrt(d) with z_u ~ N(0, I), so 0 makes every user the same and 1
   * puts a typical user as far from the mean as the mean is from 0. Used when users > 1.
   */
  spread?: number;
}

export interface RatingsEnvironmentConfig {
  type: 'ratings';
  /** A MovieLens ratings file: `user::movie::rating::time` or tab-separated `user item rating time` lines. */
  ratings: string | Uint8Array;
  /** ALS rank = feature dimension (16), ALS iterations (10), ALS-WR regulariser (0.1). */
  dim?: number;
  iterations?: number;
  lambda?: number;
  /** Held-out users (300), drawn among users with more than `minRatings` (100) ratings. Run seed s plays held-out user s mod testUsers. */
  testUsers?: number;
  minRatings?: number;
  /** Play this user (held out from the factorisation). */
  user?: number;
  /**
   * The file's users served over one catalogue (1). Above 1 the movies go into one `Catalogue`, and
   * that many held-out users (from held-out user s mod testUsers on, for run seed s) each get a policy
   * of their own over it and are rewarded by their own ratings; round t serves user (t - 1) mod users
   * and the result gains `users`, as in the linear environment. At most the number of held-out users
   * (INVALID_ARGUMENT otherwise, as with `user` beside it). 1 is exactly the simulation of one user.
   */
  users?: number;
  /** Movies at the start (default: all minus those that arrive during the horizon). */
  arms?: number;
  /** Movie arrivals: `add` (2) every `every` (20) rounds in order of first rating; optional random removals. */
  change?: { every?: number; add?: number; remove?: number };
  /** A rating >= threshold (4) gives reward 1. */
  threshold?: number;
  /** 'paper' (default): regret 1 - reward; 'best': best available expected reward minus the chosen one's. */
  regret?: 'paper' | 'best';
  /** Fixes the held-out split and the factorisation (default 0). */
  seed?: number;
}

/**
 * Liu et al.'s (arXiv:1812.06360) adversarial bounded-pulls problem, one fresh instance per round: `arms` lists
 * of
 * `listLength` rewards in {0, 1}, true means uniform in [0, 1], ones drawn before zeros. Played by
 * policy `{ type: 'bounded-me', epsilon, delta }`; a round's regret is the suboptimality of the arm
 * returned (at most epsilon with probability 1 - delta), innerProducts counts pulls / listLength.
 */
export interface MabBpEnvironmentConfig {
  type: 'mab-bp';
  /** Accepted like every environment's seed; the lists are drawn from the run's seed. */
  seed?: number;
  /** K (1000; the paper: 10,000). */
  arms?: number;
  /** N (1000; the paper: 100,000). The lists are never materialised. */
  listLength?: number;
}

/**
 * Liu et al.'s synthetic MIPS experiments: `items` vectors of `dim` entries from N(0, 1) or U[0, 1),
 * one fresh query per round. Played by any index type as the policy, `{ type: 'bounded-me', epsilon,
 * k: 5 }` say; a round's reward is precision@k against the exact top-k, setup is the index build and
 * select the query, so an exact run on the same data gives the online speedup.
 */
export interface MipsEnvironmentConfig {
  type: 'mips';
  items?: number;
  dim?: number;
  dataset?: 'gaussian' | 'uniform';
  /** Fixes the data (default: derived from the run's seed). */
  seed?: number;
}

export type EnvironmentConfig = LinearEnvironmentConfig | RatingsEnvironmentConfig | MabBpEnvironmentConfig | MipsEnvironmentConfig
  | { type: string; [option: string]: unknown };

export interface PolicyConfig {
  /** A linear policy's type, or a semi-bandit or combinatorial one (sb.optionTable() lists every one). */
  type: LinearPolicyType | (string & {});
  index?: { type: string; [option: string]: unknown };
  [option: string]: unknown;
}

interface SimulationConfigBase {
  environment: EnvironmentConfig;
  policy: PolicyConfig;
  /** Number of rounds T. */
  horizon: number;
  /** Record the cumulative sums every this many rounds (and at T); default max(1, floor(T / 1000)). */
  recordEvery?: number;
  /**
   * Linear policies on a 'linear' environment of one user: each round the policy shows a slate of
   * this many arms (selectSlate), every position's reward is drawn (noise per position) and fed back
   * with update(arm, reward); cumulativeReward sums the positions' rewards and cumulativeRegret the
   * slate regret per round (the best `slate` arms' total mean minus the shown arms'). Default 0: one
   * arm a round (select()). Other environments throw INVALID_ARGUMENT.
   */
  slate?: number;
  /**
   * Fraction of all rounds of all runs done; called at most about 100 times, last with 1. It may not
   * call into the module (another simulate(), a method of an index or policy): such a call throws
   * INVALID_ARGUMENT, which stops the run unless caught. dispose() and memoryUsage() are allowed.
   */
  onProgress?: (fraction: number) => void;
}

export interface SingleSeedConfig extends SimulationConfigBase {
  seed?: number;
  seeds?: undefined;
}

export interface ManySeedsConfig extends SimulationConfigBase {
  seed?: undefined;
  seeds: number[];
}

export type SimulationConfig = SingleSeedConfig | ManySeedsConfig;

export interface SimulationSeconds {
  /** Preprocessing: the policy and its indexes over the initial arms. */
  setup: number;
  select: number;
  /** Learning from feedback, and keeping indexes current when arms change. */
  update: number;
  /** The whole run, environment included. */
  total: number;
}

export interface SimulationResult {
  seed: number;
  /** The recorded rounds (1-based). */
  t: Uint32Array;
  cumulativeRegret: Float64Array;
  cumulativeReward: Float64Array;
  seconds: SimulationSeconds;
  /** Inner products computed by the policy and its index (by every user's, with many users). */
  innerProducts: number;
  /** With `environment.users` > 1 only. */
  users?: UsersResult;
}

/** Many users over one catalogue: regret per user, and what the users cost. */
export interface UsersResult {
  count: number;
  /**
   * At each recorded round (aligned with t), the median and quartiles over users of each user's own
   * cumulative regret so far (type-7 quantiles, as NumPy's default).
   */
  regret: { median: Float64Array; q1: Float64Array; q3: Float64Array };
  /**
   * At the end: the size of the catalogue's snapshot and the median size of a user's model (its
   * snapshot payload: V, V^-1, V's Cholesky factor, b, theta^, random engine, counters), which is what
   * each holds in memory to within a few percent; perUserBytes does not grow with the catalogue.
   */
  memory: { catalogueBytes: number; perUserBytes: number };
}

export interface ManySeedsResult {
  runs: SimulationResult[];
  t: Uint32Array;
  /** Mean and sample standard deviation over the runs at each recorded round. */
  mean: { cumulativeRegret: Float64Array; cumulativeReward: Float64Array };
  std: { cumulativeRegret: Float64Array; cumulativeReward: Float64Array };
}

export interface SimulationClasses {
  /** Runs a whole experiment inside wasm. With `seeds`, one run per seed and their mean and std. */
  simulate(config: ManySeedsConfig): ManySeedsResult;
  simulate(config: SingleSeedConfig): SimulationResult;
}
