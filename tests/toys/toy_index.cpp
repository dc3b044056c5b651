// The toy index of the recipe "Adding an index type" (docs/architecture.md): a class, its option
// group and its registry entry, kept outside the library. Its answers are
// exact (tests/cpp/registry_toy_index_test.cpp checks them against searchExactly), so every generic
// suite's recall and filter rules hold for it as for the exact scan, while the work it does
// differs from a scan's and is its own saved state.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <queue>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "sublinear/mips/mips_index.hpp"
#include "sublinear/mips/mips_option_tables.hpp"
#include "toy_types.hpp"

namespace sublinear::toys {
namespace toy_index {

// Visits the items by decreasing norm, `block` rows at a time, and stops once the next row's norm
// times the query's is below the count-th best score found: by Cauchy-Schwarz no later row can beat
// it. Counts the rows it never scored (`rowsSkipped`), which a restore brings back.
class NormBoundIndex final : public MipsIndex {
 public:
  NormBoundIndex(std::size_t dim, const Json& spec)
      : MipsIndex(dim), block_(static_cast<std::size_t>(readIntegerOption(group(), spec, "block"))) {
    readSeedOption(group(), spec);
  }
  std::string type() const override { return "toy-norm-bound"; }
  bool approximates() const override { return false; }
  Json stats() const override {
    Json out = MipsIndex::stats();
    out["rowsSkipped"] = rowsSkipped_;
    return out;
  }

  static const OptionGroup& group() {
    static const OptionGroup options{
        [] {
          OptionSpec spec{"block", OptionType::Integer};
          spec.low = 1;
          spec.high = 65536;
          spec.fallback = 16;
          spec.doc = "rows scored between two checks of the norm bound";
          return spec;
        }(),
        [] {
          OptionSpec spec{"seed", OptionType::Seed};
          spec.high = 9007199254740991.0;
          spec.doc = "unused: the search draws nothing";
          return spec;
        }(),
    };
    return options;
  }

 protected:
  void onAdd(const Id* ids, std::size_t count) override {
    const std::size_t before = byNorm_.size();
    for (std::size_t i = 0; i < count; ++i) byNorm_.emplace_back(std::sqrt(items_.squaredNorm(items_.rowOf(ids[i]))), ids[i]);
    std::sort(byNorm_.begin() + static_cast<std::ptrdiff_t>(before), byNorm_.end(), largerNormFirst);
    std::inplace_merge(byNorm_.begin(), byNorm_.begin() + static_cast<std::ptrdiff_t>(before), byNorm_.end(), largerNormFirst);
  }
  void onRemove(const Id* ids, std::size_t count) override {
    const std::unordered_set<Id> removed(ids, ids + count);
    byNorm_.erase(std::remove_if(byNorm_.begin(), byNorm_.end(), [&](const auto& entry) { return removed.count(entry.second) != 0; }),
                  byNorm_.end());
  }
  std::vector<Id> candidates(const float* paddedQuery, std::size_t count) override {
    double squared = 0;
    for (std::size_t i = 0; i < dim(); ++i) squared += static_cast<double>(paddedQuery[i]) * paddedQuery[i];
    const double queryNorm = std::sqrt(squared);
    // The count best (score, id) so far, the worst on top; ties to the smaller id as search() ranks.
    auto better = [](const std::pair<float, Id>& a, const std::pair<float, Id>& b) {
      return a.first > b.first || (a.first == b.first && a.second < b.second);
    };
    std::priority_queue<std::pair<float, Id>, std::vector<std::pair<float, Id>>, decltype(better)> best(better);
    std::size_t visited = 0;
    while (visited < byNorm_.size()) {
      // The float scores carry relative rounding errors of about dim * 2^-24: the bound is widened
      // by more than that, so that rounding never stops the walk before a row that could enter.
      if (best.size() == count && byNorm_[visited].first * queryNorm * (1 + 1e-4) + 1e-30 < best.top().first) break;
      const std::size_t end = std::min(byNorm_.size(), visited + block_);
      for (; visited < end; ++visited) {
        const Id id = byNorm_[visited].second;
        const std::pair<float, Id> scored{items_.score(items_.rowOf(id), paddedQuery), id};
        if (best.size() < count) {
          best.push(scored);
        } else if (better(scored, best.top())) {
          best.pop();
          best.push(scored);
        }
      }
    }
    countInnerProducts(static_cast<double>(visited));
    rowsSkipped_ += byNorm_.size() - visited;
    std::vector<Id> found;
    for (; !best.empty(); best.pop()) found.push_back(best.top().second);
    return found;
  }
  // Only the counter is saved: the order is a function of the stored rows, rebuilt from them.
  void saveStructure(StateWriter& out) const override { out.u64(rowsSkipped_); }
  void loadStructure(StateReader& in) override {
    rowsSkipped_ = in.u64();
    byNorm_.clear();
    onAdd(items_.ids().data(), items_.size());
  }

 private:
  static bool largerNormFirst(const std::pair<double, Id>& a, const std::pair<double, Id>& b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  }

  std::size_t block_;
  // (norm, id) of every stored item, largest norm first.
  std::vector<std::pair<double, Id>> byNorm_;
  std::uint64_t rowsSkipped_ = 0;
};

}  // namespace toy_index

// The recipe's registry entry: the name, the JavaScript class's name, the constructor, nothing
// saved per coordinate before items arrive, and the option table's groups (the type's own beside
// its class).
MipsIndexType normBoundEntry() {
  return {"toy-norm-bound", "ToyNormBoundIndex",
          [](std::size_t dim, const Json& spec) -> std::unique_ptr<MipsIndex> {
            return std::make_unique<toy_index::NormBoundIndex>(dim, spec);
          },
          nullptr,
          {&option_groups::typed(), &option_groups::indexDim(), &toy_index::NormBoundIndex::group()}};
}

}  // namespace sublinear::toys
