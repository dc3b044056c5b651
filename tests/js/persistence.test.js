// toBytes() / <Class>.fromBytes() through the package: a restored object continues exactly as the
// original, and damaged or foreign bytes throw CORRUPT_STATE while the module stays usable.
import { describe, expect, test } from 'vitest';
import { expectBanditError, gaussian, loadModule, seededRandom } from './helpers.js';

const sb = await loadModule();

const dim = 6;
// [class name, options]: every index class whose state is saved.
const indexClasses = [
  ['ExactIndex', {}],
];

function populate(index, random, first, count) {
  const ids = Uint32Array.from({ length: count }, (_, i) => first + i);
  index.add(ids, gaussian(random, count * dim));
}

describe('index persistence', () => {
  for (const [name, options] of indexClasses) {
    test(`${name}: restored index gives the same answers after the same operations`, () => {
      const Class = sb[name];
      const random = seededRandom(3);
      const original = new Class({ dim, seed: 4, ...options });
      populate(original, random, 0, 200);
      original.remove([5, 6, 7]);
      const bytes = original.toBytes();
      expect(bytes).toBeInstanceOf(Uint8Array);
      expect(String.fromCharCode(...bytes.subarray(0, 4))).toBe('SBST');
      const restored = Class.fromBytes(bytes);
      expect(restored).toBeInstanceOf(Class);
      expect(restored.size).toBe(original.size);
      expect(restored.has(5)).toBe(false);
      const a = seededRandom(9);
      const b = seededRandom(9);
      for (let round = 0; round < 4; round++) {
        populate(original, a, 1000 + 10 * round, 10);
        populate(restored, b, 1000 + 10 * round, 10);
        original.remove([20 + round]);
        restored.remove([20 + round]);
        const query = gaussian(a, dim);
        gaussian(b, dim);
        const x = original.search(query, 7);
        const y = restored.search(query, 7);
        expect(Array.from(y.ids)).toEqual(Array.from(x.ids));
        expect(Array.from(y.scores)).toEqual(Array.from(x.scores));
      }
      expect(restored.stats()).toEqual(original.stats());
      expect(Array.from(restored.toBytes())).toEqual(Array.from(original.toBytes()));
      original.dispose();
      restored.dispose();
    });

    test(`${name}: damaged, truncated and foreign bytes throw CORRUPT_STATE`, () => {
      const Class = sb[name];
      const index = new Class({ dim, seed: 4, ...options });
      populate(index, seededRandom(5), 0, 30);
      const bytes = index.toBytes();
      const flipped = bytes.slice();
      flipped[Math.floor(bytes.length / 2)] ^= 1;
      expectBanditError(sb, () => Class.fromBytes(flipped), 'CORRUPT_STATE');
      expectBanditError(sb, () => Class.fromBytes(bytes.subarray(0, bytes.length - 1)), 'CORRUPT_STATE');
      expectBanditError(sb, () => Class.fromBytes(new Uint8Array(0)), 'CORRUPT_STATE');
      const Other = name === 'ExactIndex' ? sb.HnswIndex : sb.ExactIndex;
      expectBanditError(sb, () => Other.fromBytes(bytes), 'CORRUPT_STATE');
      expectBanditError(sb, () => Class.fromBytes([1, 2, 3]), 'INVALID_ARGUMENT');
      // The original is untouched and still answers.
      expect(index.search(gaussian(seededRandom(1), dim), 3).ids.length).toBe(3);
      index.dispose();
      expectBanditError(sb, () => index.toBytes(), 'DISPOSED');
    });
  }
});
