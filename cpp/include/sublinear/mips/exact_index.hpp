#pragma once

#include "sublinear/mips/mips_index.hpp"

namespace sublinear {

// The linear scan: every query touches every item once. It is the oracle the approximate indexes
// are checked against and the baseline the sublinear policies are measured against. With storage
// "int8" it scans the quantised rows (VectorStore), a quarter of the bytes.
class ExactIndex final : public MipsIndex {
 public:
  explicit ExactIndex(std::size_t dim, VectorStorage storage = VectorStorage::Float32) : MipsIndex(dim, storage) {}
  std::string type() const override { return "exact"; }
  bool approximates() const override { return false; }

 protected:
  // A scan reads the store and counts its work: a batch's scans run on all threads.
  bool searchesConcurrently(const SearchOptions&) const override { return true; }
  void onAdd(const Id*, std::size_t) override {}
  void onRemove(const Id*, std::size_t) override {}
  std::vector<Id> candidates(const float* paddedQuery, std::size_t count) override;
  std::vector<Id> filteredCandidates(const float* paddedQuery, std::size_t count, const Eligibility& eligible) override {
    return scanEligible(paddedQuery, count, eligible);
  }
  // The store is the whole structure.
  void saveStructure(StateWriter&) const override {}
  void loadStructure(StateReader&) override {}
};

}  // namespace sublinear
