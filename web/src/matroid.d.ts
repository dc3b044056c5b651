// Matroid semi-bandits (docs/policies.md, "Matroid semi-bandits").
import type { Disposable, Floats, Ids } from './common.js';
import type { ForgettingOption, ForgettingStats } from './linear.js';

// Merged into the class: [Symbol.dispose]() where the consumer's lib declares it (common.d.ts).
export interface Matroid extends globalThis.Disposable {}

/** A matroid over arms 0..K-1, built with the static factories. */
export declare class Matroid implements Disposable {
  private constructor();
  /** Every set of at most D of the K arms is independent (1 <= D <= K). */
  static uniform(K: number, D: number): Matroid;
  /** At most one arm per group: groupOfArm[k] is arm k's group label; rank = number of groups. */
  static partition(groupOfArm: Ids): Matroid;
  /** Arm k is the edge (edges[2k], edges[2k+1]); independent sets are forests. numVertices <= 2^28. */
  static graphic(numVertices: number, edges: Ids): Matroid;
  /** Arms matchable to distinct right vertices; edges: [arm0, right0, arm1, right1, ...]. K, numRight <= 2^28. */
  static transversal(K: number, numRight: number, edges: Ids): Matroid;
  readonly rank: number;
  readonly groundSetSize: number;
  readonly kind: 'uniform' | 'partition' | 'graphic' | 'transversal';
  readonly disposed: boolean;
  /** Distinct arms below K (INVALID_ARGUMENT / DUPLICATE_ID otherwise). */
  isIndependent(arms: Ids): boolean;
  /** The greedy algorithm (ties by smaller index): a basis of maximum total weight, even with negative weights. */
  maxWeightBasis(weights: Floats): Uint32Array;
  dispose(): void;
}

export interface SemiBanditOptions {
  /** Copied at construction: the matroid may be disposed afterwards. */
  matroid: Matroid;
  /** T (default 10000). */
  horizon?: number;
  /** Rewards lie in [a, b] (defaults 0 and 1). */
  a?: number;
  b?: number;
  seed?: number;
  /**
   * How the arms' counts forget what the world no longer says (docs/policies.md, "Tastes that change").
   * Default 'auto': a change detector on the observed arms' standardised errors (rewards persistently
   * below their arms' means) starts every count over; O(1) an observed arm, and nothing changes where
   * nothing is found. 'none': every pull counts for ever. { discount: g }: a round of age a weighs g^a
   * (the means stay, the confidence widths grow). { window: n }: only the last n rounds count (n
   * rounds' observations are kept).
   */
  forgetting?: ForgettingOption;
}

export interface FasterCUCBOptions extends SemiBanditOptions {
  /** Accuracy/time knob in [1e-5, 1): bases are (1 + epsilon)-approximate under the UCB indices (default: the option table's, from the horizon: `sb.optionTable('semi-bandit-policy', 'faster-cucb')`). */
  epsilon?: number;
}

export interface SemiBanditStats {
  type: string;
  rounds: number;
  armsScanned: number;
  initialPullsDone: boolean;
  /** effectiveMemory counts rounds; lastChange is the round of the last change or forget(). */
  forgetting: ForgettingStats;
  [key: string]: unknown;
}

/** The interface shared by CUCB, FasterCUCB and CTS. */
export interface SemiBanditPolicy extends Disposable {
  /** The basis to play: arm indices. */
  select(): Uint32Array;
  /** rewards[i] belongs to basis[i]; basis is the last selected one (in any order). */
  update(basis: Ids, rewards: Floats): void;
  /**
   * Weighs every arm's count by factor in [0, 1] (the means stay): forget(0) starts over, every arm
   * unpulled again; forget(0.5) halves the old evidence. INVALID_ARGUMENT otherwise, nothing changed.
   */
  forget(factor: number): void;
  readonly rank: number;
  readonly armCount: number;
  readonly rounds: number;
  stats(): SemiBanditStats;
  /** The saved state, the matroid included (versioned, checksummed; docs/state-format.md). */
  toBytes(): Uint8Array;
}

// Merged into the class: [Symbol.dispose]() where the consumer's lib declares it (common.d.ts).
declare interface SemiBanditPolicyBase extends globalThis.Disposable {}

declare class SemiBanditPolicyBase implements SemiBanditPolicy {
  /** The kebab-case type name, as in `policy: { type }`. */
  static readonly type: string;
  /**
   * Restores a policy saved by toBytes(); it continues exactly as the original. CORRUPT_STATE for
   * damaged or foreign bytes, and for a state of another format version (the message names both).
   */
  static fromBytes<T extends SemiBanditPolicyBase>(this: abstract new (...args: any[]) => T, bytes: Uint8Array): T;
  select(): Uint32Array;
  update(basis: Ids, rewards: Floats): void;
  forget(factor: number): void;
  readonly rank: number;
  readonly armCount: number;
  readonly rounds: number;
  readonly disposed: boolean;
  stats(): SemiBanditStats;
  toBytes(): Uint8Array;
  dispose(): void;
}

/** CUCB: greedy over all K UCB indices each round. */
export declare class CUCB extends SemiBanditPolicyBase {
  constructor(options: SemiBanditOptions);
}

/** FasterCUCB: rounded features, one structure per reached query direction; sublinear in K for uniform and partition matroids. */
export declare class FasterCUCB extends SemiBanditPolicyBase {
  constructor(options: FasterCUCBOptions);
}

/** Combinatorial Thompson sampling with Beta posteriors (bounded rewards binarised). */
export declare class CTS extends SemiBanditPolicyBase {
  constructor(options: SemiBanditOptions);
}

/** The classes of this area on a module instance. */
export interface MatroidClasses {
  readonly Matroid: typeof Matroid;
  readonly CUCB: typeof CUCB;
  readonly FasterCUCB: typeof FasterCUCB;
  readonly CTS: typeof CTS;
}
