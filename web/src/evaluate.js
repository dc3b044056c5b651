// evaluate() (docs/evaluation.md, "Off-policy evaluation"): the estimators run in the core on copies of the
// policy made from its bytes (cpp/src/eval); this file reads the arguments and parses the report.
import { filterRecord } from './attributes.js';
import { invalidArgument } from './errors.js';
import { dataToJson, guardProxy, isArray, optionsToJson, readOptions, toFeatureArray, toFloat64Array, toIdArray } from './convert.js';
import { handleOf, refuseExtraArguments } from './runtime.js';
import { formatDecision, parseDecisionLog } from './decision-log.js';

const REQUIRED_LOG_KEYS = ['arms', 'rewards', 'propensities'];
// positions: a slate's position per record; filters: the filter ({ exclude, labels, allLabels,
// noLabels, where }) each was decided under.
const LOG_KEYS = [...REQUIRED_LOG_KEYS, 'positions', 'filters'];
const NO_IDS = new Uint32Array(0);

// log.filters: one filter (or null: none) per record, as [[exclude], [labels], {conditions}?] JSON
// (attributes.js filterRecord).
function filtersToJson(filters) {
  if (filters === undefined) return '';
  if (!isArray(filters, 'log.filters')) throw invalidArgument('log.filters must be an array: one { exclude, labels } or null per record');
  const records = [];
  for (let i = 0; i < filters.length; i++) {
    const filter = filters[i];
    if (filter === null || filter === undefined) {
      records.push([[], []]);
      continue;
    }
    records.push(filterRecord(filter, `log.filters[${i}]`));
  }
  return dataToJson(records, 'log.filters');
}

// `linearClasses`: the linear policy classes ({ LinUCB, ... }), whose common base the policy is of.
export function defineEvaluation(runtime, linearClasses) {
  const { Module, withHeap, call } = runtime;
  const LinearPolicy = Object.getPrototypeOf(Object.values(linearClasses)[0]);
  const classOfType = new Map(Object.values(linearClasses).map((Class) => [Class.type, Class]));

  // A policy made from { type, ...options } (with its catalogue, or with evaluate's `arms`), which
  // evaluate() disposes of when it is done.
  function policyFromConfig(config, arms) {
    const { type, ...options } = readOptions(config, 'options.policy');
    const Class = classOfType.get(type);
    if (Class === undefined) {
      throw invalidArgument(`options.policy.type must be one of ${[...classOfType.keys()].map((t) => `'${t}'`).join(', ')}, got ${JSON.stringify(type)}`);
    }
    if ((options.catalogue === undefined) === (arms === undefined)) {
      throw invalidArgument('a policy given as options needs its arms: options.policy.catalogue, or options.arms { ids, features } (one of them)');
    }
    const policy = new Class(options);
    try {
      if (arms !== undefined) {
        const { ids, features } = readOptions(arms, 'options.arms', ['ids', 'features']);
        policy.addArms(ids, features);
      }
      return policy;
    } catch (error) {
      policy.dispose();
      throw error;
    }
  }

  function evaluate(options, ...extra) {
    refuseExtraArguments('evaluate()', [options, ...extra], 1);
    if (options === undefined) throw invalidArgument('evaluate(options) needs { policy, log }');
    const { policy, log, arms, ...rest } = readOptions(options, 'options');
    if (policy === undefined || log === undefined) throw invalidArgument('evaluate(options) needs options.policy and options.log');
    if (policy === null || typeof policy !== 'object' || isArray(policy, 'options.policy')) {
      throw invalidArgument('options.policy must be a linear policy (new sb.LinTS(...)) or its options { type, ... }');
    }
    const entries = readOptions(log, 'options.log', LOG_KEYS);
    for (const key of REQUIRED_LOG_KEYS) {
      if (entries[key] === undefined) throw invalidArgument(`options.log.${key} is required`);
    }
    const logArms = toIdArray(entries.arms, 'log.arms');
    const rewards = toFeatureArray(entries.rewards, 'log.rewards');
    const propensities = toFloat64Array(entries.propensities, 'log.propensities');
    const positions = entries.positions === undefined ? NO_IDS : toIdArray(entries.positions, 'log.positions');
    const filters = filtersToJson(entries.filters);
    const json = optionsToJson(rest);
    const owned = policy instanceof LinearPolicy ? null : policyFromConfig(policy, arms);
    if (owned === null && arms !== undefined) throw invalidArgument('options.arms is for a policy given as options; this policy has its arms');
    try {
      const handle = handleOf(owned ?? policy, LinearPolicy, 'options.policy');
      const report = call(() => withHeap([logArms, rewards, propensities, positions], (armAddress, rewardAddress, propensityAddress, positionAddress) =>
        Module.evaluateLinearPolicy(handle, armAddress, logArms.length, rewardAddress, rewards.length, propensityAddress,
          propensities.length, positionAddress, positions.length, filters, json)));
      return JSON.parse(report);
    } finally {
      owned?.dispose();
    }
  }

  return {
    evaluate,
    parseDecisionLog: (text, ...rest) => {
      refuseExtraArguments('parseDecisionLog()', [text, ...rest], 1);
      return parseDecisionLog(text);
    },
    formatDecision: (decision, ...rest) => {
      refuseExtraArguments('formatDecision()', [decision, ...rest], 1);
      return guardProxy(() => formatDecision(readOptions(decision, 'decision')), 'decision');
    },
  };
}
