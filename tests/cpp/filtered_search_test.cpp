// Labels and eligibility filters (SearchOptions::exclude, ::labels) in every index type: every answer
// is eligible and there are min(k, eligible) of them, the exact index's are brute force over the
// eligible items, the approximate ones' are measured against it (recall), at 50%, 10%, 1% and 0.1%
// of the items eligible, with exclusions, both, and nothing eligible. Labels follow their items
// through removals (which move rows), additions and save/load.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sublinear/core/error.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/mips/index_factory.hpp"
#include "sublinear/mips/inner_product.hpp"
#include "sublinear/mips/persistent_index.hpp"
#include "test_support.hpp"

namespace sublinear::testing {
namespace filtered_search_test {

constexpr std::size_t kDim = 16;
constexpr std::size_t kItems = 10000;
constexpr Label kLabelCount = 1000;  // labels 0..999, uniformly: allowing L of them admits L / 10 percent

struct TypeCase {
  std::string name;
  Json spec;
  bool exact;
  // Mean recall@10 against brute force over the eligible items that the type must reach at every
  // selectivity; negative: its own unfiltered recall on these queries less that much (the methods
  // that only screen candidates must not lose more than that to a filter).
  double minimumRecall;
};

// The cases of each registered index type (hnsw's graph also built a slice per search). The types
// come from the registry: a type without a row here gets its default options and the screening
// methods' rule (its own unfiltered recall less 0.1), which a row can tighten.
const std::map<std::string, std::vector<TypeCase>>& casesByType() {
  static const std::map<std::string, std::vector<TypeCase>> cases{
      {"exact", {{"exact", Json{{"type", "exact"}}, true, 1.0}}},
      {"hnsw",
       {{"hnsw", Json{{"type", "hnsw"}, {"M", 12}, {"efConstruction", 100}, {"build", "immediate"}, {"seed", 3}}, false, 0.95},
        {"hnswIncremental", Json{{"type", "hnsw"}, {"M", 12}, {"efConstruction", 100}, {"seed", 3}}, false, 0.95}}},
      {"lsh", {{"lsh", Json{{"type", "lsh"}, {"seed", 3}}, false, -0.1}}},
      {"bounded-me", {{"boundedMe", Json{{"type", "bounded-me"}, {"seed", 3}}, false, -0.1}}},
      {"greedy", {{"greedy", Json{{"type", "greedy"}, {"seed", 3}}, false, -0.1}}},
      {"pca-tree", {{"pcaTree", Json{{"type", "pca-tree"}, {"depth", 4}, {"seed", 3}}, false, -0.1}}},
      {"adaptive",
       {{"adaptive",
         Json{{"type", "adaptive"}, {"copies", 2}, {"base", Json{{"type", "hnsw"}, {"M", 12}, {"efConstruction", 100}, {"build", "immediate"}}}, {"seed", 3}},
         false, 0.9}}},
  };
  return cases;
}

std::vector<TypeCase> typeCases() {
  std::vector<TypeCase> cases;
  for (const std::string& type : mipsIndexTypes()) {
    const auto found = casesByType().find(type);
    if (found != casesByType().end()) {
      cases.insert(cases.end(), found->second.begin(), found->second.end());
      continue;
    }
    std::string name = type;
    for (char& c : name) c = c == '-' ? '_' : c;
    cases.push_back({name + "WithoutARow", Json{{"type", type}, {"seed", 3}}, false, -0.1});
  }
  return cases;
}

std::vector<float> gaussian(Random& random, std::size_t count) {
  std::vector<float> values(count);
  for (auto& value : values) value = static_cast<float>(random.normal());
  return values;
}

// The items and their labels, kept outside the index: the brute force reads only these.
struct Catalogue {
  std::map<Id, std::vector<float>> vectors;
  std::map<Id, Label> labels;
};

struct Filter {
  std::string what;
  SearchOptions options;
};

class FilteredSearch : public ::testing::TestWithParam<TypeCase> {
 protected:
  void SetUp() override {
    Random random(11);
    const std::vector<float> vectors = gaussian(random, kItems * kDim);
    std::vector<Id> ids(kItems);
    std::vector<Label> labels(kItems);
    for (std::size_t i = 0; i < kItems; ++i) {
      ids[i] = static_cast<Id>(3 * i + 7);
      labels[i] = static_cast<Label>(random.uniformInt(kLabelCount));
      catalogue_.vectors[ids[i]] = std::vector<float>(vectors.begin() + i * kDim, vectors.begin() + (i + 1) * kDim);
      catalogue_.labels[ids[i]] = labels[i];
    }
    Json spec = GetParam().spec;
    index_ = makeMipsIndex(kDim, spec);
    index_->add(ids.data(), ids.size(), vectors.data(), vectors.size(), labels.data(), labels.size());
    for (int q = 0; q < 20; ++q) queries_.push_back(gaussian(random, kDim));
  }

  double minimumRecall() {
    if (GetParam().minimumRecall >= 0.0) return GetParam().minimumRecall;
    double recall = 0.0;
    for (const auto& query : queries_) {
      const SearchResult result = index_->search(query.data(), query.size(), 10);
      std::size_t hits = 0;
      for (const auto& [s, id] : bruteForce(query, {}, 10)) hits += std::count(result.ids.begin(), result.ids.end(), id);
      recall += static_cast<double>(hits) / 10.0;
    }
    return recall / static_cast<double>(queries_.size()) + GetParam().minimumRecall;
  }

  bool eligible(Id id, const SearchOptions& options) const {
    const Label label = catalogue_.labels.at(id);
    if (!options.labels.empty() && std::find(options.labels.begin(), options.labels.end(), label) == options.labels.end()) return false;
    return std::find(options.exclude.begin(), options.exclude.end(), id) == options.exclude.end();
  }

  float score(Id id, const std::vector<float>& query) const {
    std::vector<float> a(paddedDimension(kDim), 0.0f), b(paddedDimension(kDim), 0.0f);
    const auto& vector = catalogue_.vectors.at(id);
    std::copy(vector.begin(), vector.end(), a.begin());
    std::copy(query.begin(), query.end(), b.begin());
    return innerProduct(a.data(), b.data(), a.size());
  }

  // Brute force over the eligible items: (score, id) best first, ties to the smaller id.
  std::vector<std::pair<float, Id>> bruteForce(const std::vector<float>& query, const SearchOptions& options, std::size_t k) const {
    std::vector<std::pair<float, Id>> all;
    for (const auto& [id, vector] : catalogue_.vectors) {
      if (eligible(id, options)) all.emplace_back(score(id, query), id);
    }
    std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
    if (all.size() > k) all.resize(k);
    return all;
  }

  std::size_t eligibleCount(const SearchOptions& options) const {
    std::size_t count = 0;
    for (const auto& entry : catalogue_.labels) count += eligible(entry.first, options) ? 1 : 0;
    return count;
  }

  // Runs every query under `options`; checks eligibility, count, exact scores and order; returns
  // the mean recall@k against brute force (identity demanded of exact types).
  double check(const SearchOptions& options, std::size_t k, const std::string& what) {
    const std::size_t count = eligibleCount(options);
    double recall = 0.0;
    for (const auto& query : queries_) {
      const SearchResult result = index_->search(query.data(), query.size(), k, options);
      const auto truth = bruteForce(query, options, k);
      EXPECT_EQ(result.ids.size(), std::min(k, count)) << what;
      std::set<Id> seen;
      for (std::size_t i = 0; i < result.ids.size(); ++i) {
        EXPECT_TRUE(eligible(result.ids[i], options)) << what << ": returned ineligible id " << result.ids[i];
        EXPECT_TRUE(seen.insert(result.ids[i]).second) << what << ": returned an id twice";
        EXPECT_EQ(result.scores[i], score(result.ids[i], query)) << what;
        if (i > 0) EXPECT_GE(result.scores[i - 1], result.scores[i]) << what;
      }
      std::size_t hits = 0;
      for (const auto& [s, id] : truth) hits += seen.count(id);
      recall += truth.empty() ? 1.0 : static_cast<double>(hits) / static_cast<double>(truth.size());
      if (GetParam().exact) {
        std::vector<Id> truthIds;
        for (const auto& entry : truth) truthIds.push_back(entry.second);
        EXPECT_EQ(result.ids, truthIds) << what;
      }
      // The oracle of audits: the same filter, the same answer as brute force.
      const SearchResult oracle = index_->searchExactly(query.data(), query.size(), k, options);
      EXPECT_EQ(oracle.ids.size(), truth.size()) << what;
      for (std::size_t i = 0; i < std::min(truth.size(), oracle.ids.size()); ++i) EXPECT_EQ(oracle.ids[i], truth[i].second) << what;
    }
    return recall / static_cast<double>(queries_.size());
  }

  std::vector<Label> firstLabels(Label count) const {
    std::vector<Label> labels(count);
    for (Label i = 0; i < count; ++i) labels[i] = i;
    return labels;
  }

  // The ids of the unfiltered top `count` for the first query: the most tempting ones to exclude.
  std::vector<Id> topIds(std::size_t count, const SearchOptions& options = {}) const {
    std::vector<Id> ids;
    for (const auto& entry : bruteForce(queries_[0], options, count)) ids.push_back(entry.second);
    return ids;
  }

  Catalogue catalogue_;
  std::unique_ptr<MipsIndex> index_;
  std::vector<std::vector<float>> queries_;
};

TEST_P(FilteredSearch, AnswersOnlyEligibleItemsAtEverySelectivity) {
  const double minimum = minimumRecall();
  // 500, 100, 10 and 1 of the 1,000 labels: 50%, 10%, 1% and 0.1% of the items eligible.
  for (const Label allowed : {Label{500}, Label{100}, Label{10}, Label{1}}) {
    SearchOptions options;
    options.labels = firstLabels(allowed);
    const std::string what = std::to_string(allowed / 10.0) + "% eligible";
    EXPECT_GE(check(options, 10, what), minimum) << what;
  }
}

TEST_P(FilteredSearch, ExcludesIdsAloneAndWithLabels) {
  const double minimum = minimumRecall();
  SearchOptions excludeOnly;
  // The best answers, a spread of others, an id the index never held, and one listed twice.
  excludeOnly.exclude = topIds(30);
  for (Id id = 7; id < 3 * kItems; id += 300) excludeOnly.exclude.push_back(id);
  excludeOnly.exclude.push_back(1);
  excludeOnly.exclude.push_back(excludeOnly.exclude.front());
  EXPECT_GE(check(excludeOnly, 10, "exclude only"), minimum);

  SearchOptions both;
  both.labels = firstLabels(100);
  both.exclude = topIds(20, both);
  EXPECT_GE(check(both, 10, "10% of labels and exclusions"), minimum);

  // Many exclusions (more than a page): marked per row rather than ranked past.
  SearchOptions many;
  many.labels = firstLabels(500);
  for (Id id = 7; id < 3 * kItems; id += 6) many.exclude.push_back(id);
  EXPECT_GE(check(many, 10, "50% of labels, half of them excluded"), minimum);

  // A shortlist larger than k under a filter, and k above the eligible count: fewer answers.
  SearchOptions few;
  few.labels = {3};
  few.exclude = topIds(2, few);
  check(few, 40, "k above the eligible count");
}

TEST_P(FilteredSearch, NothingEligibleGivesNothing) {
  SearchOptions absentLabel;
  absentLabel.labels = {kLabelCount + 5};
  check(absentLabel, 10, "an absent label");
  SearchOptions allExcluded;
  allExcluded.labels = {7};
  for (const auto& [id, label] : catalogue_.labels) {
    if (label == 7) allExcluded.exclude.push_back(id);
  }
  check(allExcluded, 10, "every item of the label excluded");
  EXPECT_TRUE(index_->search(queries_[0].data(), kDim, 5, allExcluded).ids.empty());
}

TEST_P(FilteredSearch, LabelsFollowItemsThroughRemovalsAdditionsAndSaveLoad) {
  Random random(23);
  // Remove a third (rows move into the holes; HnswIndex also swaps rows to keep its built prefix).
  std::vector<Id> removed;
  for (const auto& entry : catalogue_.labels) {
    if (random.uniformInt(3) == 0) removed.push_back(entry.first);
  }
  index_->remove(removed.data(), removed.size());
  for (const Id id : removed) {
    catalogue_.labels.erase(id);
    catalogue_.vectors.erase(id);
  }
  // Add new items with labels, and re-add some removed ids under other labels.
  std::vector<Id> ids;
  for (std::size_t i = 0; i < 200; ++i) ids.push_back(static_cast<Id>(100000 + i));
  for (std::size_t i = 0; i < 100; ++i) ids.push_back(removed[i]);
  std::vector<Label> labels(ids.size());
  const std::vector<float> vectors = gaussian(random, ids.size() * kDim);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    labels[i] = static_cast<Label>(kLabelCount + random.uniformInt(3));
    catalogue_.labels[ids[i]] = labels[i];
    catalogue_.vectors[ids[i]] = std::vector<float>(vectors.begin() + i * kDim, vectors.begin() + (i + 1) * kDim);
  }
  index_->add(ids.data(), ids.size(), vectors.data(), vectors.size(), labels.data(), labels.size());

  const auto expectLabelsMatch = [&](const MipsIndex& index) {
    ASSERT_EQ(index.size(), catalogue_.labels.size());
    std::map<Label, std::size_t> counts;
    for (const auto& [id, label] : catalogue_.labels) {
      EXPECT_EQ(index.labelOf(id), label) << "id " << id;
      ++counts[label];
    }
    const ItemAttributes& stored = index.attributes();
    EXPECT_EQ(stored.distinctLabels(), counts.size());
    for (const auto& [label, count] : counts) {
      ASSERT_EQ(stored.count(label), count) << "label " << label;
      for (const std::uint32_t row : stored.rowsOf(label)) EXPECT_EQ(stored.singleLabel(row), label);
    }
  };
  expectLabelsMatch(*index_);
  SearchOptions newLabels;
  newLabels.labels = {kLabelCount, kLabelCount + 2};
  check(newLabels, 10, "labels given at a later add");

  // Save and load: the same labels, and the same filtered answers.
  StateWriter out(index_->type());
  index_->save(out);
  const std::vector<std::uint8_t> bytes = out.finish();
  StateReader in(bytes.data(), bytes.size(), index_->type());
  std::unique_ptr<MipsIndex> restored = makeMipsIndex(kDim, GetParam().spec);
  restored->load(in);
  in.finish();
  expectLabelsMatch(*restored);
  for (const auto& query : queries_) {
    const SearchResult before = index_->search(query.data(), kDim, 10, newLabels);
    const SearchResult after = restored->search(query.data(), kDim, 10, newLabels);
    EXPECT_EQ(before.ids, after.ids);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryIndexType, FilteredSearch, ::testing::ValuesIn(typeCases()),
                         [](const ::testing::TestParamInfo<TypeCase>& info) { return info.param.name; });

// A row of a type that left the registry would go untested without a word.
TEST(FilteredSearchCases, NameRegisteredTypesOnly) {
  for (const auto& [type, cases] : casesByType()) EXPECT_TRUE(indexTypeAvailable(type)) << type;
}

TEST(FilteredSearchLabels, WrongLabelCountIsRefusedAndChangesNothing) {
  std::unique_ptr<MipsIndex> index = makeMipsIndex(2, Json{{"type", "exact"}});
  const std::vector<Id> ids{1, 2};
  const std::vector<float> vectors{1, 0, 0, 1};
  const std::vector<Label> oneLabel{4};
  expectError(ErrorCode::DimensionMismatch, "one label per id", [&] { index->add(ids.data(), 2, vectors.data(), 4, oneLabel.data(), 1); });
  EXPECT_EQ(index->size(), 0u);
  EXPECT_EQ(index->attributes().size(), 0u);
  // Without labels every item has label 0.
  index->add(ids.data(), 2, vectors.data(), 4);
  EXPECT_EQ(index->labelOf(1), 0u);
  EXPECT_EQ(index->attributes().count(0), 2u);
}

TEST(FilteredSearchLabels, AStateWithAnotherNumberOfLabelsIsCorrupt) {
  StateWriter out("exact");
  out.u64(2);
  for (Id id : {Id{1}, Id{2}}) {
    out.u32(id);
    out.f32(1.0f);
    out.f32(0.5f);
  }
  const std::uint32_t labels[] = {3};
  out.u8(0);  // one label an item
  out.u32s(labels, 1);
  out.u64(0);
  out.u64(0);
  const std::vector<std::uint8_t> bytes = out.finish();
  StateReader in(bytes.data(), bytes.size(), "exact");
  std::unique_ptr<MipsIndex> index = makeMipsIndex(2, Json{{"type", "exact"}});
  expectError(ErrorCode::CorruptState, "labels", [&] { index->load(in); });
}

TEST(FilteredSearchLabels, FilteredHnswSearchesItsGraphAboveTheCrossoverAndScansBelow) {
  // The graph answers a 50% filter with far less work than a scan of the eligible items; a 0.1%
  // filter is answered by scanning them, as many inner products as there are eligible items (then
  // the best 10 ranked again).
  Random random(5);
  const std::size_t n = 60000, dim = 8;
  const std::vector<float> vectors = gaussian(random, n * dim);
  std::vector<Id> ids(n);
  std::vector<Label> labels(n);
  for (std::size_t i = 0; i < n; ++i) {
    ids[i] = static_cast<Id>(i);
    labels[i] = static_cast<Label>(i % 1000);
  }
  std::unique_ptr<MipsIndex> index = makeMipsIndex(
      dim, Json{{"type", "hnsw"}, {"M", 8}, {"efConstruction", 50}, {"efSearch", 16}, {"build", "immediate"}, {"filterCrossover", 10}});
  index->add(ids.data(), n, vectors.data(), vectors.size(), labels.data(), n);
  const std::vector<float> query = gaussian(random, dim);
  SearchOptions half;
  for (Label label = 0; label < 500; ++label) half.labels.push_back(label);
  std::uint64_t before = index->innerProducts();
  const SearchResult graphAnswer = index->search(query.data(), dim, 10, half);
  EXPECT_EQ(graphAnswer.ids.size(), 10u);
  EXPECT_LT(index->innerProducts() - before, n / 8);
  SearchOptions sparse;
  sparse.labels = {17};
  before = index->innerProducts();
  const SearchResult result = index->search(query.data(), dim, 10, sparse);
  EXPECT_EQ(result.ids.size(), 10u);
  EXPECT_EQ(index->innerProducts() - before, 60u + 10u);
}

}  // namespace filtered_search_test
}  // namespace sublinear::testing
