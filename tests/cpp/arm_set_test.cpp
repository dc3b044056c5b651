// The arm set keeps its rows in RowStore's blocks of 4,096: rows, ids and features stay consistent
// across blocks through adds and removals, and LinUCB, which reads the rows block by block, picks
// an arm of the largest upper confidence bound computed here from the plays (an oracle in Eigen).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <vector>

#include "linear_test_problem.hpp"
#include "sublinear/core/row_store.hpp"
#include "sublinear/linear/arm_set.hpp"
#include "sublinear/linear/policy_factory.hpp"

namespace sublinear {
namespace arm_set_test {

constexpr std::size_t kBlock = RowStore<double>::kBlockRows;

TEST(ArmSet, RowsIdsAndFeaturesAgreeAcrossBlocksThroughAddsAndRemovals) {
  // Without a float copy, with one from the start, and with one asked for after the first batch
  // (which copies the rows already there): the copy follows the rows.
  for (const int floats : {0, 1, 2}) {
    const int d = 3;
    ArmSet arms(d);
    if (floats == 1) arms.keepFloatRows();
    std::map<Id, std::vector<double>> expected;
    const std::size_t count = 2 * kBlock + 1000;
    std::vector<Id> ids;
    std::vector<double> features;
    for (std::size_t i = 0; i < count; ++i) {
      const Id id = static_cast<Id>(7 * i + 3);
      ids.push_back(id);
      for (int j = 0; j < d; ++j) features.push_back(static_cast<double>(i) + 0.25 * j);
      expected[id] = {features.end() - d, features.end()};
    }
    // In two batches, the second one starting inside a block.
    const std::size_t first = kBlock + 17;
    arms.add(ids.data(), first, features.data());
    if (floats == 2) arms.keepFloatRows();
    arms.add(ids.data() + first, count - first, features.data() + first * d);
    EXPECT_EQ(arms.hasFloatRows(), floats != 0);
    // Removals from the first, a middle and the last block move the last rows into the holes.
    std::vector<Id> removed = {ids[0], ids[kBlock - 1], ids[kBlock + 5], ids[count - 1], ids[count - 2]};
    arms.remove(removed.data(), removed.size());
    for (const Id id : removed) expected.erase(id);

    ASSERT_EQ(arms.size(), expected.size());
    for (std::size_t row = 0; row < arms.size(); ++row) {
      const Id id = arms.idAt(row);
      ASSERT_EQ(arms.ids()[row], id);
      ASSERT_EQ(arms.rowOf(id), row);
      ASSERT_TRUE(expected.count(id)) << "row " << row << " holds a removed or unknown id " << id;
      for (int j = 0; j < d; ++j) ASSERT_EQ(arms.rowData(row)[j], expected[id][static_cast<std::size_t>(j)]) << "id " << id;
      if (floats == 0) continue;
      for (int j = 0; j < d; ++j) {
        ASSERT_EQ(arms.floatRowData(row)[j], static_cast<float>(expected[id][static_cast<std::size_t>(j)])) << "id " << id;
      }
    }
    for (const Id id : removed) EXPECT_FALSE(arms.contains(id));
    // A block's rows read as one matrix.
    const auto block = arms.rows(kBlock, kBlock);
    for (Eigen::Index i = 0; i < block.rows(); i += 511) {
      EXPECT_EQ(block(i, 2), arms.rowData(kBlock + static_cast<std::size_t>(i))[2]);
    }
  }
}

TEST(LinUCB, OverSeveralBlocksPicksAnArmOfTheLargestUpperBound) {
  const int d = 4;
  testing::GaussianProblem problem(d, 8);
  auto policy = makeLinearPolicy(d, Json{{"type", "lin-ucb"}, {"seed", 3}, {"horizon", 1000}});
  problem.addArms(*policy, 2 * kBlock + 300);
  std::vector<Id> leaving;
  for (Id id = 0; id < 2 * kBlock; id += 97) leaving.push_back(id);
  problem.removeArms(*policy, leaving);

  Matrix gram = Matrix::Identity(d, d);  // lambda 1, the default
  Vector b = Vector::Zero(d);
  for (int t = 0; t < 40; ++t) {
    const Id chosen = policy->select();
    const double radius = policy->stats()["radius"].get<double>();
    const Matrix inverse = gram.inverse();
    const Vector theta = inverse * b;
    auto bound = [&](const Vector& x) { return x.dot(theta) + radius * std::sqrt(x.dot(inverse * x)); };
    double best = -INFINITY;
    for (const auto& [id, x] : problem.arms) best = std::max(best, bound(x));
    ASSERT_NEAR(bound(problem.arms.at(chosen)), best, 1e-9) << "step " << t;
    const Vector& x = problem.arms.at(chosen);
    const double reward = problem.mean(chosen) + 0.5 * problem.random.normal();
    policy->update(chosen, reward);
    gram += x * x.transpose();
    b += reward * x;
  }
}

}  // namespace arm_set_test
}  // namespace sublinear
