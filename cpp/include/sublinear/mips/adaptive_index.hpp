#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sublinear/core/options.hpp"
#include "sublinear/mips/mips_index.hpp"

namespace sublinear {

// Algorithm 1 of Yang et al. (arXiv:2103.02729, the adaptive MIPS solver M(c, r, epsilon, delta)):
// `copies` (kappa) independent indexes of the `base` type, each built with its own seed, each receiving
// every addition and removal. A query q is normalised (the arg max does not depend on |q|; the paper's
// queries lie in the unit ball) and rounded coordinate-wise to the nearest multiple of epsilon / dim,
// so that adaptively chosen queries can only ever be one of finitely many grid points q^ with |q^ - q /
// |q|| <= epsilon; every copy answers q^, and the answers of all copies are pooled and ranked by their
// exact inner product with the original q. The paper returns any answer that passes the sanity check
// <q, p> >= c r; we return the pooled candidate(s) of largest exact score, which pass that check
// whenever any copy's answer does, without needing (c, r).
class AdaptiveIndex final : public MipsIndex {
 public:
  // Options: base ({ type, ...options } of another index, default { type: "hnsw" }; its seed is
  // replaced per copy), copies (kappa, in [1, 64], default 3), epsilon (in (0, 1), default 0.01), seed.
  AdaptiveIndex(std::size_t dim, const Json& options);
  std::string type() const override { return "adaptive"; }
  // innerProducts includes the copies' work; "copyStats" lists each copy's own stats.
  Json stats() const override;

  // q / |q| rounded to the grid of multiples of epsilon / dim (dim floats).
  std::vector<float> roundedQuery(const float* query) const;

 protected:
  // Builds each copy's waiting items (up to maxItems per copy); returns the most still waiting.
  std::size_t buildPending(std::size_t maxItems) override;
  void onAdd(const Id* ids, std::size_t count) override;
  void onRemove(const Id* ids, std::size_t count) override;
  std::vector<Id> candidates(const float* paddedQuery, std::size_t count) override;
  // Every copy holds the labels too and answers the rounded query under the same filter.
  std::vector<Id> filteredCandidates(const float* paddedQuery, std::size_t count, const Eligibility& eligible) override;
  void onLabelsChanged(const Id* ids, std::size_t count) override;
  void onValuesChanged(const Id* ids, std::size_t count) override;
  void saveStructure(StateWriter& out) const override;
  void loadStructure(StateReader& in) override;

 private:
  // The attributes of stored items, as a batch for the copies.
  ItemAttributes attributesOf(const Id* ids, std::size_t count) const;
  // Every copy's answer to the rounded query (with `options`' filters), each id once.
  std::vector<Id> pooledCandidates(const float* paddedQuery, std::size_t count, const SearchOptions& options);

  double gridStep_;
  std::string baseType_;
  std::vector<std::unique_ptr<MipsIndex>> copies_;
};

}  // namespace sublinear
