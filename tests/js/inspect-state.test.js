// sb.inspectState(bytes) (issue 52, point 4): the one reader of a saved state's head. Every golden
// state is named by its class, format and sizes; hostile bytes are a coded error, cheaply and with
// nothing allocated for what they claim; fromBytes and the CLI read states through it (no other
// file of the package parses the envelope).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { buildFile, crc32, expectBanditError, fastestMs, gaussian, goldenFolders, loadModule, registeredClasses, seededRandom } from './helpers.js';

const sb = await loadModule({ warmUp: false });
// Every registered linear policy (a new one is a case by itself).
const linearPolicies = registeredClasses(sb, 'linear-policy').map(([name]) => name);
const currentFormat = 5;

// An envelope written by hand: magic, format, library and type strings, payload length, payload, CRC.
function envelope({ magic = 'SBST', format = currentFormat, library = '0.4.0', type = 'exact', payload = new Uint8Array(0), declared } = {}) {
  const encode = (text) => new TextEncoder().encode(text);
  const parts = [encode(magic), new Uint8Array(2)];
  new DataView(parts[1].buffer).setUint16(0, format, true);
  for (const text of [library, type]) {
    const length = new Uint8Array(4);
    new DataView(length.buffer).setUint32(0, encode(text).length, true);
    parts.push(length, encode(text));
  }
  const payloadLength = new Uint8Array(8);
  new DataView(payloadLength.buffer).setBigUint64(0, BigInt(declared ?? payload.length), true);
  parts.push(payloadLength, payload);
  const size = parts.reduce((sum, part) => sum + part.length, 0);
  const out = new Uint8Array(size + 4);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  new DataView(out.buffer).setUint32(size, crc32(out.subarray(0, size)), true);
  return out;
}

// A payload of the options' JSON (u64 length + text) followed by `rest`.
function optionsPayload(text, rest = new Uint8Array(0), claimed) {
  const json = new TextEncoder().encode(text);
  const out = new Uint8Array(8 + json.length + rest.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(claimed ?? json.length), true);
  out.set(json, 8);
  out.set(rest, 8 + json.length);
  return out;
}

describe('every golden state', () => {
  // The package's, and in the toy run the toys' too.
  const folders = goldenFolders();
  test.each(folders.map(({ name, folder }) => [name, folder]))('%s: each file is named by its class and format', (folderName, folder) => {
    const { library, format } = JSON.parse(readFileSync(new URL('transcripts.json', folder), 'utf8'));
    for (const file of readdirSync(folder).filter((name) => name.endsWith('.sbst'))) {
      const bytes = new Uint8Array(readFileSync(new URL(file, folder)));
      const info = sb.inspectState(bytes);
      expect(info.class, file).toBe(file.slice(0, -5));
      expect(info.formatVersion).toBe(format);
      expect(info.libraryVersion).toBe(format === 1 ? '0.1.x' : library);
      expect(info.sizes.bytes).toBe(bytes.length);
    }
  });

  test.each(folders.filter(({ format }) => format === currentFormat).map(({ name, folder }) => [name, folder]))('%s: sizes as the restored object has them, a catalogue its identity', (folderName, folder) => {
    for (const file of readdirSync(folder).filter((name) => name.endsWith('.sbst'))) {
      const name = file.slice(0, -5);
      const bytes = new Uint8Array(readFileSync(new URL(file, folder)));
      const info = sb.inspectState(bytes);
      expect(info.type).toBe(sb[name].type);
      expect(info.sizes.payloadBytes).toBeGreaterThan(0);
      expect(info.sizes.payloadBytes).toBeLessThan(bytes.length);
      const restored = sb[name].fromBytes(bytes);
      if (restored.dim !== undefined) expect(info.sizes.dim, name).toBe(restored.dim);
      if ('size' in restored && info.sizes.items !== undefined) expect(info.sizes.items, name).toBe(restored.size);
      if (name === 'Catalogue') {
        expect(info.sizes.arms).toBe(restored.size);
        expect(info.catalogueIdentity).toBe(restored.stats().identity);
      } else if (linearPolicies.includes(name)) {
        expect(info.sizes.arms, name).toBe(restored.armCount);
      }
      if (name !== 'Catalogue') expect(info.catalogueIdentity).toBeUndefined();
      restored.dispose();
    }
  });
});

test("a user's state names the catalogue it must be restored over; its dim is the catalogue's", () => {
  const dim = 6;
  const catalogue = new sb.Catalogue({ dim, index: { type: 'exact' }, seed: 1 });
  catalogue.add(Uint32Array.from({ length: 40 }, (_, i) => i), gaussian(seededRandom(3), 40 * dim));
  for (const Class of linearPolicies.map((name) => sb[name])) {
    const user = new Class({ catalogue, seed: 2 });
    const bytes = user.toBytes();
    const info = sb.inspectState(bytes);
    expect(info.class).toBe(Class.name);
    expect(info.type).toBe(`${Class.type}@catalogue`);
    expect(info.catalogueIdentity).toBe(catalogue.stats().identity);
    expect(info.sizes.dim).toBeUndefined();
    expect(info.sizes.arms).toBeUndefined();
    user.dispose();
  }
  const own = new sb.LinTS({ dim, seed: 1 });
  own.addArms([1, 2, 3], gaussian(seededRandom(4), 3 * dim));
  expect(sb.inspectState(own.toBytes()).sizes).toMatchObject({ dim, arms: 3 });
  // An ArrayBuffer is read as its bytes.
  expect(sb.inspectState(own.toBytes().slice().buffer).class).toBe('LinTS');
  own.dispose();
  catalogue.dispose();
});

describe('hostile bytes', () => {
  const index = new sb.ExactIndex({ dim: 3 });
  index.add([1, 2], [1, 0, 0, 0, 1, 0]);
  const valid = index.toBytes();
  index.dispose();

  test('anything but bytes is INVALID_ARGUMENT', () => {
    for (const value of [undefined, null, 'SBST', 42, [83, 66, 83, 84], {}, new Float64Array(4)]) {
      expectBanditError(sb, () => sb.inspectState(value), 'INVALID_ARGUMENT');
    }
    expectBanditError(sb, () => sb.inspectState(valid, {}), 'INVALID_ARGUMENT');
  });

  test('bytes that are not a state, or a state of this format that is cut or padded, are CORRUPT_STATE', () => {
    const cases = [
      new Uint8Array(0),
      new Uint8Array([0x53, 0x42, 0x53]),
      new TextEncoder().encode('PK\u0003\u0004 a zip file'),
      Uint8Array.from({ length: 64 }, (_, i) => (i * 37 + 11) & 255),
      envelope({ magic: 'SBSU' }),
      valid.subarray(0, 6),
      valid.subarray(0, 20),
      valid.subarray(0, valid.length - 1),
      Uint8Array.from([...valid, 0]),
      envelope({ payload: optionsPayload('{}'), declared: 2 ** 60 }),
      envelope({ type: 'toy-index-of-another-build', payload: optionsPayload('{}') }),
      envelope({ type: '\u00ff\u00fe' }),
      // A type name that is not UTF-8.
      Uint8Array.from(valid, (byte, i) => (i >= 19 && i < 24 ? 0xff : byte)),
    ].map((bytes) => Uint8Array.from(bytes));
    for (const bytes of cases) {
      const error = expectBanditError(sb, () => sb.inspectState(bytes), 'CORRUPT_STATE');
      expect(error.message).toMatch(/^saved state is damaged: /);
    }
    // Type and library strings longer than any name (the head's limit, 256 bytes).
    const long = envelope({ type: 'x'.repeat(300) });
    expectBanditError(sb, () => sb.inspectState(long), 'CORRUPT_STATE');
  });

  test('claimed sizes cost nothing: a 2^32-byte string, a 2^60-byte options text, a 2^60-item index', () => {
    const before = sb.memoryUsage();
    const claims = [];
    const hugeString = envelope();
    new DataView(hugeString.buffer).setUint32(6, 0xffffffff, true);
    claims.push(hugeString);
    claims.push(envelope({ payload: optionsPayload('{"type":"exact","dim":3}', new Uint8Array(8), 2 ** 60) }));
    const count = new Uint8Array(8);
    new DataView(count.buffer).setBigUint64(0, 2n ** 60n, true);
    const manyItems = envelope({ payload: optionsPayload('{"type":"exact","dim":3}', count) });
    const inspections = () => {
      expectBanditError(sb, () => sb.inspectState(claims[0]), 'CORRUPT_STATE');
      // A payload that is damaged past the head is still a state: what cannot be read is left out.
      expect(sb.inspectState(claims[1]).sizes.dim).toBeUndefined();
      expect(sb.inspectState(manyItems).sizes).toMatchObject({ dim: 3, items: 2 ** 60 });
    };
    expect(fastestMs(inspections)).toBeLessThan(100);
    expect(sb.memoryUsage().allocatedBytes).toBe(before.allocatedBytes);
    expect(sb.memoryUsage().heapBytes).toBe(before.heapBytes);
  });

  test('a damaged checksum is fromBytes\' to find (inspectState reads the head only); the module stays usable', () => {
    const flipped = valid.slice();
    flipped[flipped.length - 1] ^= 1;
    expect(sb.inspectState(flipped).class).toBe('ExactIndex');
    expectBanditError(sb, () => sb.ExactIndex.fromBytes(flipped), 'CORRUPT_STATE');
    const restored = sb.ExactIndex.fromBytes(valid);
    expect(restored.size).toBe(2);
    restored.dispose();
  });

  test('a large state is inspected from its first bytes: the heap holds no copy of it', () => {
    const large = new sb.ExactIndex({ dim: 64 });
    large.add(Uint32Array.from({ length: 20000 }, (_, i) => i), gaussian(seededRandom(8), 20000 * 64));
    const bytes = large.toBytes();
    large.dispose();
    const before = sb.memoryUsage().allocatedBytes;
    expect(sb.inspectState(bytes).sizes).toMatchObject({ bytes: bytes.length, dim: 64, items: 20000 });
    expect(sb.memoryUsage().allocatedBytes).toBe(before);
  });
});

describe('one reader', () => {
  test('no file of the package but the core reads the envelope: the runtime and the CLI ask inspectState', () => {
    const source = new URL('../../web/src/', import.meta.url);
    for (const file of readdirSync(source).filter((name) => /\.(m?js|cjs)$/.test(name))) {
      const text = readFileSync(new URL(file, source), 'utf8');
      expect(text, file).not.toMatch(/0x53, 0x42|'SBST'|getBigUint64|getUint16\(4/);
    }
    expect(readFileSync(new URL('cli.js', source), 'utf8')).toContain('sb.inspectState(');
    expect(readFileSync(new URL('runtime.js', source), 'utf8')).toMatch(/Module\.inspectState\(/);
  });

  test("the CLI's evaluate --state: a user's state without its catalogue is named, not a stack trace", () => {
    const directory = mkdtempSync(join(tmpdir(), 'sublinear-inspect-'));
    const cli = fileURLToPath(buildFile('cli.js'));
    const run = (...args) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
    const catalogue = new sb.Catalogue({ dim: 3, index: { type: 'exact' } });
    catalogue.add([1, 2], [1, 0, 0, 0, 1, 0]);
    const user = new sb.LinUCB({ catalogue });
    writeFileSync(join(directory, 'user.bin'), user.toBytes());
    writeFileSync(join(directory, 'index.bin'), (() => {
      const index = new sb.ExactIndex({ dim: 3 });
      const bytes = index.toBytes();
      index.dispose();
      return bytes;
    })());
    writeFileSync(join(directory, 'junk.bin'), 'not a state');
    writeFileSync(join(directory, 'log.jsonl'), `${sb.formatDecision({ arm: 1, reward: 1, propensity: 0.5 })}\n`);
    const log = join(directory, 'log.jsonl');
    const noCatalogue = run('evaluate', '--log', log, '--state', join(directory, 'user.bin'));
    expect(noCatalogue.status).toBe(1);
    expect(noCatalogue.stderr).toContain(`over catalogue ${catalogue.stats().identity}`);
    const index = run('evaluate', '--log', log, '--state', join(directory, 'index.bin'));
    expect(index.status).toBe(1);
    expect(index.stderr).toContain('it is the state of ExactIndex');
    const junk = run('evaluate', '--log', log, '--state', join(directory, 'junk.bin'));
    expect(junk.status).toBe(1);
    expect(junk.stderr).toContain('error: CORRUPT_STATE: saved state is damaged: not a sublinear-bandits state');
    user.dispose();
    catalogue.dispose();
  });
});
