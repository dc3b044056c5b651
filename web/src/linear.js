// Linear bandit policies (docs/policies.md, "Linear bandits"): one JS class per policy type of the core,
// all driving the same LinearPolicy interface step by step.
import { attributedAddMethod, readFilter } from './attributes.js';
import { MAX_MAGNITUDE, MAX_UINT32, readOptions, requireId, requireInteger, requireNumber, requirePositiveInteger, toFeatureArray, toFloat64Array, toIdArray } from './convert.js';
import { invalidArgument } from './errors.js';
import { handleOf } from './runtime.js';


// select(filter) and selectSlate(k, filter): { exclude, labels, allLabels, noLabels, where }
// (attributes.js; API.md v3).
const readFilters = (options, name) => readFilter(options, name);

// A reward, or the rewards of a slate's positions: finite numbers the core also bounds. More rewards
// than `largestSlate` match no pending decision: refused from the array's length, before any of them
// is read or copied (10^7 rewards once took 80 MB and a second to be refused).
function readRewards(rewards, largestSlate) {
  if (typeof rewards === 'number') return Float64Array.of(requireNumber(rewards, 'reward', MAX_MAGNITUDE));
  return toFloat64Array(rewards, 'rewards', (length) => {
    if (length > largestSlate) {
      throw invalidArgument(`rewards holds ${length} numbers, but no decision of this module showed more than ${largestSlate} arms: give one reward per position`);
    }
  });
}

// `CatalogueFamily` (catalogue.js): a policy given `{ catalogue }` is a user over that catalogue,
// with its own model only (LinUCB, LinTS, SubTS).
export function defineLinearClasses(runtime, CatalogueFamily) {
  const { Module, withHeap, call } = runtime;
  const catalogueHandle = (catalogue) => handleOf(catalogue, CatalogueFamily, 'options.catalogue');
  // At least as many arms as any pending decision of this module's policies showed: the largest
  // slate decided here, or, for a restored state's pending decisions, one arm per 4 of its bytes (a
  // pending decision keeps a 32-bit id per arm). The binding has no getter of a decision's size.
  let largestSlate = 1;

  // The decision the core just made, copied out of wasm memory that the next call overwrites.
  function decideOn(handle, k, slate, { exclude, labels, conditions }) {
    return withHeap([exclude, labels], (excludeAddress, labelAddress) => {
      const eventId = handle.decide(k, slate, excludeAddress, exclude.length, labelAddress, labels.length, conditions);
      const arms = handle.lastSlate().slice();
      largestSlate = Math.max(largestSlate, arms.length);
      return {
        arms,
        eventId,
        propensities: handle.lastPropensities(0).slice(),
        propensityErrors: handle.lastPropensities(1).slice(),
        prefixPropensities: handle.lastPropensities(2).slice(),
        policyArms: handle.lastPolicyArms().slice(),
      };
    });
  }

  const LinearPolicy = runtime.family('LinearPolicy', {
    create(type, options) {
      const { catalogue, ...rest } = readOptions(options, 'options');
      const json = runtime.typedOptions(type, rest);
      if (catalogue === undefined) return call(() => Module.createLinearPolicy(json));
      // Taken after the options were read (a getter may have disposed of it: DISPOSED).
      const shared = catalogueHandle(catalogue);
      return call(() => Module.createLinearPolicyOver(shared, json));
    },
    // fromBytes(bytes, { catalogue }): a user's state (toBytes() of a policy over a catalogue) needs
    // the catalogue it was saved over, or one loaded from that catalogue's snapshot.
    restoreOptions(options) {
      const { catalogue } = readOptions(options, 'fromBytes options', ['catalogue']);
      return catalogue === undefined ? null : catalogueHandle(catalogue);
    },
    restore(address, length, array, type, shared) {
      largestSlate = Math.max(largestSlate, Math.floor(length / 4));
      return shared ? Module.restoreLinearPolicyOver(address, length, array, type, shared) : Module.restoreLinearPolicy(address, length, array, type);
    },
    table: {
      dim: { get: (handle) => handle.dim() },
      armCount: { get: (handle) => handle.armCount() },
      type: { get: (handle) => handle.type() },
      hasArm: { args: [(id) => requireId(id)], call: (handle, id) => handle.hasArm(id) },
      ...attributedAddMethod(runtime, 'addArms', (ids) => toIdArray(ids), toFeatureArray),
      removeArms: {
        args: [(ids) => toIdArray(ids)],
        call: (handle, ids) => withHeap([ids], (address) => handle.removeArms(address, ids.length)),
      },
      select: {
        args: [(options) => readFilters(options, 'select options')],
        // Without a filter nothing is copied to the heap (withHeap: empty arrays travel as address 0).
        call: (handle, { exclude, labels, conditions }) => withHeap([exclude, labels], (excludeAddress, labelAddress) =>
          handle.select(excludeAddress, exclude.length, labelAddress, labels.length, conditions)),
      },
      // min(k, eligible) distinct arms, best first; EMPTY when none is eligible.
      selectSlate: {
        args: [(k) => requirePositiveInteger(k, 'k'), (options) => readFilters(options, 'selectSlate options')],
        call: (handle, k, { exclude, labels, conditions }) => withHeap([exclude, labels], (excludeAddress, labelAddress) => {
          handle.selectSlate(k, excludeAddress, exclude.length, labelAddress, labels.length, conditions);
          // A copy: the view points into wasm memory that the next call overwrites.
          return handle.lastSlate().slice();
        }),
      },
      update: {
        // The core refuses rewards beyond 1e15 too (they would overflow the ridge sums).
        args: [(arm) => requireId(arm, 'arm'), (reward) => requireNumber(reward, 'reward', MAX_MAGNITUDE)],
        call: (handle, arm, reward) => handle.update(arm, reward),
      },
      // decide(filters): select() recorded as a decision, { arm, eventId, propensity, propensityError }.
      decide: {
        args: [(options) => readFilters(options, 'decide options')],
        call: (handle, filters) => {
          const decision = decideOn(handle, 1, false, filters);
          return {
            arm: decision.arms[0],
            eventId: decision.eventId,
            propensity: decision.propensities[0],
            propensityError: decision.propensityErrors[0],
          };
        },
      },
      // decideSlate(k, filters): selectSlate(k) recorded as one decision, with per-position propensities.
      decideSlate: {
        args: [(k) => requirePositiveInteger(k, 'k'), (options) => readFilters(options, 'decideSlate options')],
        call: (handle, k, filters) => decideOn(handle, k, true, filters),
      },
      // reward(eventId, r): one number for decide(), one per position (an array) for decideSlate().
      reward: {
        args: [(eventId) => requireInteger(eventId, 'eventId', 1, Number.MAX_SAFE_INTEGER), (rewards) => readRewards(rewards, largestSlate)],
        call: (handle, eventId, rewards) => withHeap([rewards], (address) => handle.reward(eventId, address, rewards.length)),
      },
      // Waiting arms into the policy's MIPS index now (Sub-TS's and Sub-Elim's HNSW graphs are built
      // a slice per step by default): all of them, or at most maxItems; returns how many still wait.
      buildIndex: {
        args: [(maxItems = MAX_UINT32) => requireInteger(maxItems, 'maxItems', 0, MAX_UINT32)],
        call: (handle, maxItems) => handle.buildIndex(maxItems),
      },
      // A copy: the view points into wasm memory that the next call overwrites.
      theta: { call: (handle) => handle.theta().slice() },
      // forget(factor): everything learned so far weighs `factor` in [0, 1]; forget(0) starts over
      // from the prior (API.md v3).
      forget: {
        args: [(factor) => requireNumber(factor, 'factor')],
        call: (handle, factor) => handle.forget(factor),
      },
    },
  });

  // LinUCB, LinTS, ...: one class per registered linear policy (cpp/src/linear/policy_factory.cpp).
  return runtime.registeredSubclasses(LinearPolicy, 'linear-policy');
}
