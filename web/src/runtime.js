// What every wrapper class needs from one module instance: calls that turn the C++ side's parked
// error into a thrown BanditError, heap copies that are always freed, and object lifetimes.
import { BanditError, ErrorCode } from './errors.js';

const disposeSymbol = Symbol.dispose ?? Symbol.for('Symbol.dispose');

export function createRuntime(Module) {
  function check() {
    const pending = Module.pendingError;
    if (pending) {
      Module.pendingError = null;
      throw new BanditError(pending[0], pending[1]);
    }
  }

  // Calls into wasm and throws what the call reported.
  function call(thunk) {
    Module.pendingError = null;
    const result = thunk();
    check();
    return result;
  }

  // Copies typed arrays onto the wasm heap for the duration of `body(...addresses)`.
  function withHeap(arrays, body) {
    const addresses = [];
    try {
      for (const array of arrays) {
        // >>> 0: malloc returns an i32, negative for addresses past 2 GiB (the heap may grow to 4 GiB).
        const address = Module._malloc(Math.max(array.byteLength, 1)) >>> 0;
        if (!address) {
          throw new BanditError(ErrorCode.INVALID_ARGUMENT, `cannot allocate ${array.byteLength} bytes on the WebAssembly heap`);
        }
        addresses.push(address);
        // Views are read after each malloc: growing memory replaces the heap's buffer.
        new Uint8Array(Module.HEAPU8.buffer, address, array.byteLength).set(
          new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
      }
      return body(...addresses);
    } finally {
      for (const address of addresses) Module._free(address);
    }
  }

  let warnedAboutLeak = false;
  const leaks = typeof FinalizationRegistry === 'function'
    ? new FinalizationRegistry((handle) => {
      if (!warnedAboutLeak) {
        warnedAboutLeak = true;
        console.warn('sublinear-bandits: an object was garbage-collected without dispose(); call dispose() to free wasm memory promptly');
      }
      handle.delete();
    })
    : null;

  // The state of `object` (a WasmObject whose handle has saveBytes/savedBytes) as a copied Uint8Array.
  function toBytes(object) {
    return object._call((handle) => {
      handle.saveBytes();
      return handle.savedBytes().slice();
    });
  }

  // `new Class()` around the handle that `restoreHandle(address, length)` makes from saved bytes:
  // constructors take it from takeRestoredHandle() instead of creating a fresh object.
  function fromBytes(Class, bytes, restoreHandle) {
    if (!(bytes instanceof Uint8Array)) {
      throw new BanditError(ErrorCode.INVALID_ARGUMENT, `${Class.name}.fromBytes expects a Uint8Array`);
    }
    const handle = withHeap([bytes], (address) => call(() => restoreHandle(address, bytes.length)));
    restoredHandle = handle;
    try {
      return new Class();
    } finally {
      if (restoredHandle) {
        restoredHandle.delete();
        restoredHandle = null;
      }
    }
  }

  return { Module, call, check, withHeap, leaks, disposeSymbol, toBytes, fromBytes };
}

let restoredHandle = null;

// Inside fromBytes: the restored handle a constructor must adopt (once), otherwise null.
export function takeRestoredHandle() {
  const handle = restoredHandle;
  restoredHandle = null;
  return handle;
}

// Base of every class that owns a C++ object.
export class WasmObject {
  #runtime;
  #handle;

  constructor(runtime, handle) {
    this.#runtime = runtime;
    this.#handle = handle;
    runtime.leaks?.register(this, handle, this);
  }

  get _runtime() {
    return this.#runtime;
  }

  // The live handle; DISPOSED after dispose().
  get _handle() {
    if (!this.#handle) throw new BanditError(ErrorCode.DISPOSED, `${this.constructor.name} was disposed`);
    return this.#handle;
  }

  // Calls `method(handle)` and throws the error it reported.
  _call(method) {
    const handle = this._handle;
    return this.#runtime.call(() => method(handle));
  }

  dispose() {
    if (!this.#handle) return;
    this.#runtime.leaks?.unregister(this);
    this.#handle.delete();
    this.#handle = null;
  }

  get disposed() {
    return this.#handle === null;
  }

  [disposeSymbol]() {
    this.dispose();
  }
}
