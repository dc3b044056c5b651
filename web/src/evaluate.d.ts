// evaluate() (docs/evaluation.md, "Off-policy evaluation") and the decision log's file formats.
import type { AttributeFilter, Floats, Ids } from './common.js';
import type { Catalogue } from './catalogue.js';
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
   * The page (slate) each record was shown on, e.g. decideSlate()'s event id: the records of a page are
   * consecutive and share it, with distinct positions. Without it, a record at position 0 starts a new
   * page. Read by the page estimators ('page-ips', 'page-pi', 'page-cascade'); given, it is checked (INVALID_ARGUMENT
   * for a position repeated within a page, a page id that comes back after another page, pages without positions).
   */
  pages?: Ids;
  /**
   * The logging policy's probability of each record's page prefix (the page's items at positions 0 up
   * to and including the record's), decideSlate()'s `prefixPropensities`: one per record, in (0, 1].
   * Read by 'page-cascade' only (one policy or a population), which refuses a log without it.
   */
  prefixPropensities?: Floats;
  /**
   * The arm the logging policy itself would have shown at each record's position had it not explored,
   * decideSlate()'s `policyArms` (the shown arm on a page it did not explore): one per record, an arm
   * the evaluated policy holds. Read by 'page-pi' only, which with it evaluates the pages of the
   * exploration mix of a deterministic logger (LinUCB, the elimination policies), and without it the
   * uniform logger's only.
   */
  policyArms?: Ids;
  /**
   * The eligibility filters each decision was made under (decide()'s `{ exclude, labels, allLabels,
   * noLabels, where }`, or null): the evaluated policy is asked what it would choose under the same filters.
   */
  filters?: ((AttributeFilter & { exclude?: Ids }) | null)[];
}

/**
 * 'page-ips', 'page-pi' and 'page-cascade' estimate the value of a whole page (the expected sum of its
 * rewards), of one policy or of a population (frozen or learning), when asked for (docs/evaluation.md,
 * "Whole pages" and "Whole pages for a population").
 */
export type Estimator = 'replay' | 'ips' | 'snips' | 'dm' | 'dr' | 'page-ips' | 'page-pi' | 'page-cascade';

/** A population's log: a decision log whose records each name the user decided for. */
export interface PopulationLog extends DecisionLog {
  /**
   * One user id per record; each user's records are taken in log order. With a page estimator, the
   * records of a page must name one user (INVALID_ARGUMENT otherwise).
   */
  users: Ids;
}

/**
 * A population of users over the catalogue, one model per user of the log: each user's saved state
 * as it is (frozen), or a configuration every user of the log starts from scratch with (learning).
 */
export type Population =
  | {
    /** user id -> toBytes() of that user over the catalogue; a user of the log without one is UNKNOWN_ID. */
    states: Map<number, Uint8Array>;
    /** The users learn on from their states through their records (replay) instead of staying as they are (default false). */
    learn?: boolean;
  }
  | { /** { type, ...options } of a user over the catalogue (no catalogue, no dim); each user's seed is drawn from its seed and the user's id. */ policy: { type: 'lin-ucb' | 'lin-ts' | 'sub-ts' | 'linear-elim' | 'sub-elim' } & Record<string, unknown> };

export interface EvaluateOptions {
  /**
   * The policy to evaluate (not changed: the estimators work on copies made from its bytes), or its
   * options `{ type: 'lin-ts', ...options }` with `catalogue`, or with `arms` below. Not with `users`.
   */
  policy?: LinearPolicy | ({ type: 'lin-ucb' | 'lin-ts' | 'sub-ts' | 'linear-elim' | 'sub-elim' } & Record<string, unknown>);
  /** One policy's log; with `users`, a PopulationLog (a user id per record). */
  log: DecisionLog | PopulationLog;
  /** The catalogue a population's users are over (with `users`). */
  catalogue?: Catalogue;
  /**
   * Evaluates a population instead of one policy (docs/evaluation.md, "Evaluating a population"):
   * frozen (`{ states }`: ips, snips, dm, dr) or learning (`{ policy }`: replay with rejection by
   * the logged propensities, and `horizon`).
   */
  users?: Population;
  /** A second population (with `users`): the report adds `baseline` and the paired `difference`. */
  baseline?: Population;
  /**
   * Which estimators to compute (default every one but the page estimators; for a population, those of its kind: ips, snips,
   * dm, dr when frozen, replay when learning, and the page estimators, of either kind, when asked for; another is INVALID_ARGUMENT).
   */
  estimators?: Estimator[];
  /** A population's intervals: 'normal' (the delta method over users, default) or 'bootstrap' (users resampled). */
  interval?: 'normal' | 'bootstrap';
  /** Resamples of a bootstrap interval (default 1000). */
  resamples?: number;
  /** Seed of a population's replay acceptance draws and bootstrap resamples (default 0). */
  seed?: number;
  /**
   * Replay of a learning population: a record where the user's model picks the logged arm is accepted
   * with probability acceptance / p. Default the log's smallest propensity (unbiased); larger accepts
   * more records and leans towards the logger's favourite arms (diagnostics.cappedRecords counts them).
   */
  acceptance?: number;
  /** Importance weights pi(a) / p above this are cut to it (IPS, SNIPS, DR); default none. */
  clip?: number;
  /**
   * Draws that estimate a Thompson policy's choice probabilities pi in each context of the log (a
   * position and filters; default 1000). A deterministic policy selects once per context.
   */
  draws?: number;
  /** Ridge regulariser of the direct method's reward model, linear or logistic (default 1). */
  lambda?: number;
  /**
   * The reward model of dm and dr (default 'auto': 'logistic' when every logged reward is 0 or 1,
   * 'linear' otherwise). 'linear': ridge regression of the reward on the logged arm's features, its
   * value under the policy theta^T E_pi[x]. 'logistic': P(click) = sigma(theta^T [x, 1]) by
   * ridge-penalised Newton steps, its value sum_a pi(a) sigma(theta^T [x_a, 1]) over the policy's choice
   * distribution (rewards outside [0, 1] are INVALID_ARGUMENT). A population's models: `rewardModelScope`.
   */
  rewardModel?: 'auto' | 'linear' | 'logistic';
  /**
   * A population's reward models of dm and dr. 'per-user': one model per user, penalised by
   * userLambda / 2 ||theta_u - theta_pooled||^2 towards the model pooled over every user (a user with few
   * records stays near it), the weight chosen by cross-validation over two halves of each user's records;
   * 'pooled': one model over every user's records, which cannot see a user's own taste (its dm misses
   * where users' tastes differ: docs/evaluation.md). Default 'auto': per-user for dm, pooled for dr (whose
   * per-user models share the luck of candidates trained on the evaluated records). Ignored for one policy.
   */
  rewardModelScope?: 'auto' | 'per-user' | 'pooled';
  /** The arms of a policy given as options without a catalogue. */
  arms?: { ids: Ids; features: Floats };
}

/**
 * One estimate of the mean reward per decision with its 95% normal interval (page-ips and
 * page-cascade: a gamma interval for weighted counts, below). `value`, `low` and `high` are null when
 * no sample stands behind them (replay matched no record; SNIPS when the policy would play no logged arm).
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

/** When not to trust a frozen population's weighted estimates. */
export interface WeightDiagnostics {
  /** Kish's (sum w)^2 / sum w^2 of the (clipped) weights over the whole log. */
  effectiveSampleSize: number;
  /** The mean unclipped weight, 1 in expectation: well below 1, the users play arms the logger never shows (no support). */
  weightMean: number;
  /** The five largest unclipped weights pi(a) / p. */
  largestWeights: number[];
  /** The share of the total weight cut by `clip`. */
  clippedShare: number;
  /** Records whose logged arm the user's model would never play at that position (weight 0). */
  zeroWeightRecords: number;
  /** Draws per context of a Thompson user's choice probabilities. */
  draws: number;
}

/** A learning population's replay. */
export interface ReplayDiagnostics {
  /** The acceptance used: a matched record is accepted with probability acceptance / p. */
  acceptance: number;
  /** Records where the user's model picked the logged arm. */
  matched: number;
  /** Matched records accepted: the decisions the estimate averages. */
  accepted: number;
  /** Matched records with p below the acceptance (accepted without rejection, a bias): 0 by default. */
  cappedRecords: number;
}

/** A page estimator's diagnostics in a population's `diagnostics['page-ips']` (and page-pi, page-cascade). */
export interface PageDiagnostics {
  /** Pages weighed. */
  pages: number;
  /** Kish's effective sample size of the pages' weights. */
  effectiveSampleSize: number;
  /** The largest weight put on one position's reward (page-pi: 0, its weight is the page's). */
  largestWeight: number;
}

/** One population's estimates (frozen: ips, snips, dm, dr; learning: replay). */
export interface PopulationEstimates {
  replay?: OffPolicyEstimate;
  ips?: OffPolicyEstimate;
  snips?: OffPolicyEstimate;
  dm?: OffPolicyEstimate;
  dr?: OffPolicyEstimate;
  /**
   * The expected clicks (sum of rewards) of a page, over the users' pages (`n` counts pages), its
   * interval over users: page-ips and page-cascade the gamma interval one policy's have, page-pi the
   * normal one (both 'bootstrap' with interval: 'bootstrap'). A learning population's is the mean
   * page value along the replay's path (docs/evaluation.md, "Whole pages for a population").
   */
  'page-ips'?: OffPolicyEstimate;
  'page-pi'?: OffPolicyEstimate;
  'page-cascade'?: OffPolicyEstimate;
  diagnostics: (WeightDiagnostics | ReplayDiagnostics) & { 'page-ips'?: PageDiagnostics; 'page-pi'?: PageDiagnostics; 'page-cascade'?: PageDiagnostics };
  /** A learning population: the mean number of decisions per user the replay estimate covers. */
  horizon?: number;
}

/** evaluate() with `users`. */
export interface PopulationReport extends PopulationEstimates {
  /** Distinct users in the log: the independent units of every interval. */
  users: number;
  interval: 'normal' | 'bootstrap';
  /** The reward model dm and dr used (present when either was computed). */
  rewardModel?: 'linear' | 'logistic';
  /** The option rewardModelScope as the evaluation read it (present with rewardModel). */
  rewardModelScope?: 'auto' | 'per-user' | 'pooled';
  /** Where per-user models were fitted (dm by default): the weight of the penalty pulling each user's model towards the pooled one, as cross-validated. */
  userLambda?: number;
  baseline?: PopulationEstimates;
  /** Candidate minus baseline for each estimator both have, its interval on the same users (paired). */
  difference?: Partial<Record<Estimator, { value: number | null; low: number | null; high: number | null }>>;
  /**
   * A slate log's: the estimates of each position's records alone, with the baseline's and the
   * difference when there is a baseline (null for a position without records).
   */
  positions?: (Omit<PopulationEstimates, 'diagnostics' | 'horizon'> & {
    baseline?: Omit<PopulationEstimates, 'diagnostics' | 'horizon'>;
    difference?: PopulationReport['difference'];
  } | null)[];
}

export interface EvaluationReport {
  /** The policy as it learns, replayed on the log (valid for uniformly random logs). */
  replay?: OffPolicyEstimate;
  /** The policy as it stands (frozen), by inverse propensity scoring. */
  ips?: OffPolicyEstimate;
  snips?: OffPolicyEstimate;
  /** The direct method: a model of the reward fitted on the log (`rewardModel`), averaged under the policy. */
  dm?: OffPolicyEstimate;
  /** Doubly robust: DM plus the importance-weighted residuals. */
  dr?: OffPolicyEstimate;
  /**
   * The expected sum of rewards of a page: the sum of a page's per-position IPS terms (additive rewards,
   * marginal propensities), its interval over pages; `n` counts pages. The interval is Fay and Feuer's gamma
   * interval for a weighted sum of counts (skewed like the rare heavy weights; its upper end allows one more
   * reward at the largest weight), the normal one when a reward is below 0.
   */
  'page-ips'?: OffPolicyEstimate;
  /**
   * The same by the pseudo-inverse estimator (Swaminathan et al. 2017; additive rewards), for whole pages
   * of a uniform logger without replacement (every propensity of a page 1 / m) or, with the log's
   * `policyArms`, of the exploration mix of a deterministic logger (decideSlate() with `explore`). Its
   * interval is normal (its weights can be below 0).
   */
  'page-pi'?: OffPolicyEstimate;
  /**
   * Reward-interaction IPS (cascade rewards: a click at a position may depend on the items above it):
   * position j's reward weighs the target's probability of the page's prefix over the logger's (the
   * log's `prefixPropensities`); deterministic targets only (LinUCB, the elimination policies). Its interval
   * is page-ips' gamma interval.
   */
  'page-cascade'?: OffPolicyEstimate;
  /** The reward model dm and dr used (present when either was computed). */
  rewardModel?: 'linear' | 'logistic';
  /**
   * How the policy's choice probabilities were estimated: draws per context, the distinct contexts
   * (position and filters) of the log, the distinct arms with a positive probability, the largest
   * standard error of one probability (0 when every context's choice is certain).
   */
  target?: { draws: number; contexts: number; arms: number; standardError: number };
  /** A slate log's estimates per position (null for a position without records). */
  positions?: (Omit<EvaluationReport, 'positions' | 'target' | 'rewardModel'> | null)[];
}

export interface EvaluationClasses {
  /** Off-policy estimates of a policy's mean reward per decision from logged decisions. */
  evaluate(options: EvaluateOptions & { users?: undefined }): EvaluationReport;
  /** The same for a population of users over a catalogue, against an optional baseline. */
  evaluate(options: EvaluateOptions & { users: Population; catalogue: Catalogue; log: PopulationLog }): PopulationReport;
  /**
   * A decision log's text, JSON lines (`{"arm":3,"reward":1,"propensity":0.1}` a line) or CSV with a
   * header naming arm, reward and propensity. Numbers are JSON numbers in JSON lines (`"3"` is
   * refused) and decimal text in CSV (integers digits only: `0x10` and `5e6` are refused).
   */
  parseDecisionLog(text: string): {
    arms: Uint32Array; rewards: Float64Array; propensities: Float64Array;
    /** When any record has a `position`. */
    positions?: Uint32Array;
    /** When the records name their `page` (every one of them must). */
    pages?: Uint32Array;
    /** When the records name their `prefixPropensity` (every one of them must). */
    prefixPropensities?: Float64Array;
    /** When the records name their `policyArm` (every one of them must). */
    policyArms?: Uint32Array;
    /** When any record has a filter: `exclude` and `labels` always, the other keys where given. */
    filters?: ({ exclude: Uint32Array; labels: Uint32Array; allLabels?: Uint32Array; noLabels?: Uint32Array; where?: { [name: string]: [number, number] } } | null)[];
    /** When the records name their `user` (every one of them must): a population's log. */
    users?: Uint32Array;
  };
  /**
   * One decision as a JSON line that parseDecisionLog reads back: with `position` for a slate's
   * position, `page` for its page (an integer, e.g. decideSlate()'s event id), `prefixPropensity` for
   * the logger's probability of the page's prefix through this position (decideSlate()'s `prefixPropensities`), `policyArm` for
   * the arm the logger would have shown there had it not explored (decideSlate()'s `policyArms`), `exclude`, `labels`, `allLabels`, `noLabels` and `where` (an open side written null) for
   * the filters it was decided under (other keys are kept and ignored when read).
   */
  formatDecision(decision: { arm: number; reward: number; propensity: number; position?: number; page?: number; prefixPropensity?: number; policyArm?: number; exclude?: Ids; labels?: Ids; allLabels?: Ids; noLabels?: Ids; where?: { [name: string]: [number, number] }; [key: string]: unknown }): string;
}
