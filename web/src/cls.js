// Combinatorial linear semi-bandits (docs/policies.md, "Combinatorial linear semi-bandits"): one JS class per
// C++ policy, all sharing ClsPolicy of the core. Rows of the features matrix are the arms.
import { invalidArgument } from './errors.js';
import { isArray, lengthOf, readOptions, requireNumber, requirePositiveInteger, toFeatureArray, toIdArray } from './convert.js';
import { refuseExtraArguments } from './runtime.js';

// { k, groups, perGroup } -> the numbers the binding takes (k = 0: the constructor's k).
function readSelectOptions(options) {
  const { k, groups, perGroup } = readOptions(options, 'select options', ['k', 'groups', 'perGroup']);
  if (k !== undefined) requirePositiveInteger(k, 'k');
  if (groups === undefined || groups === null) {
    if (perGroup !== undefined) throw invalidArgument('perGroup needs groups (one group label per arm)');
    return { k: k ?? 0, groups: new Uint32Array(0), perGroup: 0 };
  }
  return { k: k ?? 0, groups: toIdArray(groups, 'groups'), perGroup: requirePositiveInteger(perGroup, 'perGroup') };
}

const isPlainObject = (value) => typeof value === 'object' && value !== null && !isArray(value, 'select\'s argument') && !ArrayBuffer.isView(value);

// select(features, options) chooses among this round's rows; select(options) or select() among the
// arms registered with setArms. -> [features or null, constraint]
function readSelectArguments(values) {
  refuseExtraArguments('select()', values, 2);
  const [features, options] = values;
  if (options === undefined && (features === undefined || isPlainObject(features))) return [null, readSelectOptions(features)];
  return [toFeatureArray(features, 'features'), readSelectOptions(options)];
}

export function defineClsClasses(runtime) {
  const { Module, withHeap } = runtime;

  const ClsPolicy = runtime.family('ClsPolicy', {
    create: runtime.createFrom(Module.createClsPolicy),
    restore: (address, length, array, type) => Module.restoreClsPolicy(address, length, array, type),
    table: {
      dim: { get: (handle) => handle.dim() },
      // Arms registered with setArms (0 before).
      armCount: { get: (handle) => handle.armCount() },
      select: {
        args: readSelectArguments,
        call: (handle, features, { k, groups, perGroup }) => {
          if (features === null) {
            withHeap([groups], (groupAddress) => handle.selectFromArms(k, groupAddress, groups.length, perGroup));
          } else {
            withHeap([features, groups], (featureAddress, groupAddress) =>
              handle.select(featureAddress, features.length, k, groupAddress, groups.length, perGroup));
          }
          // A copy: the view points into wasm memory that the next select overwrites.
          return handle.lastRows().slice();
        },
      },
      // Registers a fixed arm set (N*dim numbers) and builds the `index` option's index over it.
      setArms: {
        args: [(features) => toFeatureArray(features, 'features')],
        call: (handle, features) => withHeap([features], (address) => handle.setArms(address, features.length)),
      },
      update: {
        args: [(chosen) => toIdArray(chosen, 'chosen'), (rewards, before) => toFeatureArray(rewards, 'rewards', lengthOf(before[0], 'rewards', 'chosen'))],
        call: (handle, rows, rewards) => withHeap([rows, rewards], (rowAddress, rewardAddress) =>
          handle.update(rowAddress, rows.length, rewardAddress, rewards.length)),
      },
      // forget(factor): the ridge model weighs `factor` in [0, 1]; forget(0) starts over from
      // V = lambda I (API.md v3).
      forget: {
        args: [(factor) => requireNumber(factor, 'factor')],
        call: (handle, factor) => handle.forget(factor),
      },
      theta: { call: (handle) => handle.theta().slice() },
    },
  });

  // C2UCB, PC2UCB, ...: one class per registered combinatorial policy (cpp/src/cls/cls_policy_factory.cpp).
  return runtime.registeredSubclasses(ClsPolicy, 'cls-policy');
}
