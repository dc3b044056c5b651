// One catalogue, many users (docs/recommender.md, "Many users over one catalogue"): the arm set and its MIPS index stored
// once.
import type { AttributeAddOptions, Disposable, Floats, Ids, ItemLabels, ItemValues } from './common.js';
import type { PolicyIndexOptions } from './linear.js';

export interface CatalogueOptions {
  /** Feature dimension d of the arms, in [1, 4096]. */
  dim: number;
  /**
   * The one MIPS index every user searches (SubTS users; LinUCB, LinTS, LinearElim and SubElim users scan the rows).
   * Default { type: 'hnsw', M: 8 (16 above 32 dimensions), efConstruction: 16 }: Sub-TS's own graph
   * for that dimension, built a slice per search (or now, with build()).
   */
  index?: PolicyIndexOptions;
  /** Seed of the index (unless index.seed) and of the subspace's range finder. Default 0. */
  seed?: number;
  /**
   * The dimension of the arms' principal subspace that LinTS and SubTS users learn in (docs/policies.md, "Learning
   * where the arms live"): one basis of the catalogue's arms for every user, fitted at the first need
   * and again when the arms doubled or lost half. Default min(d, 32) (a user's model is 3 modelDim^2
   * doubles: 24 KiB at 32, within 64 KiB a user at any d); above d: d. Users learn in it
   * with subspace 'auto' above 64 dimensions, or at any d when this or subspaceEnergy is given.
   */
  modelDim?: number;
  /** The fewest principal directions (at least 8, at most modelDim) that hold this fraction of the arms' squared norms. Default 0.6. */
  subspaceEnergy?: number;
}

/** The arms' labels (one unsigned integer per arm, default 0, or an array per arm) and named values. */
export interface CatalogueAddOptions extends AttributeAddOptions {}

export interface CatalogueStats {
  type: 'catalogue';
  dim: number;
  size: number;
  /**
   * 16 hex digits naming this catalogue: drawn when it was made, kept in its snapshot (every process
   * that loads the snapshot holds the same identity). A user's snapshot records it.
   */
  identity: string;
  /** Arms whose label is not 0. */
  labelled: number;
  /** The index's stats (every user's searches together). */
  index: { type: string; innerProducts: number; [key: string]: unknown };
  innerProducts: number;
  /**
   * Once a user needed it: the shared subspace (rank and energy of the last fit, fits = its version)
   * and the bytes of its basis (d x modelDim doubles) and of the transitions kept for users whose model
   * is in an older version (modelDim^2 doubles per refit), and of the projected rows B^T x kept once
   * LinUCB or elimination users learn in it (modelDim doubles and floats an arm, with its id and label).
   */
  subspace?: { modelDim: number; rank: number; energy: number; fits: number; basisBytes: number; transitionBytes: number; projectedBytes: number };
}

// Merged into the class: [Symbol.dispose]() where the consumer's lib declares it (common.d.ts).
export declare interface Catalogue extends globalThis.Disposable {}

/**
 * Ids, features, optional labels and one MIPS index, shared by any number of policies given
 * `{ catalogue }` (LinUCB, LinTS, SubTS, LinearElim, SubElim), each of which holds its own model only. Changes reach
 * every policy at its next call. dispose() releases this object: policies over the catalogue keep
 * it alive until the last of them is disposed, and keep working.
 */
export declare class Catalogue implements Disposable {
  constructor(options: CatalogueOptions);
  /** The type name ('catalogue'), as in `sb.optionTable('catalogue', 'catalogue')` and `inspectState(bytes).type`. */
  static readonly type: string;
  /** Restores toBytes(); the restored catalogue has the same identity. CORRUPT_STATE for damaged bytes. */
  static fromBytes(bytes: Uint8Array): Catalogue;
  readonly dim: number;
  readonly size: number;
  readonly disposed: boolean;
  has(id: number): boolean;
  /** ids: n identifiers; features: n*dim numbers. DUPLICATE_ID, DIMENSION_MISMATCH, NON_FINITE: nothing added. */
  add(ids: Ids, features: Floats, options?: CatalogueAddOptions): void;
  /** An unknown id throws UNKNOWN_ID and nothing is removed. */
  remove(ids: Ids): void;
  /**
   * New labels for arms in the catalogue (the shapes of add's): the index's structure does not
   * change, and every user sees the new labels at its next call. UNKNOWN_ID: nothing changed.
   */
  setLabels(ids: Ids, labels: ItemLabels): void;
  /** New values for arms (`{ stock: [0, 3] }`; other names keep theirs): no index change. */
  setValues(ids: Ids, values: ItemValues): void;
  /**
   * New features for arms in the catalogue (n*dim numbers), their labels and values kept. The index
   * follows (a graph scans a changed item exactly until a later search's slice links it again, so no
   * call waits), and every user sees a changed arm as a new one at its next call: LinUCB's kept width
   * and an elimination user's stage of the arm start afresh. UNKNOWN_ID, DUPLICATE_ID,
   * DIMENSION_MISMATCH, NON_FINITE: nothing changed.
   */
  setFeatures(ids: Ids, features: Floats): void;
  /** Builds the index for up to maxItems waiting arms now (all by default); returns how many still wait. */
  build(maxItems?: number): number;
  stats(): CatalogueStats;
  /** The whole catalogue (arms, their labels and values, index and identity). */
  toBytes(): Uint8Array;
  dispose(): void;
}

/** The classes of this area on a module instance. */
export interface CatalogueClasses {
  readonly Catalogue: typeof Catalogue;
}
