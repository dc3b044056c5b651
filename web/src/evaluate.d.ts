// evaluate() (README, "Off-policy evaluation") and the decision log's file formats.
import type { Floats, Ids } from './common.js';
import type { LinearPolicy } from './linear.js';

/** Logged decisions: one entry per decision, over the evaluated policy's arms. */
export interface DecisionLog {
  arms: Ids;
  rewards: Floats;
  /** The probability with which the logging policy chose each logged arm, in (0, 1]. */
  propensities: Floats;
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
  /** Selections of a copy of the policy that estimate its choice probabilities pi (default 1000). */
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
  /** How the policy's choice probabilities were estimated: draws, distinct arms drawn, the largest standard error of one. */
  target?: { draws: number; arms: number; standardError: number };
}

export interface EvaluationClasses {
  /** Off-policy estimates of a policy's mean reward per decision from logged decisions. */
  evaluate(options: EvaluateOptions): EvaluationReport;
  /** A decision log's text, JSON lines (`{"arm":3,"reward":1,"propensity":0.1}` a line) or CSV with a header naming arm, reward and propensity. */
  parseDecisionLog(text: string): { arms: Uint32Array; rewards: Float64Array; propensities: Float64Array };
  /** One decision as a JSON line that parseDecisionLog reads back (other keys are kept and ignored when read). */
  formatDecision(decision: { arm: number; reward: number; propensity: number; [key: string]: unknown }): string;
}
