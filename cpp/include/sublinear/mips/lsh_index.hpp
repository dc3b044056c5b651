#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "sublinear/core/options.hpp"
#include "sublinear/mips/batch_scratch.hpp"
#include "sublinear/mips/mips_index.hpp"

namespace sublinear {

// Simple-LSH (Neyshabur & Srebro 2015), the LSH-MIPS baseline of Liu et al. (arXiv:1812.06360): items are
// scaled by U >= max |x| and lifted to the unit sphere, x -> (x / U, sqrt(1 - |x / U|^2)); the query is
// normalised and lifted with a 0, q -> (q / |q|, 0). Then <x', q'> = <x, q> / (U |q|), so sign random
// projections (SimHash) of the lifted vectors collide more for larger inner products. `tables` (b)
// hash tables each AND `bits` (a) signs; the candidates are the union (OR) of the query's buckets,
// every one of them ranked exactly by the base class.
//
// When the union has fewer than the requested number of candidates, the buckets at Hamming distance 1
// from the query's key are probed too (bit by bit, each bit across all tables) until there are enough; if even
// those are too few, fewer results are returned.
//
// A changing set: each item remembers its key and its position in every table's bucket, so removal
// swaps it out of each bucket in O(tables). U is the largest norm at the first build; an item beyond U
// rehashes everything with U = kNormHeadroom times the new largest norm (U grows geometrically, so
// rehashes are rare; a larger U than needed pushes every collision probability towards 1/2).
class LshIndex final : public MipsIndex {
 public:
  static constexpr double kNormHeadroom = 1.1;

  // Options: bits (a, in [1, 64], default 8), tables (b, in [1, 1000], default 16), seed.
  LshIndex(std::size_t dim, const Json& options);
  std::string type() const override { return "lsh"; }
  Json stats() const override;

 protected:
  void onAdd(const Id* ids, std::size_t count) override;
  void onRemove(const Id* ids, std::size_t count) override;
  std::vector<Id> candidates(const float* paddedQuery, std::size_t count) override;
  void saveStructure(StateWriter& out) const override;
  void loadStructure(StateReader& in) override;
  // Once the tables are made a search only reads them, given its own deduplication stamps and lifted
  // query (runSearchThread). Filtered searches use the base class's rule, which reads the counters
  // earlier searches wrote: they run in order.
  bool searchesConcurrently(const SearchOptions& options) const override { return !options.filtersAnything(); }
  void prepareConcurrentSearches() override;
  void runSearchThread(const std::function<void()>& searches) override;

 private:
  using Slot = std::uint32_t;
  using Bucket = std::vector<Slot>;

  // The hyperplanes and the (empty) tables, made at the first item or query rather than by the
  // constructor: until then the index costs what its items cost, whatever `tables` and `bits` ask
  // for over `dim` (a restored state of a few bytes cannot make it draw and hold 64,000 directions
  // of 10^6 dimensions before its data is even read). Drawn from the seed, the same either way.
  void makeTables();
  // The table's key of a lifted vector (liftedStride_ floats).
  std::uint64_t keyOf(const float* lifted, std::size_t table) const;
  void rehash(double scale);
  void insert(Id id);
  // A search's deduplication (the search number that last collected each slot) and lifted query: the
  // index's own, or a batch thread's.
  struct QueryScratch {
    std::vector<std::uint64_t> seenAt;
    std::uint64_t queries = 0;
    std::vector<float> lifted;
  };
  // Appends the items of table's bucket `key` that this search (scratch.queries) has not collected yet.
  void collect(std::size_t table, std::uint64_t key, QueryScratch& scratch, std::vector<Id>& out) const;

  std::size_t bits_;
  std::size_t tables_;
  std::size_t liftedStride_;
  std::uint64_t seed_;
  // tables_ * bits_ Gaussian directions in the lifted space, one padded row each (after makeTables()).
  std::vector<float> projections_;
  double scale_ = 0.0;  // U
  double largestNorm_ = 0.0;
  std::uint64_t rehashes_ = 0;

  std::vector<std::unordered_map<std::uint64_t, Bucket>> buckets_;  // one map per table (after makeTables())
  // Per slot (an item's place in these arrays): its id, and per table its key and bucket position.
  std::unordered_map<Id, Slot> slotOf_;
  std::vector<Id> idOfSlot_;
  std::vector<std::uint64_t> keys_;
  std::vector<std::uint32_t> positions_;
  std::vector<Slot> freeSlots_;
  // The searches' scratch (seenAt per slot), and the lifted vector insertions use too.
  QueryScratch scratch_;
};

}  // namespace sublinear
