// evaluate() (docs/evaluation.md, "Off-policy evaluation") and the decision log's file formats.
import type { AttributeFilter, Floats, Ids } from './common.js';
import type { LinearPolicy } from './linear.js';

/** Logged decisions: one entry per decision, over the evaluated policy's arms. */
export interface DecisionLog {
  arms: Ids;
  rewards: Floats;
  /** The probability with which the logging policy chose each logged arm, in (0, 1]. */
  propensities: Floats;
  /**
   * A slate log: each position of a slate is a record, and this is its position (0 first). The report
   * then also gives every estimator per position (`positions`). Default: every record at position 0.
   * A position at or beyond the number of arms the policy holds (the largest slate it can show) is
   * INVALID_ARGUMENT, refused before anything is sized by it.
   */
  positions?: Ids;
  /**
   * The eligibility filters each decision was made under (decide()'s `{ exclude, labels, allLabels,
   * noLabels, where }`, or null): the evaluated policy is asked what it would choose under the same filters.
   */
  filters?: ((AttributeFilter & { exclude?: Ids }) | null)[];
}

export type Estimator = 'replay' | 'ips' | 'snips' | 'dm' | 'dr';

export interface EvaluateOptions {
  /**
   * The policy to evaluate (not changed: the estimators work on copies made from its bytes), or its
   * options `{ type: 'lin-ts', ...options }` with `catalogue`, or with `arms` below.
   */
  policy: LinearPolicy | ({ type: 'lin-ucb' | 'lin-ts' | 'sub-ts' | 'linear-elim' | 'sub-elim' } & Record<string, unknown>);
  log: DecisionLog;
  /** Which estimators to compute (default every one). */
  estimators?: Estimator[];
  /** Importance weights pi(a) / p above this are cut to it (IPS, SNIPS, DR); default none. */
  clip?: number;
  /**
   * Draws that estimate a Thompson policy's choice probabilities pi in each context of the log (a
   * position and filters; default 1000). A deterministic policy selects once per context.
   */
  draws?: number;
  /** Ridge regulariser of the direct method's reward model (default 1). */
  lambda?: number;
  /** The arms of a policy given as options without a catalogue. */
  arms?: { ids: Ids; features: Floats };
}

/**
 * One estimate of the mean reward per decision with its 95% normal interval. `value`, `low` and
 * `high` are null when no sample stands behind them (replay matched no record; SNIPS when the
 * policy would play no logged arm).
 */
export interface OffPolicyEstimate {
  value: number | null;
  low: number | null;
  high: number | null;
  /** Records used: the log's length, or the records replay matched. */
  n: number;
  /** Kish's (sum w)^2 / sum w^2 of the importance weights (IPS, SNIPS, DR); n for replay and DM. */
  effectiveSampleSize: number;
}

export interface EvaluationReport {
  /** The policy as it learns, replayed on the log (valid for uniformly random logs). */
  replay?: OffPolicyEstimate;
  /** The policy as it stands (frozen), by inverse propensity scoring. */
  ips?: OffPolicyEstimate;
  snips?: OffPolicyEstimate;
  /** The direct method: a ridge model of the reward fitted on the log, averaged under the policy. */
  dm?: OffPolicyEstimate;
  /** Doubly robust: DM plus the importance-weighted residuals. */
  dr?: OffPolicyEstimate;
  /**
   * How the policy's choice probabilities were estimated: draws per context, the distinct contexts
   * (position and filters) of the log, the distinct arms with a positive probability, the largest
   * standard error of one probability (0 when every context's choice is certain).
   */
  target?: { draws: number; contexts: number; arms: number; standardError: number };
  /** A slate log's estimates per position (null for a position without records). */
  positions?: (Omit<EvaluationReport, 'positions' | 'target'> | null)[];
}

export interface EvaluationClasses {
  /** Off-policy estimates of a policy's mean reward per decision from logged decisions. */
  evaluate(options: EvaluateOptions): EvaluationReport;
  /**
   * A decision log's text, JSON lines (`{"arm":3,"reward":1,"propensity":0.1}` a line) or CSV with a
   * header naming arm, reward and propensity. Numbers are JSON numbers in JSON lines (`"3"` is
   * refused) and decimal text in CSV (integers digits only: `0x10` and `5e6` are refused).
   */
  parseDecisionLog(text: string): {
    arms: Uint32Array; rewards: Float64Array; propensities: Float64Array;
    /** When any record has a `position`. */
    positions?: Uint32Array;
    /** When any record has a filter: `exclude` and `labels` always, the other keys where given. */
    filters?: ({ exclude: Uint32Array; labels: Uint32Array; allLabels?: Uint32Array; noLabels?: Uint32Array; where?: { [name: string]: [number, number] } } | null)[];
  };
  /**
   * One decision as a JSON line that parseDecisionLog reads back: with `position` for a slate's
   * position, `exclude`, `labels`, `allLabels`, `noLabels` and `where` (an open side written null) for
   * the filters it was decided under (other keys are kept and ignored when read).
   */
  formatDecision(decision: { arm: number; reward: number; propensity: number; position?: number; exclude?: Ids; labels?: Ids; allLabels?: Ids; noLabels?: Ids; where?: { [name: string]: [number, number] }; [key: string]: unknown }): string;
}
