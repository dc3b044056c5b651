#pragma once

#include "sublinear/linear/thompson_sampling.hpp"

namespace sublinear {

// Sub-TS (Yang et al., arXiv:2103.02729, Algorithm 4 with the shortlist construction of section 7):
// Thompson sampling whose MIPS is an approximate index, `index` { type: "hnsw" } unless given.
// Options as ThompsonSampling.
class SubTS final : public ThompsonSampling {
 public:
  SubTS(int dim, const Json& options) : ThompsonSampling("sub-ts", "hnsw", dim, options) {}
  // A user over a catalogue, searching the catalogue's index.
  SubTS(std::shared_ptr<Catalogue> catalogue, const Json& options)
      : ThompsonSampling("sub-ts", std::move(catalogue), false, options) {}
};

}  // namespace sublinear
