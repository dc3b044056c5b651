// Linear bandits, one arm per step (docs/policies.md, "Linear bandits").
import type { AttributeAddOptions, AttributeFilter, Disposable, Floats, Ids } from './common.js';
import type { Catalogue } from './catalogue.js';
import type { IndexType } from './mips.js';

/** `index` option of a policy: any MIPS index type in kebab case with its options. */
export interface PolicyIndexOptions {
  type: IndexType | (string & {});
  seed?: number;
  [option: string]: unknown;
}

/** Options every linear policy accepts. */
export interface LinearPolicyOptions {
  /** Feature dimension d, in [1, 4096]. */
  dim: number;
  /** Ridge regulariser, V_1 = lambda I. Default 1. */
  lambda?: number;
  /**
   * How the confidence radius is set. Default 'practical': c * sigma + lambda ||theta^||_{V^-1}, with
   * sigma the noise scale (the `noise` option, or estimated from the ridge residuals), c =
   * sqrt(2 ln(1/delta)) for LinUCB and the elimination policies and 1 for Thompson sampling. It
   * assumes neither |theta*| <= 1 nor noise 1, and learns on problems from |theta*| 0.5 to 5, noise
   * 0.1 to 1, d 4 to 64 (tests/battery). 'theoretical': the papers' worst-case radii (with `noise`
   * and `bound` as R and S), valid when those are true bounds, and far more exploratory.
   */
  radius?: 'practical' | 'theoretical';
  /** Failure probability of the confidence radius, in (0, 1). Default 0.05. */
  delta?: number;
  /** R, scale of the reward noise. Default: estimated (practical radius), 1 (theoretical radius). */
  noise?: number;
  /** S, bound on the norm of theta* (theoretical radius only). Default 1. */
  bound?: number;
  /** T, the horizon (enters the radii of TS and Elim). Default 10000. */
  horizon?: number;
  /** A fixed confidence radius replacing either rule. */
  beta?: number;
  seed?: number;
  /**
   * decide() and decideSlate(): with this probability, in [0, 1), the arms shown are drawn uniformly
   * from the eligible ones instead of the policy's choice, so that every eligible arm has a known
   * positive propensity (an exploration mix whose logs can be evaluated). Default 0.
   */
  explore?: number;
  /** Decisions kept for their rewards, in [1, 1e6]; beyond it the oldest expires (stats().decisions.expired). Default 1000. */
  maxPending?: number;
  /** Posterior draws of a Thompson policy's propensity estimate, in [1, 1e5]. Default 256. */
  propensityDraws?: number;
  /**
   * How the model forgets what the world no longer says (docs/policies.md, "Tastes that change"). Default
   * 'auto': a change detector on the model's own prediction errors (the rewards of what the policy
   * shows falling persistently below what it predicts) starts the model again from its prior, and
   * the elimination policies bring their eliminated arms back; O(d) an update, and nothing changes
   * where nothing is found. 'none': every observation counts for ever. { discount: g }:
   * an observation of age a weighs g^a, g strictly between 0 and 1 (D-LinUCB). { window: n }: only the last n observations count
   * (SW-LinUCB; n rows of d doubles are kept).
   */
  forgetting?: ForgettingOption;
}

export type ForgettingOption = 'auto' | 'none' | { discount: number } | { window: number };

/** stats().forgetting of every linear policy. */
export interface ForgettingStats {
  kind: 'auto' | 'none' | 'discount' | 'window';
  /** The weight of the observations the model holds (their number without forgetting). */
  effectiveMemory: number;
  /** Changes the 'auto' detector found (each started the model again from its prior). */
  changes: number;
  /** forget() calls with a factor below 1. */
  forgets: number;
  /** The update count at the last change found or forget() call; null before any. */
  lastChange: number | null;
  discount?: number;
  window?: number;
  /** 'auto': the detector's statistic (a change is found when it passes the threshold). */
  detector?: { statistic: number; threshold: number };
}

/** A population estimate a new user starts from (LinUCB, LinTS, SubTS; see `prior`). */
export interface PopulationPrior {
  /** The population's estimate of theta, d numbers: e.g. `pooled.theta()` of a policy fed every user's traffic, or a mean of users' thetas. */
  theta: Floats;
  /**
   * How much the estimate is worth, > 0: a Gaussian prior of precision `weight` I around `theta`, on
   * top of the ridge's lambda I (V_1 = (lambda + weight) I, b_1 = weight theta), i.e. about `weight`
   * unit-norm observations per direction. noise^2 / (the spread of users' thetas around it, per
   * coordinate)^2 is the Bayesian choice; 1 to 10 are sensible at noise 1.
   */
  weight: number;
}

/** Options of the ridge and Thompson policies, whose whole model is the ridge estimate. */
export interface PopulationPriorOptions {
  /**
   * Start from the population instead of from nothing (a cold start): theta^ starts at
   * weight / (lambda + weight) theta, and the estimate is pulled towards theta until the user's own
   * rewards outweigh it. Saved in the user's snapshot. Default none.
   */
  prior?: PopulationPrior;
}

/**
 * LinUCB's and the elimination policies' model in a subspace. Over their own arms, the arms'
 * principal subspace as LinTS's: 'arms' learns theta in modelDim dimensions (the basis B fitted at the
 * first batch and again when the arms double or lose half; the rows scored are the projections B^T x,
 * which the policy keeps, modelDim x 12 bytes an arm; theta() reports B theta^), 'none' in all d
 * dimensions; default 'auto': 'arms' above 64 dimensions or when `modelDim` or `subspaceEnergy` is
 * given, 'none' otherwise and with `prior` (the elimination policies' `search: 'lifted'` is of the
 * arms as they are: a subspace with it throws INVALID_ARGUMENT). Over a catalogue: the catalogue's
 * subspace (its basis; the rows scored are the catalogue's projected rows, which it keeps once for
 * every such user), 'auto' as above where the catalogue's `modelDim` or `subspaceEnergy` count as
 * given. stats().subspace when in use.
 */
export interface CatalogueSubspaceOptions {
  subspace?: 'auto' | 'arms' | 'none';
  /** Own arms: the model's dimension, in [1, 4096], d when above d (default min(d, 256)). Over a catalogue: the catalogue's modelDim, repeated (another value throws INVALID_ARGUMENT). */
  modelDim?: number;
  /** Own arms: the fewest principal directions (at least 8) holding this fraction of the arms' squared norms, in (0, 1] (default 0.8, not LinTS's 0.6: these policies choose optimistically, and optimism explores only the directions kept, so keeping more costs little). Over a catalogue: the catalogue's, repeated (another value throws INVALID_ARGUMENT). */
  subspaceEnergy?: number;
}

/** LinUCB's options: every linear policy's, a population prior, how it keeps its widths, and its subspace. */
export interface LinUCBOptions extends LinearPolicyOptions, PopulationPriorOptions, CatalogueSubspaceOptions {
  /**
   * Every arm's width ||x||^2_{V^-1}. 'kept': corrected by rank-one updates after each observation,
   * O(K d) a step (over a catalogue the user keeps 12 bytes an arm: the row order it last saw and
   * the width). 'direct': computed at every select, O(K d^2) a step, nothing kept per arm (a user
   * whose memory must not grow with the catalogue). Default 'auto': kept.
   */
  widths?: 'auto' | 'kept' | 'direct';
}

/** Audits of an approximate index (SubTS, SubElim; LinTS and LinearElim over a non-exact index). */
export interface ApproximationAuditOptions {
  /**
   * On a random fraction of searches the exact answer checks the index's answer, costing about
   * this fraction of the approximate search work (an HnswIndex's exact scan of the arms not yet in
   * its graph is not counted), in [0, 1]; 0 turns audits off. Default 0.1. Results in
   * stats().approximation.
   */
  auditBudget?: number;
  /** When the audited miss rate is clearly above this, in (0, 1], the shortlist doubles. Default 0.05. */
  targetMissRate?: number;
  /** The largest shortlist the audits may raise it to. Default min(64 x shortlist, 100000). */
  maxShortlist?: number;
  /**
   * An audit's exact scan is spread over the policy's later calls, each advancing it by this many
   * times a search's mean work (at least 128 KiB of rows), so that no call carries a scan of every
   * arm; the audit is recorded when its scan completes. 0 scans in the call that draws the audit
   * (which then plays the exact answer, in SubTS). Default 8.
   */
  auditSlice?: number;
}

export interface ThompsonSamplingOptions extends LinearPolicyOptions, PopulationPriorOptions, ApproximationAuditOptions {
  /** Multiplies the sampling scale (practical: sigma + lambda ||theta^||_{V^-1}; theoretical: beta_t(delta / 4T)). Default 1. */
  inflation?: number;
  /** Candidates retrieved from the index and ranked exactly. Default 30. */
  shortlist?: number;
  /** Default: the option table's (`sb.optionTable('linear-policy', 'lin-ts' | 'sub-ts')`): an exact scan for LinTS; for SubTS an hnsw graph with an M and efConstruction of its own unless given (it is built a slice per step, so its cost decides when SubTS overtakes LinTS). */
  index?: PolicyIndexOptions;
  /** The paper's transform for a negative best reward: x -> [x/sqrt2, sqrt2/2], r -> r/2 + 1/2. Default false. */
  negativeRewardTransform?: boolean;
  /**
   * Where theta is learned. 'arms': in the arms' principal subspace, z = B^T x with B the principal
   * directions of the arms (fitted to the first arms, again whenever they doubled or lost half), so
   * that exploration is not spent on directions the arms barely hold; the index keeps the arms as
   * they are and is searched with B theta~, theta() reports B theta^. 'none': all d dimensions.
   * Default 'auto': 'arms' above 64 dimensions or when `modelDim` or `subspaceEnergy` is given, 'none'
   * otherwise and always with `prior` or `negativeRewardTransform` (they are in d dimensions; 'arms'
   * with them throws INVALID_ARGUMENT). Over a catalogue the subspace is the catalogue's (its
   * `modelDim` and `subspaceEnergy` options), shared by every user. stats().subspace when in use.
   */
  subspace?: 'auto' | 'arms' | 'none';
  /** With a subspace: the model's dimension, in [1, 4096], d when above d (its state is modelDim^2 doubles, not d^2). Default min(d, 256). */
  modelDim?: number;
  /** With a subspace: the fewest principal directions (at least 8, at most modelDim) holding this fraction of the arms' squared norms, in (0, 1]. Default 0.6. */
  subspaceEnergy?: number;
}

/** stats().subspace of a policy learning in its arms' subspace, or of a user in its catalogue's. */
export interface SubspaceStats {
  modelDim: number;
  /** Principal directions in use (at most modelDim). */
  rank: number;
  /** The fraction of the sampled arms' squared norms those directions hold. */
  energy: number;
  /** How many times the basis was fitted. */
  fits: number;
  /** Over a catalogue: the basis is the catalogue's (true), and the version of it the model is in. */
  shared?: boolean;
  version?: number;
  /** LinUCB and the elimination policies over their own arms: the bytes of the arms' projected rows. */
  projectedBytes?: number;
}

/**
 * A user over a catalogue: the policy's options without `dim` (the catalogue's), `index` (Sub-TS
 * searches the catalogue's index; Linear TS scans its rows), `negativeRewardTransform` (it would
 * change the catalogue's vectors): each throws INVALID_ARGUMENT. Every user (LinTS, SubTS, LinUCB,
 * LinearElim, SubElim) learns in the catalogue's subspace under the same `subspace` rule as LinTS over its own arms (the catalogue's
 * `modelDim` and `subspaceEnergy`: a user's other value throws INVALID_ARGUMENT). The policy holds its model only;
 * addArms and removeArms throw INVALID_ARGUMENT (change the catalogue instead). LinearElim and
 * SubElim over a catalogue keep per arm its stage and width (13 bytes an arm, search 'widths');
 * search 'lifted' throws INVALID_ARGUMENT.
 */
export type OverCatalogue<Options> = Omit<Options, 'dim' | 'index' | 'negativeRewardTransform'> & {
  catalogue: Catalogue;
  dim?: never;
  index?: never;
  negativeRewardTransform?: never;
};

/** fromBytes' second argument. */
export interface RestoreOptions {
  /**
   * The catalogue a user's state was saved over, or one loaded from that catalogue's snapshot (the
   * same identity), which may have gained or lost arms since. A user's state without it, over a
   * catalogue of another identity, or a state with its own arms given one: INVALID_ARGUMENT.
   */
  catalogue?: Catalogue;
}

/** stats().approximation of SubTS and SubElim (and LinTS, LinearElim over an approximate index). */
export interface ApproximationStats {
  /** Whether audits run (an approximate index and auditBudget > 0). */
  audited: boolean;
  audits: number;
  /** Audits whose exact answer beat the index's: an arm of higher sampled score (TS), of larger uncertainty (Elim). */
  misses: number;
  missRate: number;
  /** Mean over audits of the score gap (0 for a hit): <x*, theta~> - <x, theta~> (TS), the lifted ||x||^2_{V^-1} / d^2 (Elim). */
  meanGap: number;
  /** meanGap x selections: the score loss the approximation is estimated to have cost so far. */
  regretRisk: number;
  /** How many times the shortlist was doubled. */
  effortRaises: number;
  auditInnerProducts: number;
  /** Whether an audit's exact scan is under way, a slice per call (auditSlice). */
  auditPending: boolean;
  /**
   * SubTS and LinTS only: how many arms that beat an audited answer are ranked with every later
   * search's candidates (at most 8, latest first; removed arms are dropped), from the call that
   * completes the audit on. With auditSlice 0 an audited step plays the exact answer.
   */
  recalledArms?: number;
}

export interface EliminationOptions extends LinearPolicyOptions, ApproximationAuditOptions, CatalogueSubspaceOptions {
  /** MIPS accuracy eta(T) in (0, 1); the last stage is ceil(log2(1/(8 eta))). Default: the option table's, from the horizon and the radius rule (`sb.optionTable('linear-policy', 'sub-elim')`). */
  eta?: number;
  /** L, bound on the arms' norm in the theoretical radius. Default 1. */
  featureBound?: number;
  /** Candidates retrieved from a stage's index and ranked exactly. Default 30. */
  shortlist?: number;
  /** The lifted search's stage indexes. Default: the option table's (`sb.optionTable('linear-policy', 'linear-elim' | 'sub-elim')`): an exact scan for LinearElim, an hnsw graph for SubElim. */
  index?: PolicyIndexOptions;
  /**
   * How stages are searched. 'lifted': a MIPS index per stage over vec(x x^T / d) (d(d+1)/2 floats an
   * arm). 'widths': every arm's ||x||^2_{V^-1} kept by rank-one corrections, O(K d) a step and 13
   * bytes an arm, exact stages at every step (Linear Elim and Sub-Elim then run the same search),
   * playing the arm of largest upper bound among those of the first five stages in play (the lifted
   * search plays the first stage's most uncertain arm). Default 'auto': lifted at d <= 16 over the policy's own arms, widths above and over a catalogue
   * ('lifted' is refused there).
   */
  search?: 'auto' | 'lifted' | 'widths';
}

export interface SubElimOptions extends EliminationOptions {
  /**
   * SubElim only (LinearElim, the linear-time baseline, rejects it). Default true: each stage is
   * searched first through upper bounds on ||x||_{V^-1} (which never grows), recomputing the largest
   * until the best is certified the stage's most uncertain arm; at most a 25th of the stage's arms
   * (between 1,000 and 10,000) a search, about what a scan of the stage costs. A search that runs out
   * scans a stage of up to 250,000 arms exactly (stats().boundFallbacks); over a larger stage it plays
   * its best arm (stats().uncertifiedPlays), and the index answers only when that arm fails the
   * acceptance test and the index is cheap (a graph built by buildIndex()).
   */
  boundsFirst?: boolean;
}

export interface LinearPolicyStats {
  /** Inner products computed by the policy and its indexes since creation. */
  innerProducts: number;
  selections: number;
  updates: number;
  arms: number;
  type: string;
  /** 'practical', 'theoretical' or 'fixed' (the beta option). */
  radiusRule: string;
  /** The noise scale the radius uses: given, or estimated from the ridge residuals. */
  noise: number;
  /** SubTS, LinTS, SubElim and LinearElim. */
  approximation?: ApproximationStats;
  /** A policy learning in its arms' subspace; every user learning in a catalogue's. */
  subspace?: SubspaceStats;
  forgetting: ForgettingStats;
  [key: string]: unknown;
}

/** addArms' third argument. */
export interface ArmAddOptions extends AttributeAddOptions {}

/**
 * Eligibility filters of select, selectSlate, decide and decideSlate, combined with AND: `exclude`
 * and the attribute conditions (labels and values given at addArms, or a catalogue's).
 */
export interface ArmFilters extends AttributeFilter {
  /** Arms never returned (ids not in the set are ignored: the shown items may have left it). */
  exclude?: Ids;
}

/** decide()'s answer. */
export interface Decision {
  arm: number;
  /** The id reward() takes: 1, 2, ... per policy, saved in toBytes(). */
  eventId: number;
  /**
   * The probability that this policy, in the state it decided in and under the same filters, shows
   * this arm: explore / eligible + (1 - explore) * p, with p 1 or 0 for LinUCB and the elimination
   * policies (deterministic given their state), and a Monte Carlo estimate for LinTS and SubTS.
   */
  propensity: number;
  /** The standard error of a Monte Carlo propensity (LinTS, SubTS); 0 where it is exact. */
  propensityError: number;
}

/** decideSlate()'s answer: per position, the probability that this policy shows that arm there. */
export interface SlateDecision {
  arms: Uint32Array;
  eventId: number;
  propensities: Float64Array;
  propensityErrors: Float64Array;
  /**
   * Per position j, the probability that this policy shows the whole prefix arms[0..j] (what
   * 'page-cascade' reads): explore / (E (E - 1) ... (E - j)) + (1 - explore) * q over E eligible arms,
   * q 1 or 0 for LinUCB and the elimination policies, estimated from the same draws as the
   * propensities for LinTS and SubTS. The first equals propensities[0] (decide()'s propensity is its own prefix's).
   */
  prefixPropensities: Float64Array;
  /**
   * The policy's own slate: what it would have shown had it not explored (`arms` itself when it did
   * not). Logged beside each position (formatDecision's `policyArm`), it is the page the exploration
   * mix draws around, which 'page-pi' needs to evaluate the mix's pages. For LinTS and SubTS, the
   * posterior draw the exploration replaced.
   */
  policyArms: Uint32Array;
}

/** The linear policies' types (tests/js/option-tables.test.js holds them to the registry). */
export type LinearPolicyType = 'lin-ucb' | 'lin-ts' | 'sub-ts' | 'linear-elim' | 'sub-elim';

/** The interface every linear policy shares. */
export interface LinearPolicy extends Disposable {
  readonly dim: number;
  readonly armCount: number;
  /** Kebab-case type name (a LinearPolicyType). */
  readonly type: string;
  hasArm(id: number): boolean;
  /** ids: n identifiers; features: n*dim numbers; options.labels: n labels (default 0). */
  addArms(ids: Ids, features: Floats, options?: ArmAddOptions): void;
  /** An unknown id throws UNKNOWN_ID and nothing is removed. */
  removeArms(ids: Ids): void;
  /**
   * An arm currently in the set that the filters admit; EMPTY when there is none. An unknown
   * filter key throws INVALID_ARGUMENT naming it.
   */
  select(filters?: ArmFilters): number;
  /**
   * min(k, eligible) distinct eligible arms, best first: fewer than k when fewer are eligible,
   * EMPTY when none is. LinTS and SubTS: one posterior draw, its top k (SubTS through its index, with
   * a shortlist k - 1 longer); LinUCB: the k largest UCB indices; LinearElim and SubElim: the most
   * uncertain arms still in play of the first stage holding eligible ones, then of the next stages,
   * then (only when the filters admit too few arms in play) eliminated arms by upper bound. Feedback
   * per position: update(arm, reward) for each arm shown. Counts as one selection in stats().
   */
  selectSlate(k: number, filters?: ArmFilters): Uint32Array;
  /**
   * reward: a finite number, at most 1e15 in magnitude. Any arm in the set may be updated, selected
   * or not, any number of times: each call is one observation (x_arm, reward) folded into the ridge
   * estimate, so feedback logged elsewhere (off-policy) can be fed in; an arm not in the set throws
   * UNKNOWN_ID.
   */
  update(arm: number, reward: number): void;
  /**
   * select() recorded as a decision: the arm, an event id and its propensity. The arm's features are
   * kept with the pending decision (at most `maxPending` of them) until reward(eventId, r).
   */
  decide(filters?: ArmFilters): Decision;
  /** selectSlate(k) recorded as one decision, with a propensity per position. */
  decideSlate(k: number, filters?: ArmFilters): SlateDecision;
  /**
   * The reward of a decision: a number for decide(), one per position for decideSlate(), in any
   * order and after any delay, also after the arm left the set or the catalogue. UNKNOWN_ID for an
   * event this policy never decided or that expired, INVALID_ARGUMENT for a second reward or the
   * wrong number of rewards.
   */
  reward(eventId: number, rewards: number | Floats): void;
  /** The ridge estimate theta^. */
  theta(): Float64Array;
  /**
   * Builds the policy's MIPS index for up to `maxItems` waiting arms now (all by default) and returns
   * how many still wait. Sub-TS's and Sub-Elim's HNSW graphs are built a slice per step by default
   * (steps scan the arms not yet in the graph); call it in a Worker or in idle time to have sublinear
   * steps from the next one. Policies without an approximate index return 0.
   */
  buildIndex(maxItems?: number): number;
  /**
   * Weighs everything learned so far by `factor` in [0, 1], for applications that know better than
   * the detector (a new session, a gift bought for someone else): forget(0) starts over from the
   * prior (a fresh model, bit for bit), forget(0.5) halves the old evidence. The elimination
   * policies bring their eliminated arms back. INVALID_ARGUMENT outside [0, 1].
   */
  forget(factor: number): void;
  stats(): LinearPolicyStats;
  /**
   * The saved state (versioned, checksummed; docs/state-format.md). Over a catalogue, the user's
   * model only (a few tens of KB at d = 32) and the catalogue's identity.
   */
  toBytes(): Uint8Array;
}

// Merged into the class: [Symbol.dispose]() where the consumer's lib declares it (common.d.ts).
declare interface LinearPolicyBase extends globalThis.Disposable {}

declare class LinearPolicyBase implements LinearPolicy {
  /** The kebab-case type name, as in `policy: { type }`. */
  static readonly type: string;
  /**
   * Restores a policy saved by toBytes(); it continues exactly as the original. CORRUPT_STATE for
   * damaged or foreign bytes, and for a state of another format version (the message names both).
   */
  static fromBytes<T extends LinearPolicyBase>(this: abstract new (...args: any[]) => T, bytes: Uint8Array, options?: RestoreOptions): T;
  readonly dim: number;
  readonly armCount: number;
  readonly type: string;
  readonly disposed: boolean;
  hasArm(id: number): boolean;
  addArms(ids: Ids, features: Floats, options?: ArmAddOptions): void;
  removeArms(ids: Ids): void;
  select(filters?: ArmFilters): number;
  selectSlate(k: number, filters?: ArmFilters): Uint32Array;
  update(arm: number, reward: number): void;
  decide(filters?: ArmFilters): Decision;
  decideSlate(k: number, filters?: ArmFilters): SlateDecision;
  reward(eventId: number, rewards: number | Floats): void;
  theta(): Float64Array;
  buildIndex(maxItems?: number): number;
  forget(factor: number): void;
  stats(): LinearPolicyStats;
  toBytes(): Uint8Array;
  dispose(): void;
}

/** OFUL: argmax x^T theta^ + beta_t ||x||_{V^-1}; scans every arm. */
export declare class LinUCB extends LinearPolicyBase {
  constructor(options: LinUCBOptions);
  constructor(options: OverCatalogue<LinUCBOptions>);
}
/** Linear Thompson sampling; the max over arms is an exact scan by default. */
export declare class LinTS extends LinearPolicyBase {
  constructor(options: ThompsonSamplingOptions);
  /** Over a catalogue it scans the catalogue's rows exactly, whatever the catalogue's index. */
  constructor(options: OverCatalogue<ThompsonSamplingOptions>);
}
/** Algorithm 3 of the sublinear linear-bandit paper with exact scans. Removing the arm that sets the threshold brings the eliminated arms back. */
export declare class LinearElim extends LinearPolicyBase {
  constructor(options: EliminationOptions);
  /** Over a catalogue it scans the catalogue's rows with kept widths (the lifted search is its own arms' only). */
  constructor(options: OverCatalogue<EliminationOptions>);
}
/** Sub-Elim: staged elimination with a MIPS index per stage (HNSW by default). */
export declare class SubElim extends LinearPolicyBase {
  constructor(options: SubElimOptions);
  /** Over a catalogue it scans the catalogue's rows with kept widths, as LinearElim does. */
  constructor(options: OverCatalogue<SubElimOptions>);
}
/** Sub-TS: Thompson sampling whose arm choice is a shortlist MIPS query (HNSW by default). */
export declare class SubTS extends LinearPolicyBase {
  constructor(options: ThompsonSamplingOptions);
  /** Over a catalogue it searches the catalogue's index with its own theta~ (shortlist, audits as with its own). */
  constructor(options: OverCatalogue<ThompsonSamplingOptions>);
}

/** The classes of this area on a module instance. */
export interface LinearClasses {
  readonly LinUCB: typeof LinUCB;
  readonly LinTS: typeof LinTS;
  readonly LinearElim: typeof LinearElim;
  readonly SubElim: typeof SubElim;
  readonly SubTS: typeof SubTS;
}
