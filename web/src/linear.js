// Linear bandit policies (API.md, "Linear bandits"): one JS class per policy type of the core,
// all driving the same LinearPolicy interface step by step.
import { WasmObject, takeRestoredHandle } from './runtime.js';
import { optionsToJson, requireObject, toFloat64Array, toIdArray } from './convert.js';
import { invalidArgument } from './errors.js';

const MAX_ID = 0xffffffff;

export function defineLinearClasses(runtime) {
  const { Module } = runtime;

  class LinearPolicy extends WasmObject {
    // Each subclass names its C++ type in `static type`.
    constructor(options) {
      super(runtime, takeRestoredHandle() ??
        runtime.call(() => Module.createLinearPolicy(optionsToJson({ ...requireObject(options, 'options'), type: new.target.type }))));
    }

    // The saved state (docs/state-format.md); <Class>.fromBytes restores a policy that continues exactly.
    toBytes() {
      return runtime.toBytes(this);
    }

    static fromBytes(bytes) {
      return runtime.fromBytes(this, bytes, (address, length) => Module.restoreLinearPolicy(address, length, this.type));
    }

    get dim() {
      return this._call((handle) => handle.dim());
    }

    get armCount() {
      return this._call((handle) => handle.armCount());
    }

    get type() {
      return this._call((handle) => handle.type());
    }

    hasArm(id) {
      return this._call((handle) => handle.hasArm(id));
    }

    addArms(ids, features) {
      const handle = this._handle;
      const idArray = toIdArray(ids);
      const featureArray = toFloat64Array(features, 'features');
      runtime.withHeap([idArray, featureArray], (idAddress, featureAddress) =>
        runtime.call(() => handle.addArms(idAddress, idArray.length, featureAddress, featureArray.length)));
    }

    removeArms(ids) {
      const handle = this._handle;
      const idArray = toIdArray(ids);
      runtime.withHeap([idArray], (idAddress) => runtime.call(() => handle.removeArms(idAddress, idArray.length)));
    }

    select() {
      return this._call((handle) => handle.select());
    }

    update(arm, reward) {
      if (!Number.isInteger(arm) || arm < 0 || arm > MAX_ID) {
        throw invalidArgument(`arm must be an integer in [0, 2^32-1], got ${String(arm)}`);
      }
      if (typeof reward !== 'number') throw invalidArgument(`reward must be a number, got ${typeof reward}`);
      this._call((handle) => handle.update(arm, reward));
    }

    theta() {
      // A copy: the view points into wasm memory that the next call overwrites.
      return this._call((handle) => handle.theta().slice());
    }

    stats() {
      return JSON.parse(this._call((handle) => handle.stats()));
    }
  }

  class LinUCB extends LinearPolicy {
    static type = 'lin-ucb';
  }

  class LinTS extends LinearPolicy {
    static type = 'lin-ts';
  }

  class LinearElim extends LinearPolicy {
    static type = 'linear-elim';
  }

  class SubElim extends LinearPolicy {
    static type = 'sub-elim';
  }

  class SubTS extends LinearPolicy {
    static type = 'sub-ts';
  }

  return { LinUCB, LinTS, LinearElim, SubElim, SubTS };
}
