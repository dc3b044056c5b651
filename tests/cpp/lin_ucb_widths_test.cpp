#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "sublinear/linear/catalogue.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"
#include "linear_test_problem.hpp"

using namespace sublinear;
using sublinear::testing::GaussianProblem;

// LinUCB over its own arms keeps its widths by rank-one corrections; over a catalogue it computes
// them directly at every select. Fed the same arms and rewards, the two choose the same arms, step
// for step, through adds, removals, slates and a save and reload: the corrections are the direct
// computation, to rounding far below any gap between two arms' indices.
TEST(LinUCBWidths, RankOneCorrectionsChooseWhatTheDirectComputationChooses) {
  for (const int dim : {3, 8, 24}) {
    GaussianProblem problem(dim, 40 + static_cast<std::uint64_t>(dim), 0.5);
    auto own = std::make_unique<PersistentLinearPolicy>(Json{{"type", "lin-ucb"}, {"dim", dim}});
    auto catalogue = std::make_shared<Catalogue>(Json{{"dim", dim}, {"index", {{"type", "exact"}}}});
    PersistentLinearPolicy direct(Json{{"type", "lin-ucb"}}, catalogue);
    const auto addArms = [&](std::size_t count) {
      std::vector<Id> ids;
      std::vector<double> features;
      for (std::size_t i = 0; i < count; ++i) {
        const Vector x = problem.gaussian();
        ids.push_back(problem.nextId);
        problem.arms.emplace(problem.nextId++, x);
        features.insert(features.end(), x.data(), x.data() + dim);
      }
      own->addArms(ids.data(), ids.size(), features.data(), features.size());
      catalogue->add(ids.data(), ids.size(), features.data(), features.size());
    };
    addArms(500);
    int compared = 0;
    for (int step = 0; step < 600; ++step) {
      if (step % 50 == 49) {
        // Remove three arms (rows move) and add five.
        std::vector<Id> gone;
        for (auto it = problem.arms.begin(); gone.size() < 3; ++it) gone.push_back(it->first);
        own->removeArms(gone.data(), gone.size());
        catalogue->remove(gone.data(), gone.size());
        for (const Id id : gone) problem.arms.erase(id);
        addArms(5);
      }
      if (step == 300) {
        const auto bytes = own->toBytes();
        own = PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), "lin-ucb");
      }
      if (step % 7 == 3) {
        // A slate of 4, every position fed back.
        const std::vector<Id> slate = own->selectSlate(4, ArmFilter{});
        ASSERT_EQ(slate, direct.selectSlate(4, ArmFilter{})) << "dim " << dim << " step " << step;
        for (const Id arm : slate) {
          const double reward = problem.mean(arm) + problem.noise * problem.random.normal();
          own->update(arm, reward);
          direct.update(arm, reward);
        }
      } else {
        const Id arm = own->select();
        ASSERT_EQ(arm, direct.select()) << "dim " << dim << " step " << step;
        const double reward = problem.mean(arm) + problem.noise * problem.random.normal();
        own->update(arm, reward);
        direct.update(arm, reward);
      }
      ++compared;
    }
    EXPECT_EQ(compared, 600);
  }
}
