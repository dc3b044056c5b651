// Audits in slices (issue 53, point 2): an audit's exact search spread over later calls records what
// one call's exact search records for the same query on the same index (the oracle: searchExactly
// under the same filters), in every storage and under every filter form; items removed and added
// while it is pending leave every item held throughout in its scan; no select scans more than a
// slice; and a pending audit is saved and restored exactly (its query, filters, cursor and best).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/core/random.hpp"
#include "sublinear/linear/approximation_audit.hpp"
#include "sublinear/linear/catalogue.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"
#include "sublinear/mips/index_factory.hpp"
#include "test_support.hpp"

namespace sublinear::testing {
namespace sliced_audit_test {

constexpr std::size_t kDim = 32;

// Items with one or two labels of 0..9 and a price in [0, 1): every filter form has something to ask.
ItemAttributes shopAttributes(Random& random, std::size_t count) {
  ItemAttributes attributes;
  const std::size_t price = attributes.addValueColumn("price");
  for (std::size_t i = 0; i < count; ++i) {
    const Label first = static_cast<Label>(random.uniformInt(10));
    if (random.uniform() < 0.3) {
      const Label two[] = {first, static_cast<Label>((first + 1 + random.uniformInt(9)) % 10)};
      attributes.append(two, 2);
    } else {
      attributes.append(first);
    }
    attributes.setValue(price, i, random.uniform());
  }
  return attributes;
}

std::unique_ptr<MipsIndex> filledIndex(const Json& spec, std::size_t count, std::uint64_t seed) {
  auto index = makeMipsIndex(kDim, spec);
  Random random(seed);
  std::vector<Id> ids(count);
  std::vector<float> vectors(count * kDim);
  for (std::size_t i = 0; i < count; ++i) ids[i] = static_cast<Id>(i);
  for (auto& value : vectors) value = static_cast<float>(random.normal());
  index->add(ids.data(), ids.size(), vectors.data(), vectors.size(), shopAttributes(random, count));
  index->build(count);
  return index;
}

// Every filter form, alone and combined.
std::vector<SearchOptions> filterForms() {
  std::vector<SearchOptions> forms(6);
  forms[1].labels = {1, 2};
  forms[2].allLabels = {3};
  forms[2].noLabels = {4};
  forms[3].where = {ValueRange{"price", 0.2, 0.6}};
  forms[4].exclude = {0, 5, 17, 99, 1234};
  forms[4].labels = {6, 7, 8};
  forms[5].labels = {9};
  forms[5].where = {ValueRange{"price", 0.0, 0.5}};
  forms[5].exclude = {3, 4};
  return forms;
}

std::vector<float> gaussianQuery(Random& random) {
  std::vector<float> query(kDim);
  for (auto& value : query) value = static_cast<float>(random.normal());
  return query;
}

// Runs the pending audit to its end; returns the number of slices and the arm that beat the answer.
std::size_t finish(ApproximationAudit& audit, MipsIndex& index, std::size_t& shortlist, std::optional<Id>& winner) {
  std::size_t slices = 0;
  while (audit.pending()) {
    winner = audit.advance(index, shortlist);
    ++slices;
  }
  return slices;
}

class SlicedAudit : public ::testing::TestWithParam<std::string> {};

Json indexSpec(const std::string& name) {
  // A weak graph (it misses), the same in int8, and an index of another kind: every index serves
  // the slices from its store.
  if (name == "hnsw") return Json{{"type", "hnsw"}, {"M", 4}, {"efConstruction", 8}, {"efSearch", 1}, {"build", "immediate"}, {"seed", 2}};
  if (name == "hnswInt8") {
    return Json{{"type", "hnsw"}, {"M", 4}, {"efConstruction", 8}, {"efSearch", 1}, {"build", "immediate"}, {"seed", 2}, {"storage", "int8"}};
  }
  return Json{{"type", "lsh"}, {"seed", 2}};
}

TEST_P(SlicedAudit, RecordsWhatOneCallsExactSearchRecords) {
  auto index = filledIndex(indexSpec(GetParam()), 6000, 7);
  ApproximationAudit sliced(Json::object(), 1, 3), oneCall(Json::object(), 1, 3);
  Random random(11);
  std::size_t slicedShortlist = 1, oneCallShortlist = 1;
  int misses = 0;
  for (int q = 0; q < 20; ++q) {
    const std::vector<float> query = gaussianQuery(random);
    for (SearchOptions filters : filterForms()) {
      filters.shortlist = 1;
      const SearchResult answer = index->search(query.data(), query.size(), 1, filters);
      ASSERT_FALSE(answer.ids.empty());
      const SearchResult exact = index->searchExactly(query.data(), query.size(), 1, filters);
      ASSERT_FALSE(exact.ids.empty());
      oneCallShortlist = oneCall.record(answer.scores.front(), exact.scores.front(), 0, oneCallShortlist);
      sliced.offer(*index, true, query, filters, answer.scores.front());
      ASSERT_TRUE(sliced.pending());
      std::optional<Id> winner;
      const std::size_t rows = sliced.sliceRows(*index);
      // Without searches to measure, a slice is the least one: 128 KiB of rows of 32 floats.
      EXPECT_EQ(rows, ApproximationAudit::kMinimumSliceFloats / kDim);
      EXPECT_EQ(finish(sliced, *index, slicedShortlist, winner), (index->size() + rows - 1) / rows);
      // The same verdict and the same arm: the one the oracle found, when it beat the answer.
      const bool missed = exact.scores.front() > answer.scores.front();
      misses += missed ? 1 : 0;
      ASSERT_EQ(winner.has_value(), missed);
      if (missed) {
        EXPECT_EQ(*winner, exact.ids.front());
      }
      EXPECT_EQ(slicedShortlist, oneCallShortlist);
    }
  }
  const Json a = sliced.stats(true, 0), b = oneCall.stats(true, 0);
  for (const char* key : {"audits", "misses", "missRate", "meanGap", "effortRaises"}) EXPECT_EQ(a[key], b[key]) << key;
  EXPECT_EQ(a["audits"].get<int>(), 20 * 6);
  EXPECT_EQ(a["auditPending"], false);
  // Each audit read every row once.
  EXPECT_EQ(a["auditInnerProducts"].get<std::uint64_t>(), 20u * 6u * index->size());
  if (GetParam() != "lsh") {
    EXPECT_GT(misses, 0) << "the weak graph never missed: the comparison above proves little";
  }
}

INSTANTIATE_TEST_SUITE_P(Indexes, SlicedAudit, ::testing::Values("hnsw", "hnswInt8", "lsh"));

TEST(SlicedAudits, CoverEveryItemHeldThroughoutWhileItemsComeAndGo) {
  // Removals move rows (the store's last row into the hole, a graph's built rows with it): the scan,
  // from the last row down, must still meet every item held from the audit's start to its end.
  Random random(21);
  for (int round = 0; round < 12; ++round) {
    auto index = filledIndex(indexSpec("hnsw"), 5000, 100 + static_cast<std::uint64_t>(round));
    const std::vector<float> query = gaussianQuery(random);
    SearchOptions filters;
    if (round % 2 == 1) filters.labels = {1, 2, 3, 4, 5};
    // The ten best items stay; others leave and arrive between slices.
    const SearchResult top = index->searchExactly(query.data(), query.size(), 10, filters);
    ApproximationAudit audit(Json::object(), 1, 5);
    const float found = top.scores.back() - 1.0f;
    audit.offer(*index, true, query, filters, found);
    std::size_t shortlist = 1;
    std::optional<Id> winner;
    Id nextId = 100000;
    while (audit.pending()) {
      winner = audit.advance(*index, shortlist);
      std::vector<Id> leaving;
      for (int i = 0; i < 150 && index->size() > 20; ++i) {
        const Id id = index->items().idAt(static_cast<std::size_t>(random.uniformInt(index->size())));
        const bool kept = std::find(top.ids.begin(), top.ids.end(), id) != top.ids.end();
        if (!kept && std::find(leaving.begin(), leaving.end(), id) == leaving.end()) leaving.push_back(id);
      }
      // The last rows too: the rows removal moves.
      for (std::size_t row = index->size() - 3; row < index->size(); ++row) {
        const Id id = index->items().idAt(row);
        if (std::find(top.ids.begin(), top.ids.end(), id) == top.ids.end() && std::find(leaving.begin(), leaving.end(), id) == leaving.end()) {
          leaving.push_back(id);
        }
      }
      index->remove(leaving.data(), leaving.size());
      // Arrivals score below the best (small vectors): they must not change the verdict.
      std::vector<Id> arriving(100);
      std::vector<float> vectors(arriving.size() * kDim);
      for (auto& id : arriving) id = nextId++;
      for (auto& value : vectors) value = static_cast<float>(0.001 * random.normal());
      index->add(arriving.data(), arriving.size(), vectors.data(), vectors.size(), shopAttributes(random, arriving.size()));
    }
    // A miss by exactly the best held item's margin: the best item was met.
    ASSERT_TRUE(winner.has_value());
    EXPECT_EQ(*winner, top.ids.front()) << round;
    EXPECT_DOUBLE_EQ(audit.stats(true, 1)["meanGap"].get<double>(), static_cast<double>(top.scores.front()) - found) << round;
  }
}

TEST(SlicedAudits, DrawsDuringAPendingAuditAreOwedToTheNextSearches) {
  auto index = filledIndex(indexSpec("hnsw"), 6000, 4);
  ApproximationAudit audit(Json::object(), 1, 9);
  Random random(2);
  std::size_t shortlist = 1;
  std::optional<Id> winner;
  audit.offer(*index, true, gaussianQuery(random), SearchOptions{}, 0.0f);
  // Three draws while it is pending: owed, not begun.
  for (int i = 0; i < 3; ++i) audit.offer(*index, true, gaussianQuery(random), SearchOptions{}, 0.0f);
  finish(audit, *index, shortlist, winner);
  // Searches that drew nothing take the owed audits, one at a time, then none.
  for (int owed = 0; owed < 3; ++owed) {
    audit.offer(*index, false, gaussianQuery(random), SearchOptions{}, 0.0f);
    ASSERT_TRUE(audit.pending()) << owed;
    finish(audit, *index, shortlist, winner);
  }
  audit.offer(*index, false, gaussianQuery(random), SearchOptions{}, 0.0f);
  EXPECT_FALSE(audit.pending());
  EXPECT_EQ(audit.stats(true, 0)["audits"].get<int>(), 4);
  // In one call (auditSlice 0) nothing is ever pending: the policy scans at once.
  ApproximationAudit oneCall(Json{{"auditSlice", 0}}, 1, 9);
  EXPECT_FALSE(oneCall.sliced());
}

// A Sub-TS user over a catalogue of 30,000 arms, every search that could miss audited: the exact
// work of each select (the catalogue index's scanned rows, counted as innerProducts less
// approximateInnerProducts) stays within a slice, where audits in one call scan all 30,000 rows.
struct ServedWork {
  std::uint64_t largestScan = 0;
  std::uint64_t largestSearch = 0;
  Json approximation;
};

ServedWork serve(const Json& auditOptions, int steps) {
  constexpr int kUserDim = 16;
  auto catalogue = std::make_shared<Catalogue>(
      Json{{"dim", kUserDim}, {"index", Json{{"type", "hnsw"}, {"M", 4}, {"efConstruction", 8}, {"build", "immediate"}}}, {"seed", 5}});
  Random random(8);
  const std::size_t count = 30000;
  std::vector<Id> ids(count);
  std::vector<double> features(count * kUserDim);
  for (std::size_t i = 0; i < count; ++i) ids[i] = static_cast<Id>(i);
  for (auto& value : features) value = random.normal();
  catalogue->add(ids.data(), ids.size(), features.data(), features.size());
  std::vector<double> taste(kUserDim);
  for (auto& value : taste) value = random.normal();
  Json spec{{"type", "sub-ts"}, {"seed", 3}, {"horizon", 2000}, {"shortlist", 1}, {"auditBudget", 1.0}};
  spec.update(auditOptions);
  PersistentLinearPolicy user(spec, catalogue);
  const MipsIndex& index = catalogue->index();
  ServedWork work;
  for (int t = 0; t < steps; ++t) {
    const std::uint64_t total = index.innerProducts(), approximate = index.approximateInnerProducts();
    const Id arm = user->select();
    work.largestScan = std::max(work.largestScan, (index.innerProducts() - total) - (index.approximateInnerProducts() - approximate));
    work.largestSearch = std::max(work.largestSearch, index.approximateInnerProducts() - approximate);
    double mean = 0.0;
    for (int j = 0; j < kUserDim; ++j) mean += features[arm * kUserDim + static_cast<std::size_t>(j)] * taste[static_cast<std::size_t>(j)];
    user->update(arm, mean + 0.3 * random.normal());
  }
  work.approximation = user->stats()["approximation"];
  return work;
}

TEST(SlicedAudits, NoSelectScansMoreThanASlice) {
  const ServedWork sliced = serve(Json::object(), 1500);
  const ServedWork oneCall = serve(Json{{"auditSlice", 0}}, 1500);
  EXPECT_GT(sliced.approximation["audits"].get<int>(), 10) << sliced.approximation;
  EXPECT_GT(oneCall.approximation["audits"].get<int>(), 10) << oneCall.approximation;
  // A slice: auditSlice times the mean search (so at most that many times the largest), or 128 KiB
  // of rows of 16 floats.
  const auto bound = std::max<std::uint64_t>(ApproximationAudit::kMinimumSliceFloats / 16,
                                             static_cast<std::uint64_t>(ApproximationAudit::kDefaultSlice) * sliced.largestSearch);
  EXPECT_LE(sliced.largestScan, bound) << "largest search " << sliced.largestSearch;
  EXPECT_LT(sliced.largestScan, 30000u / 3);
  // The measure sees the scans of audits in one call.
  EXPECT_EQ(oneCall.largestScan, 30000u);
}

// A policy saved while an audit is pending continues exactly as the unsaved one: the same choices,
// the same audits completed with the same verdicts, the same bytes.
void expectPendingAuditContinues(const Json& spec, std::size_t count, bool filtered) {
  Random random(31);
  const int dim = spec["dim"].get<int>();
  PersistentLinearPolicy original(spec);
  std::vector<Id> ids(count);
  std::vector<double> features(count * static_cast<std::size_t>(dim));
  for (std::size_t i = 0; i < count; ++i) ids[i] = static_cast<Id>(i);
  for (auto& value : features) value = random.normal();
  std::vector<Label> labels(count);
  for (auto& label : labels) label = static_cast<Label>(random.uniformInt(4));
  original->addArms(ids.data(), ids.size(), features.data(), features.size(), labels.data(), labels.size());
  ArmFilter filter;
  if (filtered) {
    filter.labels = {1, 2};
    filter.exclude = {7, 8, 9};
  }
  const auto step = [&](PersistentLinearPolicy& policy, double reward) {
    const Id arm = filtered ? policy->selectSlate(2, filter).front() : policy->select();
    policy->update(arm, reward);
    return arm;
  };
  int t = 0;
  while (!original->stats()["approximation"]["auditPending"].get<bool>() && t < 3000) step(original, random.normal()), ++t;
  ASSERT_TRUE(original->stats()["approximation"]["auditPending"].get<bool>()) << "no audit pending in " << t << " steps";
  const auto bytes = original.toBytes();
  auto restored = PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), spec["type"].get<std::string>());
  EXPECT_EQ(restored.toBytes(), bytes);
  const int auditsAtSave = original->stats()["approximation"]["audits"].get<int>();
  for (int s = 0; s < 400; ++s) {
    const double reward = random.normal();
    ASSERT_EQ(step(restored, reward), step(original, reward)) << s;
  }
  EXPECT_EQ(restored->stats(), original->stats());
  EXPECT_EQ(restored.toBytes(), original.toBytes());
  EXPECT_GT(original->stats()["approximation"]["audits"].get<int>(), auditsAtSave) << "the pending audit never completed";
}

TEST(SlicedAudits, APendingAuditIsSavedAndRestoredExactly) {
  const Json graph{{"type", "hnsw"}, {"M", 4}, {"efConstruction", 8}, {"efSearch", 1}, {"build", "immediate"}};
  // 20,000 arms of d = 16: a slice is at least 2,048 rows, an audit about ten selects.
  const Json subTs{{"type", "sub-ts"}, {"dim", 16}, {"seed", 4}, {"horizon", 3000}, {"shortlist", 1}, {"auditBudget", 1.0}, {"index", graph}};
  expectPendingAuditContinues(subTs, 20000, false);
  expectPendingAuditContinues(subTs, 20000, true);
  // Sub-Elim's stage searches through its index (boundsFirst false), lifted to 21 dimensions.
  const Json subElim{{"type", "sub-elim"}, {"dim", 6}, {"seed", 4}, {"horizon", 3000}, {"shortlist", 1}, {"auditBudget", 1.0},
                     {"boundsFirst", false}, {"beta", 1.0}, {"index", graph}};
  expectPendingAuditContinues(subElim, 20000, false);
}

}  // namespace sliced_audit_test
}  // namespace sublinear::testing
