// The one path from a public function to wasm, for every class and function of the package:
//
//   1. every argument is converted and validated (convert.js) -- getters and Proxies run here (no
//      toJSON ever does: convert.js writes options' JSON itself); a revoked Proxy is INVALID_ARGUMENT;
//   2. then the object's handle is taken (DISPOSED if it was disposed, also from inside a getter of 1);
//   3. then the call enters wasm, unless a call that calls back into JavaScript (simulate's
//      onProgress) is under way: re-entering the module from there is refused with a BanditError;
//   4. an error the C++ side parked (Module.pendingError) is thrown as a BanditError.
//
// Handles live in a WeakMap of this module, with the class that made each object (null once
// disposed), not on the objects: a wrapper cannot reach wasm but through members(), family() and
// func() below, so a new class cannot skip steps 1-4, and a method called on another class's object
// is refused.
import { BanditError, ErrorCode, invalidArgument } from './errors.js';
import { guardProxy, optionsToJson, proxyError, readOptions, tagOf, toBytes as readBytes } from './convert.js';

const disposeSymbol = Symbol.dispose ?? Symbol.for('Symbol.dispose');
// The bytes of a state given to the core to read its head: the envelope's head (at most 534 bytes,
// core/state_codec.hpp kLongestStateHead) and the payload's first fields (options, identity, counts).
const kInspectedBytes = 64 * 1024;
const handles = new WeakMap();

// The live handle of `object`, made by `Class` or a subclass; DISPOSED after dispose(),
// INVALID_ARGUMENT for anything else (a method called on another class's object or a plain object).
export function handleOf(object, Class, name = 'this') {
  const entry = handles.get(object);
  if (!entry) throw invalidArgument(`${name} is not a ${Class.name} of this package`);
  if (entry.Class !== Class && !(entry.Class.prototype instanceof Class)) throw invalidArgument(`${name} is a ${entry.Class.name}, not a ${Class.name}`);
  if (!entry.handle) throw new BanditError(ErrorCode.DISPOSED, `${entry.Class.name} was disposed`);
  return entry.handle;
}

export function createRuntime(Module) {
  // The name of the call under way that calls back into JavaScript, or null.
  let callingBack = null;

  function refuseReentry() {
    if (callingBack !== null) {
      throw invalidArgument(`no call into the module may be made while ${callingBack} is running (from its onProgress); call it after ${callingBack} returns`);
    }
  }

  function check() {
    const pending = Module.pendingError;
    if (pending) {
      Module.pendingError = null;
      throw new BanditError(pending[0], pending[1]);
    }
  }

  // Runs `thunk` (which calls into wasm) and throws what the C++ side reported. An error parked by
  // C++ explains any JavaScript failure that followed it (a result read after a failed call).
  function call(thunk) {
    refuseReentry();
    Module.pendingError = null;
    let result;
    try {
      result = thunk();
    } catch (error) {
      check();
      throw error;
    }
    check();
    return result;
  }

  // call() for a wasm call that calls `callback` back (simulate's onProgress). The callback's own
  // exception must not unwind through wasm frames: it is kept, the callback answers false (C++ stops
  // and reports), and the exception is rethrown here in place of that report. While the call runs,
  // every other call into the module is refused (refuseReentry).
  function callWithCallback(name, callback, thunk) {
    refuseReentry();
    let callbackError = null;
    const wrapped = callback === undefined ? undefined : (...args) => {
      try {
        callback(...args);
        return true;
      } catch (error) {
        callbackError ??= { error };
        return false;
      }
    };
    Module.pendingError = null;
    callingBack = name;
    let result;
    try {
      result = thunk(wrapped);
    } finally {
      callingBack = null;
    }
    if (callbackError !== null) {
      Module.pendingError = null;
      result?.delete?.();
      throw callbackError.error;
    }
    check();
    return result;
  }

  // The wasm memory's current buffer. Growth replaces it; Module.HEAPU8 follows a growth made on this
  // thread, but not one made by a thread of the threaded build (an index being built in parallel).
  // The memory object itself is fixed and its buffer always current: the threaded build's is
  // Module.wasmMemory, the single-thread build's one of Module.asm's exports. It is looked up once:
  // a search reads the buffer at every call, and Module is a large object whose property reads are
  // slow ones. Module.HEAPU8 remains the way if neither is found.
  const memory = Module.wasmMemory ?? Object.values(Module.asm ?? {}).find((value) => value instanceof WebAssembly.Memory);
  function heapBuffer() {
    return (memory ?? Module.HEAPU8).buffer;
  }

  // Whole-heap views, made again only when growth replaced the buffer: a search's query is copied in
  // and its answer (count, addresses, ids, scores) read out through them, each array with one set or
  // one slice, rather than through new views made at every call (a view on a given buffer is one of
  // the slower objects to make).
  let views = { buffer: null };
  function heapViews() {
    const buffer = heapBuffer();
    if (views.buffer !== buffer) {
      views = { buffer, Uint8Array: new Uint8Array(buffer), Uint32Array: new Uint32Array(buffer), Float32Array: new Float32Array(buffer), Float64Array: new Float64Array(buffer) };
    }
    return views;
  }
  const heapWords = () => heapViews().Uint32Array;
  const heapFloats = () => heapViews().Float32Array;

  // Small arrays (a query, a short exclude list) are copied into one block of the heap kept for the
  // purpose, rather than into a malloc'd block freed after the call: a search over a small index
  // spent a tenth of its call in malloc and free. The block is taken by one call at a time (a nested
  // call, from a callback, mallocs as before) and holds only the last such copy.
  // Taken when the runtime is made, so that memoryUsage() counts it from the start; 0 (never used) if
  // the heap could not hold it.
  const SCRATCH_BYTES = 4096;
  // Large inputs (an index's vectors, its saved state) beyond this many bytes stay where they are,
  // and C++ reads them a mebibyte at a time (core/piece_source.hpp): a whole copy on the heap,
  // freed after the call, would leave wasm memory that much larger for good (it never shrinks).
  const STREAMED_BYTES = 2 ** 20;
  const scratch = Module._malloc(SCRATCH_BYTES) >>> 0;
  let scratchBusy = false;

  // Copies typed arrays onto the wasm heap for the duration of `body(...addresses)`. The arrays are
  // the converters' results: real typed arrays, not detached. An empty array gets address 0 and no
  // allocation: the core reads nothing at an address it is given with length 0, so callers pass
  // empty filters and the like as they are.
  // ids copied to the heap and rows beside them, or, for rows above STREAMED_BYTES, the rows left in
  // their array: body gets address 0 and the array, which C++ reads a piece at a time.
  function withIdsAndRows(ids, rows, body) {
    if (rows.byteLength > STREAMED_BYTES) return withHeap([ids], (idAddress) => body(idAddress, 0, rows));
    return withHeap([ids, rows], (idAddress, rowAddress) => body(idAddress, rowAddress, undefined));
  }

  function withHeap(arrays, body) {
    if (!scratchBusy && scratch !== 0) {
      let bytes = 0;
      for (const array of arrays) bytes += (array.byteLength + 7) & ~7;
      if (bytes <= SCRATCH_BYTES) return withScratch(arrays, body);
    }
    const addresses = [];
    try {
      for (const array of arrays) {
        if (array.byteLength === 0) {
          addresses.push(0);
          continue;
        }
        // >>> 0: malloc returns an i32, negative for addresses past 2 GiB (the heap may grow to 4 GiB).
        const address = Module._malloc(array.byteLength) >>> 0;
        if (!address) {
          throw new BanditError(ErrorCode.OUT_OF_MEMORY, `out of memory: cannot allocate ${array.byteLength} bytes on the WebAssembly heap (4 GiB at most)`);
        }
        addresses.push(address);
        // Views are read after each malloc: growing memory replaces the heap's buffer.
        new Uint8Array(heapBuffer(), address, array.byteLength).set(
          new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
      }
      return body(...addresses);
    } finally {
      for (const address of addresses) if (address !== 0) Module._free(address);
    }
  }

  const ELEMENT_BYTES = Object.assign(Object.create(null), { Uint8Array: 1, Uint32Array: 4, Float32Array: 4, Float64Array: 8 });
  // withHeap's arrays laid out in the scratch block, each at an 8-byte boundary (doubles'). The
  // arrays are the converters' (Uint8Array, Uint32Array, Float32Array, Float64Array): each is set
  // through the heap view of its own type, a plain copy of its elements.
  function withScratch(arrays, body) {
    scratchBusy = true;
    try {
      const heap = heapViews();
      const addresses = [];
      let at = scratch;
      for (const array of arrays) {
        const bytes = array.byteLength;
        if (bytes === 0) {
          addresses.push(0);
          continue;
        }
        addresses.push(at);
        // The intrinsic tag, not array.constructor, which another script may have changed.
        const tag = tagOf(array);
        const element = ELEMENT_BYTES[tag];
        if (element !== undefined) heap[tag].set(array, at / element);
        else heap.Uint8Array.set(new Uint8Array(array.buffer, array.byteOffset, bytes), at);
        at += (bytes + 7) & ~7;
      }
      return body(...addresses);
    } finally {
      scratchBusy = false;
    }
  }

  // The attributes read by attributes.js on the heap for body({ ...attributes, labelAddress,
  // countAddress, valueAddress }).
  const attributesOnHeap = (attributes, body) => withHeap([attributes.labels, attributes.counts, attributes.values],
    (labelAddress, countAddress, valueAddress) => body({ ...attributes, labelAddress, countAddress, valueAddress }));

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

  // A function of the module: `converters[i]` reads argument i, then `body(...values)` runs in call().
  function func(converters, body, name = 'this function') {
    return function (...args) {
      refuseExtraArguments(name, args, converters.length);
      const values = convertArguments(converters, args, name);
      return call(() => body(...values));
    };
  }

  // Installs methods and getters on `Class.prototype`. Each member is { args, call: (handle,
  // ...values) => result } or { get: (handle) => value }; `args` is one converter per argument, or
  // for an overloaded method a function from the argument list to the converted values.
  function members(Class, table) {
    for (const [name, member] of Object.entries(table)) {
      if (member.get) {
        const read = member.get;
        Object.defineProperty(Class.prototype, name, {
          get() {
            const handle = handleOf(this, Class);
            return call(() => read(handle));
          },
          configurable: true,
        });
        continue;
      }
      const { args = [], call: body } = member;
      // Made once, not at every call: it is only needed in a refusal's message.
      const what = `${Class.name}.${name}()`;
      const method = {
        [name](...values) {
          if (typeof args !== 'function') refuseExtraArguments(what, values, args.length);
          const converted = typeof args === 'function'
            ? guardProxy(() => args(values), `an argument of ${what}`)
            : convertArguments(args, values, what);
          const handle = handleOf(this, Class);
          return call(() => body(handle, ...converted));
        },
      }[name];
      Object.defineProperty(Class.prototype, name, { value: method, writable: true, configurable: true });
    }
  }

  // A family's create() when its options go to the module as they are: the class's type added,
  // turned into JSON (outside call(), whose errors are the module's), then `factory(json)`.
  function createFrom(factory) {
    return (type, options) => {
      const json = typedOptions(type, options);
      return call(() => factory(json));
    };
  }

  // The base class of one family of wrappers (indexes, linear policies, ...): subclasses differ only
  // by `static type`, the C++ type they create. `create(type, options)` reads the options and makes a
  // handle (inside call()); `restore(address, length, array, type, restored)` makes one from saved
  // bytes, `length` of them at `address` on the heap or, when `address` is 0, in `array` (a state
  // larger than STREAMED_BYTES, left where it is: C++ reads it a piece at a time), `restored` being
  // what `restoreOptions(options)` read from fromBytes' second argument, if the family takes one (a
  // linear policy's { catalogue }).
  function family(name, { create, restore, restoreOptions, table }) {
    const Base = {
      [name]: class extends WasmObject {
        constructor(options, ...extra) {
          refuseExtraArguments(`new ${new.target.name}()`, [options, ...extra], 1);
          const restored = takeRestoredHandle(new.target);
          super(runtime, restored ?? guardProxy(() => create(new.target.type, options), `the options of new ${new.target.name}()`));
        }

        static fromBytes(bytes, options, ...extra) {
          // fromBytes(bytes, { catalogue }) where the family restores over a catalogue.
          refuseExtraArguments(`${name}.fromBytes()`, [bytes, options, ...extra], restoreOptions ? 2 : 1);
          if (typeof this !== 'function' || !(this.prototype instanceof Base)) {
            throw invalidArgument(`fromBytes must be called on a class of the package: ${name} subclasses, e.g. sb.<Class>.fromBytes(bytes)`);
          }
          const array = stateToCopy(readBytes(bytes, `${this.name}.fromBytes(bytes)`));
          const restored = restoreOptions ? guardProxy(() => restoreOptions(options), `the options of ${this.name}.fromBytes()`) : undefined;
          const type = this.type;
          const handle = call(() => (array.byteLength > STREAMED_BYTES
            ? restore(0, array.length, array, type, restored)
            : withHeap([array], (address) => restore(address, array.length, undefined, type, restored))));
          // A subclass's constructor may run code before super(), another fromBytes included: the
          // slot is set back as it was, so each constructor adopts the handle made for its own class.
          const outer = restoring;
          restoring = { handle, Class: this };
          try {
            return new this();
          } finally {
            if (restoring !== null && restoring.handle === handle) handle.delete();
            restoring = outer;
          }
        }
      },
    }[name];
    members(Base, {
      // The whole state (docs/state-format.md): <Class>.fromBytes restores it.
      toBytes: {
        call: (handle) => handle.toBytes(),
      },
      stats: { call: (handle) => JSON.parse(handle.stats()) },
      ...table,
    });
    return Base;
  }

  // { ClassName: 'kebab-type', ... } -> the named subclasses of `Base`. A name is given to one class
  // of the module only: a build whose registries named two classes alike fails here, at init().
  const classNames = new Set();
  function subclasses(Base, types) {
    return Object.fromEntries(Object.entries(types).map(([name, type]) => {
      if (classNames.has(name)) throw new Error(`two classes of this module are named ${name}`);
      classNames.add(name);
      return [name, {
        [name]: class extends Base {
          static type = type;
        },
      }[name]];
    }));
  }

  // The subclasses of `Base` for every type of `kind` ('index', 'linear-policy', ...) that the
  // module's C++ registries hold, each named by its registry entry's className (registry_bindings.cpp):
  // a type registered in C++ is a class here with no line of JavaScript.
  let registered;
  function registeredSubclasses(Base, kind) {
    registered ??= JSON.parse(Module.registeredClassList());
    return subclasses(Base, Object.fromEntries(registered.filter((entry) => entry.kind === kind).map((entry) => [entry.className, entry.type])));
  }

  // The one reader of a saved state's head is the core's (core/state_inspection.hpp): it is given
  // the state's first kInspectedBytes, never more, so reading a head costs the same for any state
  // and nothing is allocated for the sizes the bytes claim. Returns the core's summary (inside call()).
  function inspectState(array) {
    const head = array.subarray(0, Math.min(array.length, kInspectedBytes));
    // size_t is 32 bits in wasm: a longer array (which could not be loaded anyway) is read as one that
    // does not match its declared length.
    const length = Math.min(array.length, 0xFFFFFFFF);
    return JSON.parse(call(() => withHeap([head], (address) => Module.inspectState(address, head.length, length))));
  }

  // What fromBytes copies to the wasm heap for `array`: all of it only when its head says it is a
  // state whose declared payload length accounts for every byte; otherwise only its first bytes,
  // from which the core reports the damage with its usual message (another format version, a length
  // that does not match). Bytes that are not a state are refused by inspectState.
  function stateToCopy(array) {
    return inspectState(array).complete ? array : array.subarray(0, Math.min(array.length, kInspectedBytes));
  }

  // The JSON of a constructor's options with the class's type, read before anything is created.
  function typedOptions(type, options) {
    return optionsToJson({ ...readOptions(options, 'options'), type });
  }

  const runtime = { STREAMED_BYTES, Module, heapBuffer, heapWords, heapFloats, call, callWithCallback, withHeap, withIdsAndRows, attributesOnHeap, createFrom, leaks, func, members, family, subclasses, registeredSubclasses, typedOptions, inspectState };
  return runtime;
}

// `converters[i]` applied to argument i; it is also given the values converted before it (a rewards
// array is checked against its ids' count before any of its elements is read). An argument not given
// is undefined, never what another script put on Array.prototype. The converters guard what they
// read; a revoked Proxy that reaches a read they did not guard is still an INVALID_ARGUMENT.
function convertArguments(converters, args, what) {
  const values = [];
  for (let i = 0; i < converters.length; i++) {
    const value = i < args.length ? args[i] : undefined;
    // guardProxy's catch, written out: no closure made for each argument of each call.
    try {
      values.push(converters[i](value, values));
    } catch (error) {
      throw proxyError(error, `argument ${i + 1} of ${what}`);
    }
  }
  return values;
}

// Nothing a caller passes is ignored: an argument beyond those a method takes (an options object
// for a method that has none, say) is refused rather than silently dropped.
// `given` is the arguments' list or its length; trailing undefined arguments count as not given.
export function refuseExtraArguments(what, given, accepted) {
  if (typeof given !== 'number') {
    let length = given.length;
    while (length > accepted && given[length - 1] === undefined) length -= 1;
    given = length;
  }
  if (given > accepted) {
    throw invalidArgument(`${what} takes at most ${accepted} argument${accepted === 1 ? '' : 's'}, got ${given}`);
  }
}

// Inside fromBytes: { handle, Class }, the restored handle that the constructor of `Class` adopts.
let restoring = null;

// The restored handle a constructor of `target` must adopt (once), otherwise null: the constructor
// of another class, run by a subclass's code before super(), creates its own object.
function takeRestoredHandle(target) {
  if (restoring === null || restoring.Class !== target) return null;
  const { handle } = restoring;
  restoring = null;
  return handle;
}

// Base of every class that owns a C++ object.
export class WasmObject {
  #runtime;

  constructor(runtime, handle) {
    this.#runtime = runtime;
    // The class that made the object: methods check it (handleOf), whatever its prototype becomes.
    handles.set(this, { handle, Class: new.target });
    runtime.leaks?.register(this, handle, this);
  }

  dispose() {
    const entry = handles.get(this);
    if (!entry?.handle) return;
    const { handle } = entry;
    entry.handle = null;
    this.#runtime.leaks?.unregister(this);
    handle.delete();
  }

  get disposed() {
    return !handles.get(this)?.handle;
  }

  [disposeSymbol]() {
    this.dispose();
  }
}
