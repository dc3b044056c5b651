// Combinatorial linear semi-bandits (docs/policies.md, "Combinatorial linear semi-bandits"; Takemura and Ito,
// arXiv:1909.02251).
import type { Disposable, Floats, Ids } from './common.js';
import type { ForgettingOption, ForgettingStats } from './linear.js';

/**
 * Options of a fixed-arms index (beyond the papers: sublinear CLS). With `index`, `setArms(features)`
 * builds a MIPS index over the arms (lifted to (x, vec(x x^T)) when the score has a width term) and
 * `select({ k })` retrieves a shortlist of arms with the largest UPPER BOUND on their score,
 * sqrt(w) <= w / (2s) + s / 2, then scores the shortlist exactly. With `certify` (default) the
 * shortlist grows until the k-th chosen score reaches the largest bound left out: with an exact index
 * the super arm is then optimal for the round's scores (up to float tolerance, 1e-5 relative);
 * with an approximate index (`hnsw`) it is as good as the index's recall. For arm-wise TS the bound
 * on the Gaussian draws holds with probability 1 - delta. Quotas (`groups`) and Greedy's random first
 * round score every arm.
 */
export interface ClsIndexOptions {
  /** A MIPS index type: 'exact', or 'hnsw' where available. Other keys go to the index. */
  type: string;
  /** Candidates retrieved first (default 4k). */
  shortlist?: number;
  /** Grow the shortlist until the selection is certified (default true). */
  certify?: boolean;
  /** Arm-wise TS: failure probability of the bound on its Gaussian draws (default 1e-3). */
  delta?: number;
  [option: string]: unknown;
}

export interface ClsPolicyOptions {
  dim: number;
  /** Default super-arm size when select() is not given one. */
  k?: number;
  seed?: number;
  /** Fixed-arms mode only (setArms). */
  index?: ClsIndexOptions;
  /**
   * How the ridge model forgets what the world no longer says (docs/policies.md, "Tastes that change").
   * Default 'auto': a change detector on the observed rows' standardised prediction errors starts
   * the model over from V = lambda I; O(1) an observed row beyond its update, and nothing changes
   * where nothing is found. 'none': every observation counts for ever. { discount: g }: a round's
   * observations of age a weigh g^a. { window: n }: only the last n rounds' observations count
   * (they are kept, dim doubles each).
   */
  forgetting?: ForgettingOption;
}

export interface RidgeOptions extends ClsPolicyOptions {
  /** Ridge regularisation: V_0 = lambda I (default 1). */
  lambda?: number;
}

export interface C2UCBOptions extends RidgeOptions {
  /** Width multiplier alpha (default 1). */
  alpha?: number;
}

export interface PC2UCBOptions extends C2UCBOptions {
  /** Arm-wise perturbation c~ ~ U[0, c] multiplies the width by 1 + c~ (default 1). */
  c?: number;
}

export interface CombTSOptions extends RidgeOptions {
  /** Posterior scale v: draws from N(theta^, v^2 V^-1) (default 1). */
  v?: number;
  /** 'arm' (default): one draw per arm; 'round': one draw per round (Takemura and Ito Algorithm 2). */
  randomization?: 'round' | 'arm';
}

/** Wen et al. (2015): prior N(0, priorVariance I), noise variance noiseVariance. */
export interface CombLinTSOptions extends ClsPolicyOptions {
  /** lambda^2 (default 1). */
  priorVariance?: number;
  /** sigma^2 (default 1). */
  noiseVariance?: number;
}

export interface CombLinUCBOptions extends CombLinTSOptions {
  /** Width multiplier c of the index theta^T x + c sqrt(x^T Sigma x) (default 1). */
  c?: number;
}

export interface SelectOptions {
  /** Size of the super arm, in [1, N]; defaults to the constructor's k. */
  k?: number;
  /** One group label per arm: at most perGroup arms of each group (the promotion problem). */
  groups?: Ids;
  perGroup?: number;
}

export interface ClsStats {
  /** Scored arms plus the index's inner products. */
  innerProducts: number;
  scoredArms: number;
  rounds: number;
  shortlistRounds: number;
  certifiedRounds: number;
  armCount: number;
  index?: { innerProducts: number; [key: string]: unknown };
  /** effectiveMemory counts observed rows; lastChange is the round of the last change or forget(). */
  forgetting: ForgettingStats;
  [key: string]: unknown;
}

/** The interface every combinatorial linear policy shares. */
export interface ClsPolicy extends Disposable {
  readonly dim: number;
  /** Arms registered with setArms (0 before). */
  readonly armCount: number;
  /**
   * Chooses a super arm among this round's arms (features: N*dim, row-major): row indices, best score
   * first. Exactly k distinct rows; with groups, at most perGroup per group (k larger than the quotas
   * allow is INVALID_ARGUMENT).
   */
  select(features: Floats, options?: SelectOptions): Uint32Array;
  /** Chooses among the arms registered with setArms (EMPTY before). */
  select(options?: SelectOptions): Uint32Array;
  /** Registers a fixed arm set (N*dim) for select(options), building the `index` option's index. */
  setArms(features: Floats): void;
  /**
   * Semi-bandit feedback for rows of the last selection (a subset is allowed, each row once), one
   * finite reward per row. The next update needs a new select.
   */
  update(chosen: Ids, rewards: Floats): void;
  /**
   * Weighs the ridge model by factor in [0, 1]: V -> factor (V - lambda I) + lambda I, b -> factor b;
   * forget(0) starts over from V = lambda I. INVALID_ARGUMENT otherwise, nothing changed.
   */
  forget(factor: number): void;
  /** The ridge estimate theta^. */
  theta(): Float64Array;
  stats(): ClsStats;
  /** The saved state (versioned, checksummed; docs/state-format.md). */
  toBytes(): Uint8Array;
}

// Merged into the class: [Symbol.dispose]() where the consumer's lib declares it (common.d.ts).
declare interface ClsPolicyBase<Options> extends globalThis.Disposable {}

declare class ClsPolicyBase<Options> implements ClsPolicy {
  constructor(options: Options);
  /** The kebab-case type name, as in `policy: { type }`. */
  static readonly type: string;
  /**
   * Restores a policy saved by toBytes(); it continues exactly as the original. CORRUPT_STATE for
   * damaged or foreign bytes, and for a state of another format version (the message names both).
   */
  static fromBytes<T extends ClsPolicyBase<any>>(this: abstract new (...args: any[]) => T, bytes: Uint8Array): T;
  readonly dim: number;
  readonly armCount: number;
  readonly disposed: boolean;
  select(features: Floats, options?: SelectOptions): Uint32Array;
  select(options?: SelectOptions): Uint32Array;
  setArms(features: Floats): void;
  update(chosen: Ids, rewards: Floats): void;
  forget(factor: number): void;
  theta(): Float64Array;
  stats(): ClsStats;
  toBytes(): Uint8Array;
  dispose(): void;
}

/** C2UCB (Qin et al. 2014): theta^T x + alpha ||x||_{V^-1}. */
export declare class C2UCB extends ClsPolicyBase<C2UCBOptions> {}
/** Perturbed C2UCB (Takemura and Ito Algorithm 1): theta^T x + (1 + c~) alpha ||x||_{V^-1}, c~ ~ U[0, c] per arm. */
export declare class PC2UCB extends ClsPolicyBase<PC2UCBOptions> {}
/** Thompson sampling with round-wise or arm-wise randomization (Takemura and Ito Algorithm 2). */
export declare class CombTS extends ClsPolicyBase<CombTSOptions> {}
/** CombLinUCB (Wen et al. 2015). */
export declare class CombLinUCB extends ClsPolicyBase<CombLinUCBOptions> {}
/** CombLinTS (Wen et al. 2015): one posterior draw per round. */
export declare class CombLinTS extends ClsPolicyBase<CombLinTSOptions> {}
/** Greedy (Takemura and Ito VII-B1): theta^T x, with a random first round. */
export declare class GreedyCLS extends ClsPolicyBase<RidgeOptions> {}

/** The classes of this area on a module instance. */
export interface ClsClasses {
  readonly C2UCB: typeof C2UCB;
  readonly PC2UCB: typeof PC2UCB;
  readonly CombLinUCB: typeof CombLinUCB;
  readonly CombLinTS: typeof CombLinTS;
  readonly CombTS: typeof CombTS;
  readonly GreedyCLS: typeof GreedyCLS;
}
