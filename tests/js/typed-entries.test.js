// Typed arrays are checked by a loop of their own (convert.js, firstOutside): every typed array type
// a caller may pass gives the same answer as the plain array of its numbers, and the first entry
// out of range anywhere in it gets the same coded error as in a plain array.
import { describe, expect, test } from 'vitest';
import { expectBanditError, loadModule } from './helpers.js';

const sb = await loadModule();
const dim = 6;
const items = Float32Array.from({ length: 40 * dim }, (_, i) => Math.sin(i * 1.7) * 3);

function freshIndex() {
  const index = new sb.ExactIndex({ dim });
  index.add(Uint32Array.from({ length: 40 }, (_, i) => i), items);
  return index;
}

describe('typed arrays are read as their numbers', () => {
  test('every typed array type answers as the plain array of the same numbers', () => {
    const index = freshIndex();
    const plain = [3, -2, 0, 7, 1, -5];
    const expected = index.search(plain, 5);
    for (const Type of [Float32Array, Float64Array, Int8Array, Int16Array, Int32Array, Uint16Array, Uint8ClampedArray]) {
      const typed = Type.from(plain.map((x) => (Type.name.startsWith('Uint') ? Math.abs(x) : x)));
      const asNumbers = Array.from(typed);
      const answer = index.search(typed, 5);
      expect(Array.from(answer.ids), Type.name).toEqual(Array.from(index.search(asNumbers, 5).ids));
    }
    expect(Array.from(index.search(Float64Array.from(plain), 5).scores)).toEqual(Array.from(expected.scores));
    index.dispose();
  });

  test('the first entry out of range, at any position of any float type, is the plain array\'s error', () => {
    const index = freshIndex();
    const cases = [[NaN, 'NON_FINITE'], [Infinity, 'NON_FINITE'], [-Infinity, 'NON_FINITE'], [2e15, 'INVALID_ARGUMENT'], [-2e15, 'INVALID_ARGUMENT']];
    for (const Type of [Float32Array, Float64Array]) {
      for (const [bad, code] of cases) {
        for (const at of [0, 3, dim - 1]) {
          const query = new Type(dim).fill(1);
          query[at] = bad;
          if (Type === Float32Array && Math.abs(bad) === 2e15) query[at] = Math.fround(bad);
          const plain = Array.from(query);
          const fromPlain = expectBanditError(sb, () => index.search(plain, 3), code);
          const fromTyped = expectBanditError(sb, () => index.search(query, 3), code);
          expect(fromTyped.message, `${Type.name} ${bad} at ${at}`).toBe(fromPlain.message);
          expect(fromTyped.message).toContain(`query[${at}]`);
        }
      }
    }
    // Beyond float32's range a Float64Array entry overflows the stored float: NON_FINITE.
    const huge = new Float64Array(dim);
    huge[2] = 1e39;
    expectBanditError(sb, () => index.search(huge, 3), 'NON_FINITE');
    // Exactly the bound is accepted.
    const edge = new Float64Array(dim).fill(1);
    edge[4] = -1e15;
    expect(index.search(edge, 3).ids.length).toBe(3);
    index.dispose();
  });

  test('features of an add: a bad last entry refuses the batch and adds nothing', () => {
    const index = freshIndex();
    const features = new Float64Array(3 * dim).fill(0.5);
    features[3 * dim - 1] = -Infinity;
    expectBanditError(sb, () => index.add([100, 101, 102], features), 'NON_FINITE');
    expect(index.size).toBe(40);
    const catalogue = new sb.Catalogue({ dim });
    const floats = new Float32Array(2 * dim).fill(0.25);
    floats[dim + 2] = NaN;
    expectBanditError(sb, () => catalogue.add([1, 2], floats), 'NON_FINITE');
    expect(catalogue.size).toBe(0);
    floats[dim + 2] = 0.25;
    catalogue.add([1, 2], floats);
    expect(catalogue.size).toBe(2);
    catalogue.dispose();
    index.dispose();
  });
});
