#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sublinear/core/random.hpp"
#include "sublinear/mips/exact_index.hpp"
#include "sublinear/sim/trial.hpp"

namespace sublinear {

// Liu et al.'s (arXiv:1812.06360) synthetic MIPS experiments (Figures 2 and 3) as rounds: `items`
// vectors of dimension
// `dim` drawn once from N(0, 1) ("gaussian") or U[0, 1) ("uniform"), one fresh query per round from
// the same distribution. The policy is any index type with its options and `k`; a round's reward is
// precision@k of its answer against the exact top-k (computed by an untimed exact scan), its regret
// 1 - precision. Building the index is setup (preprocessing), the query is select, so "online
// speedup" is an exact index's select time over the method's, both measured in the same way.
//
// Environment { type: "mips", items (2000), dim (1000), dataset ("gaussian" | "uniform") };
// policy { type: <index type>, k (5), ...index options } (kebab case, as in `index: { type }`).
class MipsTrial : public Trial {
 public:
  MipsTrial(const Json& environment, const Json& policy, std::uint64_t seed);

  void setup(TrialClock& clock) override;
  RoundOutcome playRound(std::int64_t t, TrialClock& clock) override;
  std::uint64_t innerProducts() const override;

 private:
  void draw(float* out, std::size_t count);

  std::size_t items_;
  std::size_t dim_;
  bool uniform_;
  std::size_t k_;
  Json indexSpec_;
  Random random_;
  std::unique_ptr<MipsIndex> index_;
  ExactIndex oracle_;
  std::vector<float> query_;
};

// The TrialFactory of the "mips" environment type.
std::unique_ptr<Trial> makeMipsTrial(const Json& environment, const Json& policy, std::uint64_t seed);

}  // namespace sublinear
