// The catalogue (docs/recommender.md, "Many users over one catalogue"): one arm set with its MIPS index, stored
// once and shared by any number of linear policies (`new sb.SubTS({ catalogue })`), each holding only
// its own model. Disposing a Catalogue releases this object's share: the C++ catalogue lives until
// the last policy over it is disposed too, so users keep working after their catalogue's dispose().
import { attributeChangeMethods, attributedAddMethod, featureChangeMethod } from './attributes.js';
import { MAX_UINT32, requireId, requireInteger, toFeatureArray, toIdArray } from './convert.js';

export function defineCatalogueClasses(runtime) {
  const { Module, withHeap } = runtime;

  const CatalogueFamily = runtime.family('Catalogue', {
    create: runtime.createFrom(Module.createCatalogue),
    restore: (address, length, array, type) => Module.restoreCatalogue(address, length, array, type),
    table: {
      dim: { get: (handle) => handle.dim() },
      size: { get: (handle) => handle.size() },
      has: { args: [(id) => requireId(id)], call: (handle, id) => handle.has(id) },
      ...attributedAddMethod(runtime, 'add', (ids) => toIdArray(ids), toFeatureArray),
      ...attributeChangeMethods(runtime, (ids) => toIdArray(ids)),
      // setFeatures(ids, features): an arm's embedding changes in place; the index follows and every
      // user sees the arm as a new one at its next call.
      ...featureChangeMethod(runtime, (ids) => toIdArray(ids), toFeatureArray),
      remove: {
        args: [(ids) => toIdArray(ids)],
        call: (handle, ids) => withHeap([ids], (address) => handle.remove(address, ids.length)),
      },
      // The index's waiting items into its structure now (an HnswIndex builds a slice per search by
      // default): all of them, or at most maxItems; returns how many still wait.
      build: {
        args: [(maxItems = MAX_UINT32) => requireInteger(maxItems, 'maxItems', 0, MAX_UINT32)],
        call: (handle, maxItems) => handle.build(maxItems),
      },
    },
  });

  // sb.Catalogue: the family's one class.
  const { Catalogue } = runtime.subclasses(CatalogueFamily, { Catalogue: 'catalogue' });
  return { Catalogue, CatalogueFamily };
}
