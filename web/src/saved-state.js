// sb.inspectState(bytes): what a saved state is, read from its head without loading it (README,
// "Saving state"; docs/state-format.md). The core reads the head (core/state_inspection.hpp), the
// same reader fromBytes uses before it copies a state; this file only names the class and shapes
// the answer.
import { BanditError, ErrorCode } from './errors.js';
import { toBytes as readBytes } from './convert.js';

// `classes`: the package's classes; those with a static `type` are the ones a state can be of.
export function defineInspectState(runtime, classes) {
  const classOfType = new Map();
  for (const [name, Class] of Object.entries(classes)) {
    if (typeof Class === 'function' && typeof Class.type === 'string') classOfType.set(Class.type, name);
  }
  const corrupt = (why) => new BanditError(ErrorCode.CORRUPT_STATE, `saved state is damaged: ${why}`);

  return runtime.func([(bytes) => readBytes(bytes, 'inspectState(bytes)')], (array) => {
    const head = runtime.inspectState(array);
    const className = classOfType.get(head.classType);
    if (className === undefined) throw corrupt(`it holds a '${head.type}', which no class of this package restores`);
    // A state of this library's format must account for its bytes; one of another format is named
    // by its version (fromBytes refuses it, naming both versions).
    if (head.damage !== undefined) throw corrupt(head.damage);
    const info = { class: className, type: head.type, formatVersion: head.formatVersion, libraryVersion: head.libraryVersion, sizes: head.sizes };
    if (head.catalogueIdentity !== undefined) info.catalogueIdentity = head.catalogueIdentity;
    return info;
  }, 'inspectState()');
}
