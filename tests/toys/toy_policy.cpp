// The toy policy of the recipe "Adding a linear policy" (docs/architecture.md): a class and its
// registry entry, kept outside the library and registered by registerToyTypes(). The code between
// the "recipe" markers is the recipe's code as docs/architecture.md shows it (tests/js/docs.test.js
// holds the two the same).
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sublinear/core/option_specs.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/state_codec.hpp"
#include "sublinear/linear/catalogue.hpp"
#include "sublinear/linear/linear_option_tables.hpp"
#include "sublinear/linear/ridge_policy.hpp"
#include "toy_types.hpp"

namespace sublinear::toys {

// recipe: begin
// Greedy with forced exploration: the arm of largest estimated mean x^T theta^, but every
// exploreEvery-th choice the arm of largest width ||x||_{V^-1}, the direction the model knows
// least, so that the estimate keeps learning (greedy alone settles on its first good guess) and a
// change of tastes is seen. No draws: every choice has propensity 1. Ties to the smaller id. Its own
// saved field, the count of its choices (the exploration's phase), shows that a restore brings back
// a policy's fields.
class Greedy final : public RidgePolicy {
 public:
  Greedy(int dim, const Json& options)
      : RidgePolicy(dim, options, dim, RidgeRegression::Form::InverseOnly),
        exploreEvery_(readIntegerOption(Greedy::options(), options, "exploreEvery")) {}
  Greedy(std::shared_ptr<Catalogue> catalogue, const Json& options)
      : RidgePolicy(catalogue, options, catalogue->dim(), RidgeRegression::Form::InverseOnly),
        exploreEvery_(readIntegerOption(Greedy::options(), options, "exploreEvery")) {}

  std::string type() const override { return "toy-greedy"; }
  static const OptionGroup& options() {
    static const OptionGroup group{
        option_specs::integer("exploreEvery", 20, 1, 1e6, "every this many choices, the arm of largest width")};
    return group;
  }

 protected:
  void onAddArms(const Id*, std::size_t) override {}
  void onRemoveArms(const Id*, std::size_t) override {}
  Id chooseArm() override { return chooseArms(1, ArmFilter{}, arms_.eligibility(ArmFilter{})).front(); }
  std::vector<Id> chooseArms(std::size_t count, const ArmFilter&, const Eligibility& eligible) override {
    const bool explore = ++choices_ % static_cast<std::uint64_t>(exploreEvery_) == 0;
    std::vector<std::pair<double, Id>> scored;
    for (std::size_t row = 0; row < arms_.size(); ++row) {
      if (!arms_.admits(eligible, row)) continue;
      const Eigen::Map<const Vector> x(arms_.rowData(row), dim());
      scored.emplace_back(explore ? -ridge_.inverseNorm(x) : -x.dot(ridge_.theta()), arms_.idAt(row));
    }
    countInnerProducts(scored.size());
    std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(count), scored.end());
    std::vector<Id> chosen;
    for (std::size_t i = 0; i < count; ++i) chosen.push_back(scored[i].second);
    return chosen;
  }
  Json extraStats() const override { return Json{{"choices", choices_}}; }
  void saveFields(StateWriter& out) const override { out.u64(choices_); }
  void loadFields(StateReader& in) override { choices_ = in.u64(); }

 private:
  long long exploreEvery_;
  std::uint64_t choices_ = 0;
};

// Its registry entry: the type, its JavaScript class's name, how it is built over its own arms and
// over a catalogue, and the groups of its option table (the common ones of a ridge policy, then its
// own).
LinearPolicyType greedyEntry() {
  return {"toy-greedy", "ToyGreedy",
          [](int dim, const Json& options) -> std::unique_ptr<LinearPolicy> { return std::make_unique<Greedy>(dim, options); },
          [](std::shared_ptr<Catalogue> catalogue, const Json& options) -> std::unique_ptr<LinearPolicy> {
            return std::make_unique<Greedy>(std::move(catalogue), options);
          },
          nullptr,
          {&option_groups::typed(), &option_groups::linearDim(), &option_groups::ridge(), &option_groups::forgetting(),
           &option_groups::decisions(), &Greedy::options()},
          nullptr};
}
// recipe: end

}  // namespace sublinear::toys
