// ApproximationAudit's two rules for an index that rarely gets audited (issue 37: 3 audits in
// 4,000 steps, all misses, and the effort never rose): clear misses raise the effort however few
// the audits, and the first audits come at a floor rate whatever the budget allows.
#include <gtest/gtest.h>

#include <vector>

#include "sublinear/linear/approximation_audit.hpp"
#include "sublinear/mips/index_factory.hpp"
#include "test_support.hpp"

namespace sublinear::testing {
namespace {

TEST(ApproximationAudit, ThreeMissesInThreeAuditsRaiseTheEffort) {
  ApproximationAudit audit(Json::object(), 30, 1);
  EXPECT_EQ(audit.record(1.0, 2.0, 10, 30), 30U) << "one miss is a single event";
  EXPECT_EQ(audit.record(1.0, 2.0, 10, 30), 60U) << "two misses in two audits are clearly above 5%";
  EXPECT_EQ(audit.stats(true, 3)["effortRaises"], 1);
  // After the raise the window starts over: one miss again is not enough, a third and a fourth are.
  EXPECT_EQ(audit.record(1.0, 2.0, 10, 60), 60U);
  EXPECT_EQ(audit.record(1.0, 2.0, 10, 60), 120U);
}

TEST(ApproximationAudit, HitsKeepTheEffort) {
  ApproximationAudit audit(Json::object(), 30, 1);
  std::size_t shortlist = 30;
  // 2 misses in 60 audits (3.3%): not clearly above the 5% target.
  for (int i = 0; i < 60; ++i) shortlist = audit.record(1.0, i % 30 == 0 ? 2.0 : 1.0, 10, shortlist);
  EXPECT_EQ(shortlist, 30U);
}

TEST(ApproximationAudit, FirstAuditsComeAtAFloorRate) {
  // A built graph whose searches cost nothing the budget rule could count: only the floor audits.
  auto index = makeMipsIndex(4, Json{{"type", "hnsw"}, {"M", 4}, {"efConstruction", 16}, {"seed", 1}});
  Random random(3);
  std::vector<Id> ids(3000);
  std::vector<float> vectors(ids.size() * 4);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<Id>(i);
  for (auto& value : vectors) value = static_cast<float>(random.normal());
  index->add(ids.data(), ids.size(), vectors.data(), vectors.size());
  index->build(ids.size());
  ASSERT_TRUE(index->approximates());
  ApproximationAudit audit(Json::object(), 30, 5);
  std::size_t calls = 0;
  std::uint64_t audits = 0;
  while (audits < ApproximationAudit::kEarlyAudits && calls < 100000) {
    ++calls;
    if (audit.due(*index, index->approximateInnerProducts())) {
      audit.record(1.0, 1.0, 10, 30);
      ++audits;
    }
  }
  // 8 audits at 1/64: about 512 calls.
  EXPECT_GT(calls, 100U);
  EXPECT_LT(calls, 2000U);
  for (int i = 0; i < 5000; ++i) EXPECT_FALSE(audit.due(*index, index->approximateInnerProducts())) << "past the floor";
}

}  // namespace
}  // namespace sublinear::testing
