// The catalogue (docs/recommender.md, "Many users over one catalogue"): one arm set with its MIPS index, stored
// once and shared by any number of linear policies (`new sb.SubTS({ catalogue })`), each holding only
// its own model. Disposing a Catalogue releases this object's share: the C++ catalogue lives until
// the last policy over it is disposed too, so users keep working after their catalogue's dispose().
import { MAX_UINT32, readAddOptions, requireId, requireInteger, toFeatureArray, toIdArray } from './convert.js';

export function defineCatalogueClasses(runtime) {
  const { Module, withHeap, labelsOnHeap } = runtime;

  const CatalogueFamily = runtime.family('Catalogue', {
    create: runtime.createFrom(Module.createCatalogue),
    restore: (address, length, type) => Module.restoreCatalogue(address, length, type),
    table: {
      dim: { get: (handle) => handle.dim() },
      size: { get: (handle) => handle.size() },
      has: { args: [(id) => requireId(id)], call: (handle, id) => handle.has(id) },
      // add(ids, features, { labels }): labels, one unsigned integer per arm (a category), default 0.
      add: {
        args: [(ids) => toIdArray(ids), (features) => toFeatureArray(features, 'features'), readAddOptions],
        call: (handle, ids, features, labels) => withHeap([ids, features, labelsOnHeap(labels)],
          (idAddress, featureAddress, labelAddress) => handle.add(idAddress, ids.length, featureAddress, features.length,
            labelAddress, labels?.length ?? 0, labels !== null)),
      },
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
