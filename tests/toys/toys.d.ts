// The toys' declarations (file 4 of each recipe in docs/architecture.md), written as a package that
// registers its own types in a module of its own would write them: its classes on the module's
// instance by augmenting `SublinearBandits`, their options as interfaces of the package's shapes,
// and its type names beside the package's unions. tests/js/option-tables.test.js holds them to the
// toy module's option tables and registry, and tests/js/types.test.js compiles
// tests/toys/consumer.ts against them (the toy run, SB_TOYS=1).
import type { ExactIndex, IndexOptions, LinearPolicyOptions, LinUCB, OverCatalogue } from 'sublinear-bandits';

/** The index types the toy module registers beside the package's `IndexType`. */
export type ToyIndexType = 'toy-norm-bound';
/** The linear policies the toy module registers beside the package's `LinearPolicyType`. */
export type ToyLinearPolicyType = 'toy-greedy';

export interface ToyNormBoundIndexOptions extends IndexOptions {
  /** Rows scored between two checks of the norm bound, in [1, 65536]. Default 16. */
  block?: number;
}

export interface ToyGreedyOptions extends LinearPolicyOptions {
  /** Every this many choices, the arm of largest width ||x||_{V^-1}, in [1, 1e6]. Default 20. */
  exploreEvery?: number;
}

// The package exports no base class of its indexes and policies: a class of another module takes
// every member (and `fromBytes`) from one of the package's classes of its family.
declare const IndexBase: typeof ExactIndex;
declare const LinearPolicyBase: typeof LinUCB;

/** An exact search by decreasing norm that stops where Cauchy-Schwarz proves no later item can enter the answer. */
export declare class ToyNormBoundIndex extends IndexBase {
  constructor(options: ToyNormBoundIndexOptions);
}

/** Greedy with forced exploration: the arm of largest estimate, every `exploreEvery`-th choice the arm of largest width. */
export declare class ToyGreedy extends LinearPolicyBase {
  constructor(options: ToyGreedyOptions);
  constructor(options: OverCatalogue<ToyGreedyOptions>);
}

declare module 'sublinear-bandits' {
  interface SublinearBandits {
    readonly ToyNormBoundIndex: typeof ToyNormBoundIndex;
    readonly ToyGreedy: typeof ToyGreedy;
  }
}
