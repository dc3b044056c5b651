// evaluate() (docs/evaluation.md, "Off-policy evaluation"): the estimators run in the core on copies of the
// policy made from its bytes (cpp/src/eval); this file reads the arguments and parses the report.
import { filterRecord } from './attributes.js';
import { BanditError, ErrorCode, invalidArgument } from './errors.js';
import { dataToJson, guardProxy, isArray, optionsToJson, readOptions, requireId, toBytes, toFeatureArray, toFloat64Array, toIdArray } from './convert.js';
import { handleOf, refuseExtraArguments } from './runtime.js';
import { formatDecision, parseDecisionLog } from './decision-log.js';

const REQUIRED_LOG_KEYS = ['arms', 'rewards', 'propensities'];
// positions: a slate's position per record; pages: the page (slate) each record was shown on; filters:
// the filter ({ exclude, labels, allLabels, noLabels, where }) each was decided under.
const LOG_KEYS = [...REQUIRED_LOG_KEYS, 'positions', 'pages', 'filters'];
const NO_IDS = new Uint32Array(0);
const NO_BYTES = new Uint8Array(0);
const NO_FLOATS = new Float64Array(0);
// An own property only: the rest of a destructured options object is a plain object, whose prototype
// another script may have given any key (a polluted Object.prototype.catalogue is no catalogue).
const own = (object, key) => (Object.hasOwn(object, key) ? object[key] : undefined);
// A log may carry the logger's probability of each page's prefix (what 'page-cascade' reads) and the
// logging policy's own arm at each record (decideSlate()'s policyArms, what 'page-pi' reads of the mix).
const POLICY_LOG_KEYS = [...LOG_KEYS, 'prefixPropensities', 'policyArms'];
// A population's log also names the user of each record.
const POPULATION_LOG_KEYS = [...POLICY_LOG_KEYS, 'users'];

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

// `linearClasses`: the linear policy classes ({ LinUCB, ... }), whose common base the policy is of;
// `CatalogueFamily`: the catalogue's class, of a population's catalogue.
export function defineEvaluation(runtime, linearClasses, CatalogueFamily) {
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
    if ((own(options, 'catalogue') === undefined) === (arms === undefined)) {
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

  // A population (`users` or `baseline`): { policy: { type, ...options } } (learning) as its JSON, or
  // { states: Map of user id to saved state, learn } (frozen, or learning on from the states with
  // learn: true) as ids, offsets into the states laid end to end, and those bytes.
  function readPopulation(value, name) {
    const { policy, states, learn = false } = readOptions(value, name, ['policy', 'states', 'learn']);
    if (typeof learn !== 'boolean') throw invalidArgument(`${name}.learn must be true or false`);
    if (learn && states === undefined) throw invalidArgument(`${name}.learn is for states: a policy's users learn anyway`);
    if ((policy === undefined) === (states === undefined)) {
      throw invalidArgument(`${name} needs one of policy ({ type, ...options }: every user learns from scratch) or states (a Map of user id to saved state: frozen)`);
    }
    if (policy !== undefined) {
      const { type, ...rest } = readOptions(policy, `${name}.policy`);
      if (!classOfType.has(type)) {
        throw invalidArgument(`${name}.policy.type must be one of ${[...classOfType.keys()].map((t) => `'${t}'`).join(', ')}, got ${JSON.stringify(type)}`);
      }
      if (own(rest, 'catalogue') !== undefined) throw invalidArgument(`${name}.policy takes no catalogue: the users are over options.catalogue`);
      return { policy: runtime.typedOptions(type, rest), learn: true, ids: NO_IDS, offsets: NO_IDS, blob: NO_BYTES };
    }
    if (!guardProxy(() => states instanceof Map, `${name}.states`)) throw invalidArgument(`${name}.states must be a Map of user id to saved state (user.toBytes())`);
    const entries = guardProxy(() => [...states], `${name}.states`);
    const ids = new Uint32Array(entries.length);
    const offsets = new Uint32Array(entries.length + 1);
    const parts = [];
    let total = 0;
    entries.forEach(([id, bytes], i) => {
      ids[i] = requireId(id, `${name}.states key`);
      const part = toBytes(bytes, `${name}.states.get(${id})`);
      parts.push(part);
      total += part.length;
      offsets[i + 1] = total;
    });
    if (total > 2 ** 32 - 1) throw new BanditError(ErrorCode.OUT_OF_MEMORY, `${name}.states hold ${total} bytes, beyond the WebAssembly heap`);
    const blob = new Uint8Array(total);
    parts.forEach((part, i) => blob.set(part, offsets[i]));
    return { policy: '', learn, ids, offsets, blob, known: new Set(ids) };
  }

  // evaluate({ catalogue, users, baseline?, log: { users, ... } }): docs/evaluation.md, "Evaluating a population".
  function evaluatePopulation({ catalogue, users, baseline, log, ...rest }) {
    if (catalogue === undefined) throw invalidArgument('evaluate() with users needs options.catalogue: the catalogue the users are over');
    if (own(rest, 'policy') !== undefined || own(rest, 'arms') !== undefined) throw invalidArgument('evaluate() takes options.policy (one policy) or options.users (a population), not both; arms are the catalogue\'s');
    if (log === undefined) throw invalidArgument('evaluate(options) needs options.log');
    const entries = readOptions(log, 'options.log', POPULATION_LOG_KEYS);
    for (const key of [...REQUIRED_LOG_KEYS, 'users']) {
      if (entries[key] === undefined) throw invalidArgument(`options.log.${key} is required`);
    }
    const logArms = toIdArray(entries.arms, 'log.arms');
    // One entry per record: another count is refused before anything is read or copied.
    const perRecord = (key) => (length) => {
      if (length !== logArms.length) throw invalidArgument(`log.${key} must have one entry per decision (${length} ${key}, ${logArms.length} arms)`);
    };
    const logUsers = toIdArray(entries.users, 'log.users', perRecord('users'));
    const rewards = toFeatureArray(entries.rewards, 'log.rewards', perRecord('rewards'));
    const propensities = toFloat64Array(entries.propensities, 'log.propensities', perRecord('propensities'));
    const positions = entries.positions === undefined ? NO_IDS : toIdArray(entries.positions, 'log.positions', perRecord('positions'));
    const pages = entries.pages === undefined ? NO_IDS : toIdArray(entries.pages, 'log.pages', perRecord('pages'));
    const prefixPropensities = entries.prefixPropensities === undefined
      ? NO_FLOATS : toFloat64Array(entries.prefixPropensities, 'log.prefixPropensities', perRecord('prefixPropensities'));
    const policyArms = entries.policyArms === undefined ? NO_IDS : toIdArray(entries.policyArms, 'log.policyArms', perRecord('policyArms'));
    const filters = filtersToJson(entries.filters);
    const candidate = readPopulation(users, 'options.users');
    const other = baseline === undefined ? null : readPopulation(baseline, 'options.baseline');
    // A user without a saved state is refused here, before the states are copied to the heap.
    for (const [population, name] of [[candidate, 'users'], [other, 'baseline']]) {
      if (population?.known === undefined) continue;
      const missing = logUsers.findIndex((user) => !population.known.has(user));
      if (missing >= 0) {
        throw new BanditError(ErrorCode.UNKNOWN_ID, `log record ${missing}: user ${logUsers[missing]} has no saved state in ${name}.states`);
      }
    }
    const json = optionsToJson(rest);
    const shared = handleOf(catalogue, CatalogueFamily, 'options.catalogue');
    const none = { policy: '', learn: false, ids: NO_IDS, offsets: NO_IDS, blob: NO_BYTES };
    const second = other ?? none;
    return JSON.parse(call(() => withHeap([logUsers, logArms, rewards, propensities, positions, pages, prefixPropensities, policyArms, candidate.ids,
      candidate.offsets, candidate.blob, second.ids, second.offsets, second.blob], (userAddress, armAddress, rewardAddress, propensityAddress,
      positionAddress, pageAddress, prefixAddress, policyArmAddress, candidateIds, candidateOffsets, candidateBlob, baselineIds, baselineOffsets,
      baselineBlob) =>
      Module.evaluatePopulation(shared, userAddress, logUsers.length, armAddress, logArms.length, rewardAddress, rewards.length,
        propensityAddress, propensities.length, positionAddress, positions.length, pageAddress, pages.length, prefixAddress,
        prefixPropensities.length, policyArmAddress, policyArms.length, filters, json,
        candidate.policy, candidate.learn, candidateIds, candidate.ids.length, candidateOffsets, candidateBlob,
        other !== null, second.policy, second.learn, baselineIds, second.ids.length, baselineOffsets, baselineBlob))));
  }

  function evaluate(options, ...extra) {
    refuseExtraArguments('evaluate()', [options, ...extra], 1);
    if (options === undefined) throw invalidArgument('evaluate(options) needs { policy, log }, or { catalogue, users, log } for a population');
    const read = readOptions(options, 'options');
    if (read.users !== undefined) return evaluatePopulation(read);
    if (read.baseline !== undefined || read.catalogue !== undefined) {
      throw invalidArgument('options.baseline and options.catalogue are for a population: evaluate({ catalogue, users, baseline, log })');
    }
    const { policy, log, arms, ...rest } = read;
    if (policy === undefined || log === undefined) throw invalidArgument('evaluate(options) needs options.policy and options.log');
    if (policy === null || typeof policy !== 'object' || isArray(policy, 'options.policy')) {
      throw invalidArgument('options.policy must be a linear policy (new sb.LinTS(...)) or its options { type, ... }');
    }
    const entries = readOptions(log, 'options.log', POLICY_LOG_KEYS);
    for (const key of REQUIRED_LOG_KEYS) {
      if (entries[key] === undefined) throw invalidArgument(`options.log.${key} is required`);
    }
    const logArms = toIdArray(entries.arms, 'log.arms');
    const rewards = toFeatureArray(entries.rewards, 'log.rewards');
    const propensities = toFloat64Array(entries.propensities, 'log.propensities');
    const positions = entries.positions === undefined ? NO_IDS : toIdArray(entries.positions, 'log.positions');
    const pages = entries.pages === undefined ? NO_IDS : toIdArray(entries.pages, 'log.pages');
    const prefixPropensities = entries.prefixPropensities === undefined ? NO_FLOATS : toFloat64Array(entries.prefixPropensities, 'log.prefixPropensities');
    const policyArms = entries.policyArms === undefined ? NO_IDS : toIdArray(entries.policyArms, 'log.policyArms');
    const filters = filtersToJson(entries.filters);
    const json = optionsToJson(rest);
    const owned = policy instanceof LinearPolicy ? null : policyFromConfig(policy, arms);
    if (owned === null && arms !== undefined) throw invalidArgument('options.arms is for a policy given as options; this policy has its arms');
    try {
      const handle = handleOf(owned ?? policy, LinearPolicy, 'options.policy');
      const report = call(() => withHeap([logArms, rewards, propensities, positions, pages, prefixPropensities, policyArms],
        (armAddress, rewardAddress, propensityAddress, positionAddress, pageAddress, prefixAddress, policyArmAddress) =>
          Module.evaluateLinearPolicy(handle, armAddress, logArms.length, rewardAddress, rewards.length, propensityAddress,
            propensities.length, positionAddress, positions.length, pageAddress, pages.length, prefixAddress, prefixPropensities.length,
            policyArmAddress, policyArms.length, filters, json)));
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
