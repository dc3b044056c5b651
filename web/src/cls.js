// Combinatorial linear semi-bandits (API.md, "Combinatorial linear semi-bandits"): one JS class per
// C++ policy, all sharing ClsPolicy of the core. Rows of the features matrix are the arms.
import { WasmObject, takeRestoredHandle } from './runtime.js';
import { invalidArgument } from './errors.js';
import { optionsToJson, requireObject, requirePositiveInteger, toFloat64Array, toIdArray } from './convert.js';

const MAX_K = 0xffffffff;

function isArrayLike(value) {
  return Array.isArray(value) || ArrayBuffer.isView(value);
}

// { k, groups, perGroup } -> the numbers the binding takes (k = 0: the constructor's k).
function readSelectOptions(options) {
  const { k, groups, perGroup } = requireObject(options, 'select options');
  if (k !== undefined) requirePositiveInteger(k, 'k', MAX_K);
  let groupArray = new Uint32Array(0);
  let quota = 0;
  if (groups !== undefined && groups !== null) {
    groupArray = toIdArray(groups, 'groups');
    requirePositiveInteger(perGroup, 'perGroup', MAX_K);
    quota = perGroup;
  } else if (perGroup !== undefined) {
    throw invalidArgument('perGroup needs groups (one group label per arm)');
  }
  return { k: k ?? 0, groups: groupArray, perGroup: quota };
}

export function defineClsClasses(runtime) {
  const { Module } = runtime;

  class ClsPolicy extends WasmObject {
    // Each subclass names its C++ type in `static type`.
    constructor(options) {
      super(runtime, takeRestoredHandle() ??
        runtime.call(() => Module.createClsPolicy(optionsToJson({ ...requireObject(options, 'options'), type: new.target.type }))));
    }

    // The saved state (docs/state-format.md); <Class>.fromBytes restores a policy that continues exactly.
    toBytes() {
      return runtime.toBytes(this);
    }

    static fromBytes(bytes) {
      return runtime.fromBytes(this, bytes, (address, length) => Module.restoreClsPolicy(address, length, this.type));
    }

    get dim() {
      return this._call((handle) => handle.dim());
    }

    // Arms registered with setArms (0 before).
    get armCount() {
      return this._call((handle) => handle.armCount());
    }

    // select(features, { k, groups, perGroup }) chooses among this round's rows;
    // select({ k }) (or select()) chooses among the arms registered with setArms.
    select(features, options) {
      const handle = this._handle;
      if (features === undefined || features === null || (!isArrayLike(features) && typeof features === 'object' && options === undefined)) {
        const { k, groups, perGroup } = readSelectOptions(features ?? options);
        return runtime.withHeap([groups], (groupAddress) => runtime.call(() => {
          handle.selectFromArms(k, groupAddress, groups.length, perGroup);
          return handle.lastRows().slice();
        }));
      }
      const { k, groups, perGroup } = readSelectOptions(options);
      const featureArray = toFloat64Array(features, 'features');
      return runtime.withHeap([featureArray, groups], (featureAddress, groupAddress) => runtime.call(() => {
        handle.select(featureAddress, featureArray.length, k, groupAddress, groups.length, perGroup);
        // A copy: the view points into wasm memory that the next select overwrites.
        return handle.lastRows().slice();
      }));
    }

    // Registers a fixed arm set (N*dim numbers) and builds the `index` option's index over it.
    setArms(features) {
      const handle = this._handle;
      const featureArray = toFloat64Array(features, 'features');
      runtime.withHeap([featureArray], (address) => runtime.call(() => handle.setArms(address, featureArray.length)));
    }

    update(chosen, rewards) {
      const handle = this._handle;
      const rows = toIdArray(chosen, 'chosen');
      const rewardArray = toFloat64Array(rewards, 'rewards');
      runtime.withHeap([rows, rewardArray], (rowAddress, rewardAddress) =>
        runtime.call(() => handle.update(rowAddress, rows.length, rewardAddress, rewardArray.length)));
    }

    theta() {
      return this._call((handle) => handle.theta().slice());
    }

    stats() {
      return JSON.parse(this._call((handle) => handle.stats()));
    }
  }

  class C2UCB extends ClsPolicy {
    static type = 'c2ucb';
  }

  class PC2UCB extends ClsPolicy {
    static type = 'pc2ucb';
  }

  class CombLinUCB extends ClsPolicy {
    static type = 'comb-lin-ucb';
  }

  class CombLinTS extends ClsPolicy {
    static type = 'comb-lin-ts';
  }

  class CombTS extends ClsPolicy {
    static type = 'comb-ts';
  }

  class GreedyCLS extends ClsPolicy {
    static type = 'greedy-cls';
  }

  return { C2UCB, PC2UCB, CombLinUCB, CombLinTS, CombTS, GreedyCLS };
}
