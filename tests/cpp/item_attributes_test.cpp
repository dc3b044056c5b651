// Items' attributes (several labels, named values) and the filters over them: the store's posting
// lists follow setLabels, removals and swaps; Eligibility agrees with a brute force over every filter
// form, with an exact count for small candidate sets and an estimate (then exactCount()) for large
// ones; every index type answers filtered searches with eligible items only, and setLabels /
// setValues leave every index's structure as it was (the saved bytes equal those of an index that was
// given the new attributes at add); hostile attributes and filters are coded errors with nothing changed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "sublinear/core/error.hpp"
#include "sublinear/core/limits.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/linear/catalogue.hpp"
#include "sublinear/linear/policy_factory.hpp"
#include "sublinear/mips/eligibility.hpp"
#include "sublinear/mips/index_factory.hpp"
#include "sublinear/mips/persistent_index.hpp"
#include "test_support.hpp"

namespace sublinear::testing {
namespace item_attributes_test {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Row r carries labels {r % 5, 10 + r % 3} (two labels), or {r % 5} for every fourth row, and values
// price = r, stock = r % 4.
ItemAttributes shopAttributes(std::size_t rows) {
  ItemAttributes attributes;
  const std::size_t price = attributes.addValueColumn("price");
  const std::size_t stock = attributes.addValueColumn("stock");
  for (std::size_t r = 0; r < rows; ++r) {
    const Label labels[2] = {static_cast<Label>(r % 5), static_cast<Label>(10 + r % 3)};
    attributes.append(labels, r % 4 == 0 ? 1 : 2);
    attributes.setValue(price, r, static_cast<double>(r));
    attributes.setValue(stock, r, static_cast<double>(r % 4));
  }
  return attributes;
}

// Every posting list holds exactly the rows that carry its label, once.
void expectPostingsConsistent(const ItemAttributes& attributes) {
  std::size_t entries = 0;
  for (Label label = 0; label < 20; ++label) {
    const auto& rows = attributes.rowsOf(label);
    entries += rows.size();
    EXPECT_EQ(std::set<std::uint32_t>(rows.begin(), rows.end()).size(), rows.size()) << "label " << label;
    for (const std::uint32_t row : rows) EXPECT_TRUE(attributes.hasLabel(row, label)) << "label " << label << " row " << row;
  }
  std::size_t carried = 0;
  for (std::size_t row = 0; row < attributes.size(); ++row) carried += attributes.labelCount(row);
  EXPECT_EQ(entries, carried);
}

bool passes(const ItemAttributes& attributes, std::size_t row, const AttributeFilter& filter) {
  const auto has = [&](Label label) { return attributes.hasLabel(row, label); };
  if (!filter.labels.empty() && std::none_of(filter.labels.begin(), filter.labels.end(), has)) return false;
  if (!std::all_of(filter.allLabels.begin(), filter.allLabels.end(), has)) return false;
  if (std::any_of(filter.noLabels.begin(), filter.noLabels.end(), has)) return false;
  for (const ValueRange& range : filter.where) {
    const int column = attributes.valueColumn(range.name);
    if (column < 0) return false;
    const double value = attributes.valueAt(static_cast<std::size_t>(column), row);
    if (!(value >= range.low && value <= range.high)) return false;
  }
  return true;
}

std::vector<AttributeFilter> filterForms() {
  std::vector<AttributeFilter> forms(9);
  forms[0].labels = {1, 3};
  forms[1].allLabels = {2, 11};
  forms[2].noLabels = {0, 10};
  forms[3].where = {{"price", 100, 900}};
  forms[4].where = {{"stock", 1, kInfinity}, {"price", -kInfinity, 5000}};
  forms[5].labels = {4, 12};
  forms[5].noLabels = {11};
  forms[5].where = {{"stock", 2, 3}};
  forms[6].allLabels = {1};
  forms[6].labels = {10, 11};
  forms[6].where = {{"price", 0, 40000}};
  forms[7].labels = {19};  // a label no row carries: nothing eligible
  forms[8].labels = {2};  // one list walked, its rows checked for their values only
  forms[8].where = {{"stock", 1, kInfinity}, {"price", 100, 50000}};
  return forms;
}

// A minimal row store for Eligibility: ids 1000 + row.
struct Rows {
  std::size_t rows;
  std::size_t size() const { return rows; }
  bool contains(Id id) const { return id >= 1000 && id < 1000 + rows; }
  std::size_t rowOf(Id id) const { return id - 1000; }
  Id idAt(std::size_t row) const { return static_cast<Id>(1000 + row); }
};

TEST(ItemAttributes, PostingListsFollowChangesRemovalsAndSwaps) {
  ItemAttributes attributes = shopAttributes(40);
  expectPostingsConsistent(attributes);
  // setLabels: the row leaves its old lists and joins the new ones.
  ItemAttributes change;
  const Label fresh[3] = {7, 3, 7};
  change.append(fresh, 3);
  attributes.setLabels(6, change, 0);
  EXPECT_EQ(attributes.labelCount(6), 2u);  // repeats kept once
  EXPECT_TRUE(attributes.hasLabel(6, 7));
  EXPECT_FALSE(attributes.hasLabel(6, 1));
  expectPostingsConsistent(attributes);
  // Removal moves the last row (39: labels {4, 10}, price 39) into the hole.
  attributes.removeRow(3);
  EXPECT_EQ(attributes.size(), 39u);
  EXPECT_TRUE(attributes.hasLabel(3, 4));
  EXPECT_TRUE(attributes.hasLabel(3, 10));
  EXPECT_EQ(attributes.valueAt(0, 3), 39.0);
  expectPostingsConsistent(attributes);
  attributes.swapRows(3, 6);
  EXPECT_TRUE(attributes.hasLabel(3, 7));
  EXPECT_EQ(attributes.valueAt(0, 6), 39.0);
  expectPostingsConsistent(attributes);
  attributes.removeRow(attributes.size() - 1);
  attributes.removeRow(0);
  expectPostingsConsistent(attributes);
  // Values: setValues changes the names the batch holds only.
  ItemAttributes price;
  price.append(0);
  price.setValue(price.addValueColumn("price"), 0, 2.5);
  const double stockBefore = attributes.valueAt(1, 5);
  attributes.setValues(5, price, 0);
  EXPECT_EQ(attributes.valueAt(0, 5), 2.5);
  EXPECT_EQ(attributes.valueAt(1, 5), stockBefore);
}

TEST(ItemAttributes, SaveAndLoadRestoreEveryRow) {
  const ItemAttributes attributes = shopAttributes(25);
  StateWriter out("attributes");
  attributes.save(out);
  const std::vector<std::uint8_t> bytes = out.finish();
  StateReader in(bytes.data(), bytes.size(), "attributes");
  ItemAttributes loaded;
  loaded.load(in, 25);
  for (std::size_t row = 0; row < 25; ++row) EXPECT_TRUE(loaded.sameRow(row, attributes, row)) << row;
  expectPostingsConsistent(loaded);
}

TEST(ItemAttributes, HostileInputIsRefused) {
  ItemAttributes attributes;
  const std::vector<Label> many(1000000, 1);
  expectError(ErrorCode::InvalidArgument, "at most 1024 labels", [&] { attributes.append(many.data(), many.size()); });
  EXPECT_EQ(attributes.size(), 0u);
  expectError(ErrorCode::InvalidArgument, "value name", [&] { attributes.addValueColumn(std::string(100000, 'x')); });
  expectError(ErrorCode::InvalidArgument, "value name", [&] { attributes.addValueColumn(""); });
  for (std::size_t i = 0; i < kMaxValueNames; ++i) attributes.addValueColumn("v" + std::to_string(i));
  expectError(ErrorCode::InvalidArgument, "at most 64", [&] { attributes.addValueColumn("one more"); });
  attributes.append(0);
  expectError(ErrorCode::NonFinite, "not finite", [&] { attributes.setValue(0, 0, std::nan("")); });

  AttributeFilter nan;
  nan.where = {{"price", std::nan(""), 3}};
  expectError(ErrorCode::InvalidArgument, "not a number", [&] { nan.check(); });
  AttributeFilter inverted;
  inverted.where = {{"price", 5, 3}};
  expectError(ErrorCode::InvalidArgument, "empty", [&] { inverted.check(); });
  AttributeFilter twice;
  twice.where = {{"price", 1, 3}, {"price", 2, 4}};
  expectError(ErrorCode::InvalidArgument, "twice", [&] { twice.check(); });
  AttributeFilter unknown;
  unknown.where = {{"colour", 1, 3}};
  expectError(ErrorCode::InvalidArgument, "'colour'", [&] { Eligibility::checkValueNames(shopAttributes(3), unknown); });
}

TEST(Eligibility, AgreesWithBruteForceOnEveryFilterForm) {
  // 2,000 rows: every candidate set is counted exactly; 60,000: large sets are estimated.
  for (const std::size_t rows : {std::size_t{2000}, std::size_t{60000}}) {
    const ItemAttributes attributes = shopAttributes(rows);
    const Rows store{rows};
    const std::vector<Id> exclude = {1000 + 1, 1000 + 2, 1000 + 3, 999999};
    for (const AttributeFilter& filter : filterForms()) {
      const Eligibility eligible(store, attributes, exclude, filter);
      std::size_t expected = 0;
      for (std::size_t row = 0; row < rows; ++row) {
        const bool admitted = passes(attributes, row, filter) && (row < 1 || row > 3);
        EXPECT_EQ(eligible.admitsRow(row), admitted) << rows << " rows, row " << row;
        expected += admitted ? 1 : 0;
      }
      EXPECT_EQ(eligible.exactCount(), expected) << rows;
      if (eligible.countIsExact()) {
        EXPECT_EQ(eligible.count(), expected);
      } else {
        // An estimate from kCountSample evenly spread candidates: within a few percent here.
        EXPECT_NEAR(static_cast<double>(eligible.count()), static_cast<double>(expected), 0.05 * static_cast<double>(rows));
        EXPECT_GE(eligible.count(), Eligibility::kLeastSampled);
      }
      if (expected == 0) {
        EXPECT_EQ(eligible.count(), 0u);
      }
      if (eligible.walksPostings()) {
        std::set<std::size_t> walked;
        eligible.forEachPostedRow(0, [&](std::size_t row) { EXPECT_TRUE(walked.insert(row).second) << "row " << row << " met twice"; });
        std::size_t passing = 0;
        for (std::size_t row = 0; row < rows; ++row) passing += passes(attributes, row, filter) ? 1 : 0;
        EXPECT_EQ(walked.size(), passing);
      }
    }
  }
}

// `rows` rows, row r labelled r % labels with a uniform price in [0, 100); with `unpricedEvery`, every
// such row (r % unpricedEvery == 0) has no price.
ItemAttributes pricedRows(std::size_t rows, std::size_t labels, std::uint64_t seed, std::size_t unpricedEvery = 0) {
  ItemAttributes attributes;
  const std::size_t price = attributes.addValueColumn("price");
  Random random(seed);
  for (std::size_t r = 0; r < rows; ++r) {
    attributes.append(static_cast<Label>(r % labels));
    if (unpricedEvery == 0 || r % unpricedEvery != 0) attributes.setValue(price, r, random.uniform(0.0, 100.0));
  }
  return attributes;
}

// A walk over posting lists of rows with one label each checks only the rows' values, a block of
// rows at a time (Eligibility::checkPosted): the same rows as a brute force, from any first row, with
// rows that have no value (NaN) failing every range and a name no row holds admitting nothing.
TEST(Eligibility, AWalkOverOneLabelARowMeetsTheRowsABruteForceFinds) {
  const std::size_t rows = 5000;
  // Every ninth row has no price.
  const ItemAttributes attributes = pricedRows(rows, 7, 3, 9);
  const Rows store{rows};
  std::vector<AttributeFilter> filters(3);
  filters[0].labels = {3};
  filters[0].where = {{"price", 20.0, 60.0}};
  filters[1].labels = {1, 5, 6};
  filters[1].where = {{"price", -kInfinity, 30.0}};
  filters[2].labels = {2};
  filters[2].where = {{"colour", 0.0, 1.0}};
  for (const AttributeFilter& filter : filters) {
    const Eligibility eligible(store, attributes, {}, filter);
    ASSERT_TRUE(eligible.walksPostings());
    for (const std::size_t firstRow : {std::size_t{0}, std::size_t{1234}}) {
      std::set<std::size_t> walked;
      eligible.forEachPostedRow(firstRow, [&](std::size_t row) { EXPECT_TRUE(walked.insert(row).second) << "row " << row << " met twice"; });
      std::set<std::size_t> expected;
      for (std::size_t row = firstRow; row < rows; ++row) {
        if (passes(attributes, row, filter)) expected.insert(row);
      }
      EXPECT_EQ(walked, expected) << "first row " << firstRow;
      if (filter.where.front().name != "colour") {
        EXPECT_FALSE(expected.empty());
      }
    }
  }
}

// The first complete walk keeps the rows that pass (Eligibility::kKeptRows): a later walk, from any
// first row, visits the rows a walk of a fresh eligibility visits, in the same order (answers that
// tie keep their order), and a walk that began at a later row kept nothing.
TEST(Eligibility, AKeptWalkVisitsWhatAFreshWalkVisitsInTheSameOrder) {
  // 30,000 rows over two labels: 15,000 listed a label, so the count is sampled, not walked.
  const std::size_t rows = 30000;
  const ItemAttributes attributes = pricedRows(rows, 2, 5);
  const Rows store{rows};
  AttributeFilter filter;
  filter.labels = {1};
  filter.where = {{"price", 10.0, 35.0}};
  const auto walk = [](const Eligibility& eligible, std::size_t firstRow) {
    std::vector<std::size_t> visited;
    eligible.forEachPostedRow(firstRow, [&](std::size_t row) { visited.push_back(row); });
    return visited;
  };
  const Eligibility eligible(store, attributes, {1001, 1003}, filter);
  ASSERT_FALSE(eligible.countIsExact());
  const std::vector<std::size_t> laterBeforeKept = walk(eligible, 7777);
  const std::vector<std::size_t> all = walk(eligible, 0);
  std::size_t expected = 0;
  for (std::size_t row = 0; row < rows; ++row) expected += passes(attributes, row, filter) ? 1 : 0;
  EXPECT_EQ(all.size(), expected);
  EXPECT_GT(expected, 3000u);
  // A walk sets the exclusions aside; the count does not (rows 1 and 3, where they pass).
  const std::size_t excluded = (passes(attributes, 1, filter) ? 1 : 0) + (passes(attributes, 3, filter) ? 1 : 0);
  EXPECT_EQ(eligible.exactCount(), expected - excluded);
  EXPECT_EQ(walk(eligible, 0), all);
  for (const std::size_t firstRow : {std::size_t{1}, std::size_t{7777}, std::size_t{29999}, rows}) {
    const Eligibility fresh(store, attributes, {1001, 1003}, filter);
    const std::vector<std::size_t> freshWalk = walk(fresh, firstRow);
    EXPECT_EQ(walk(eligible, firstRow), freshWalk) << "first row " << firstRow;
    if (firstRow == 7777) {
      EXPECT_EQ(laterBeforeKept, freshWalk);
    }
  }
}

TEST(Eligibility, AnItemWithoutLabelsHasNone) {
  ItemAttributes attributes;
  attributes.append(0);
  attributes.append(nullptr, 0);
  EXPECT_TRUE(attributes.severalLabels());
  AttributeFilter zero;
  zero.labels = {0};
  const Eligibility labelled(Rows{2}, attributes, {}, zero);
  EXPECT_TRUE(labelled.admitsRow(0));
  EXPECT_FALSE(labelled.admitsRow(1));
  EXPECT_EQ(labelled.count(), 1u);
  AttributeFilter notZero;
  notZero.noLabels = {0};
  const Eligibility unlabelled(Rows{2}, attributes, {}, notZero);
  EXPECT_FALSE(unlabelled.admitsRow(0));
  EXPECT_TRUE(unlabelled.admitsRow(1));
  attributes.removeRow(1);
  EXPECT_FALSE(attributes.severalLabels());
}

TEST(IndexAttributes, EveryIndexTypeFiltersByEveryFormAndChangesNoStructure) {
  constexpr std::size_t kDim = 8;
  constexpr std::size_t kItems = 3000;
  Random random(4);
  const std::vector<float> vectors = normalRows(kItems, kDim, random);
  std::vector<Id> ids(kItems);
  for (std::size_t i = 0; i < kItems; ++i) ids[i] = static_cast<Id>(5 * i + 1);
  const ItemAttributes attributes = shopAttributes(kItems);
  // The same items with other labels and prices: what setLabels and setValues change them to.
  ItemAttributes changed;
  const std::size_t price = changed.addValueColumn("price");
  changed.addValueColumn("stock");
  for (std::size_t i = 0; i < kItems; ++i) {
    const Label labels[3] = {static_cast<Label>(i % 7), 12, static_cast<Label>(15 + i % 2)};
    changed.append(labels, 1 + i % 3);
    changed.setValue(price, i, static_cast<double>(kItems - i));
    changed.setValue(1, i, static_cast<double>(i % 4));
  }
  for (const std::string& type : mipsIndexTypes()) {
    SCOPED_TRACE(type);
    auto index = makeMipsIndex(kDim, seededIndexSpec(type, 5));
    index->add(ids.data(), kItems, vectors.data(), vectors.size(), attributes);
    auto given = makeMipsIndex(kDim, seededIndexSpec(type, 5));
    given->add(ids.data(), kItems, vectors.data(), vectors.size(), changed);
    index->build(kItems);
    given->build(kItems);
    // Only the changed columns: setValues of `changed` (price and stock) over `attributes`.
    index->setLabels(ids.data(), kItems, changed);
    index->setValues(ids.data(), kItems, changed);
    EXPECT_EQ(savedIndexBytes(*index), savedIndexBytes(*given)) << "setLabels/setValues changed more than the attributes";

    const std::vector<float> query(vectors.begin(), vectors.begin() + kDim);
    for (const AttributeFilter& filter : filterForms()) {
      SearchOptions options;
      static_cast<AttributeFilter&>(options) = filter;
      options.exclude = {ids[0], ids[1]};
      const SearchResult answer = index->search(query.data(), kDim, 10, options);
      std::size_t eligible = 0;
      for (std::size_t i = 0; i < kItems; ++i) eligible += passes(changed, i, filter) && i > 1 ? 1 : 0;
      EXPECT_EQ(answer.ids.size(), std::min<std::size_t>(10, eligible));
      for (const Id id : answer.ids) {
        const std::size_t i = (id - 1) / 5;
        EXPECT_TRUE(passes(changed, i, filter) && i > 1) << "id " << id << " is not eligible";
      }
    }
  }
}

// Several queries in one exact pass (MipsIndex::searchExactlyEach, Thompson sampling's propensity
// candidates) answer what each query's own exact search and a brute force over the eligible items
// find, and count each query's rows as its own search would: over posting lists (rare labels) and
// over the whole store, with no exclusions, a page's few and more than a widened top keeps (marked).
TEST(IndexAttributes, SeveralQueriesInOnePassAnswerWhatEachFindsAlone) {
  constexpr std::size_t kDim = 8;
  constexpr std::size_t kItems = 40000;
  constexpr std::size_t kK = 25;
  Random random(6);
  const std::vector<float> vectors = normalRows(kItems, kDim, random);
  std::vector<Id> ids(kItems);
  for (std::size_t i = 0; i < kItems; ++i) ids[i] = static_cast<Id>(i);
  // Row r: labels {r % 50, 100 + r % 2}, price r, stock r % 4.
  ItemAttributes attributes;
  const std::size_t price = attributes.addValueColumn("price");
  const std::size_t stock = attributes.addValueColumn("stock");
  for (std::size_t r = 0; r < kItems; ++r) {
    const Label labels[2] = {static_cast<Label>(r % 50), static_cast<Label>(100 + r % 2)};
    attributes.append(labels, 2);
    attributes.setValue(price, r, static_cast<double>(r));
    attributes.setValue(stock, r, static_cast<double>(r % 4));
  }
  std::vector<AttributeFilter> filters(6);
  filters[1].labels = {7};
  filters[2].labels = {7, 13};
  filters[2].where = {{"stock", 1, kInfinity}};
  filters[3].labels = {9};
  filters[3].allLabels = {101};
  filters[3].where = {{"price", -kInfinity, 30000}};
  filters[4].labels = {0, 1, 2, 3, 4, 5, 6, 7};
  filters[5].noLabels = {0};
  auto index = makeMipsIndex(kDim, seededIndexSpec("exact", 7));
  index->add(ids.data(), kItems, vectors.data(), vectors.size(), attributes);
  std::vector<std::vector<float>> queries(3, std::vector<float>(kDim));
  for (auto& query : queries) {
    for (auto& value : query) value = static_cast<float>(random.normal());
  }
  const std::vector<const float*> pointers = {queries[0].data(), queries[1].data(), queries[2].data()};
  std::vector<Id> many;
  for (std::size_t r = 0; r < kItems; ++r) {
    if (r % 50 < 8 && r % 3 != 0) many.push_back(ids[r]);
  }
  for (const std::vector<Id>& exclude : {std::vector<Id>{}, std::vector<Id>{7, 57, 107, 13}, many}) {
    for (const AttributeFilter& filter : filters) {
      SearchOptions options;
      static_cast<AttributeFilter&>(options) = filter;
      options.exclude = exclude;
      const std::set<Id> excluded(exclude.begin(), exclude.end());
      const std::uint64_t before = index->innerProducts();
      const std::vector<SearchResult> together = index->searchExactlyEach(pointers, kDim, kK, options);
      const std::uint64_t fused = index->innerProducts() - before;
      ASSERT_EQ(together.size(), queries.size());
      std::uint64_t alone = 0;
      for (std::size_t q = 0; q < queries.size(); ++q) {
        const std::uint64_t start = index->innerProducts();
        const SearchResult single = index->searchExactly(queries[q].data(), kDim, kK, options);
        alone += index->innerProducts() - start;
        EXPECT_EQ(together[q].ids, single.ids) << "query " << q;
        EXPECT_EQ(together[q].scores, single.scores) << "query " << q;
        // The brute force: every eligible item's score, the best kK.
        std::vector<std::pair<float, Id>> scored;
        for (std::size_t i = 0; i < kItems; ++i) {
          if (!passes(attributes, i, filter) || excluded.count(ids[i]) != 0) continue;
          float score = 0.0F;
          for (std::size_t j = 0; j < kDim; ++j) score += vectors[i * kDim + j] * queries[q][j];
          scored.emplace_back(-score, ids[i]);
        }
        ASSERT_GE(scored.size(), kK);
        std::sort(scored.begin(), scored.end());
        // As sets: the brute force adds in another order than the kernel.
        std::set<Id> expected;
        for (std::size_t i = 0; i < kK; ++i) expected.insert(scored[i].second);
        EXPECT_EQ(std::set<Id>(together[q].ids.begin(), together[q].ids.end()), expected) << "query " << q;
      }
      EXPECT_EQ(fused, alone);
    }
  }
}

TEST(IndexAttributes, HostileChangesLeaveTheIndexUnchanged) {
  auto index = makeMipsIndex(4, Json{{"type", "hnsw"}, {"seed", 1}});
  const std::vector<float> vectors(8, 1.0f);
  const Id ids[2] = {1, 2};
  index->add(ids, 2, vectors.data(), vectors.size(), shopAttributes(2));
  const std::vector<std::uint8_t> before = savedIndexBytes(*index);
  const Id unknown[2] = {1, 99};
  expectError(ErrorCode::UnknownId, "99", [&] { index->setLabels(unknown, 2, ItemAttributes::withLabels(nullptr, 2)); });
  const Id repeated[2] = {1, 1};
  expectError(ErrorCode::DuplicateId, "twice", [&] { index->setLabels(repeated, 2, ItemAttributes::withLabels(nullptr, 2)); });
  expectError(ErrorCode::DimensionMismatch, "attributes of 2", [&] { index->setValues(ids, 2, ItemAttributes::withLabels(nullptr, 3)); });
  ItemAttributes wide = ItemAttributes::withLabels(nullptr, 2);
  for (std::size_t i = 0; i < kMaxValueNames; ++i) wide.addValueColumn("w" + std::to_string(i));
  expectError(ErrorCode::InvalidArgument, "at most 64", [&] { index->setValues(ids, 2, wide); });
  EXPECT_EQ(savedIndexBytes(*index), before);
  SearchOptions unknownName;
  unknownName.where = {{"colour", 0, 1}};
  const std::vector<float> query(4, 1.0f);
  expectError(ErrorCode::InvalidArgument, "'colour'", [&] { searchForUser(*index, query.data(), 4, 1, unknownName); });
  SearchOptions nothing;
  nothing.where = {{"price", 100, 200}};
  expectError(ErrorCode::Empty, "eligible", [&] { searchForUser(*index, query.data(), 4, 1, nothing); });
}

TEST(CatalogueAttributes, UsersSeeChangedLabelsAndValuesAndTheStateKeepsThem) {
  constexpr int kDim = 6;
  constexpr std::size_t kArms = 600;
  auto catalogue = std::make_shared<Catalogue>(Json{{"dim", kDim}, {"seed", 2}});
  Random random(8);
  std::vector<double> features(kArms * kDim);
  for (auto& value : features) value = random.normal();
  std::vector<Id> ids(kArms);
  for (std::size_t i = 0; i < kArms; ++i) ids[i] = static_cast<Id>(i + 1);
  const ItemAttributes attributes = shopAttributes(kArms);
  catalogue->add(ids.data(), kArms, features.data(), features.size(), &attributes);
  // Stock runs out for every arm but ids 1..50; the in-stock ones take label 99.
  ItemAttributes stock;
  const std::size_t column = stock.addValueColumn("stock");
  ItemAttributes labels;
  for (std::size_t i = 0; i < kArms; ++i) {
    stock.append(0);
    stock.setValue(column, i, i < 50 ? 3.0 : 0.0);
    const Label both[2] = {static_cast<Label>(i % 5), 99};
    labels.append(both, i < 50 ? 2 : 1);
  }
  catalogue->setValues(ids.data(), kArms, stock);
  catalogue->setLabels(ids.data(), kArms, labels);
  for (const std::string type : {"lin-ucb", "lin-ts", "sub-ts", "linear-elim", "sub-elim"}) {
    SCOPED_TRACE(type);
    auto user = makeLinearPolicy(catalogue, Json{{"type", type}, {"seed", 4}});
    ArmFilter inStock;
    inStock.where = {{"stock", 1, kInfinity}};
    ArmFilter labelled;
    labelled.allLabels = {99};
    labelled.noLabels = {0};
    for (int step = 0; step < 20; ++step) {
      const Id arm = user->select(inStock);
      EXPECT_LE(arm, 50u);
      user->update(arm, 1.0);
      for (const Id chosen : user->selectSlate(5, labelled)) {
        EXPECT_LE(chosen, 50u);
        EXPECT_NE((chosen - 1) % 5, 0u);
      }
    }
    ArmFilter unknown;
    unknown.where = {{"colour", 0, 1}};
    expectError(ErrorCode::InvalidArgument, "'colour'", [&] { user->select(unknown); });
  }
  const std::vector<std::uint8_t> bytes = catalogue->toBytes();
  const auto restored = Catalogue::fromBytes(bytes.data(), bytes.size());
  for (std::size_t row = 0; row < kArms; ++row) {
    const std::size_t theirs = restored->arms().rowOf(catalogue->arms().idAt(row));
    EXPECT_TRUE(restored->arms().attributes().sameRow(theirs, catalogue->arms().attributes(), row));
  }
  const Id unknownIds[1] = {100000};
  expectError(ErrorCode::UnknownId, "100000", [&] { catalogue->setLabels(unknownIds, 1, ItemAttributes::withLabels(nullptr, 1)); });
  EXPECT_EQ(catalogue->toBytes(), bytes);
}

// A Thompson user's decision keeps the index's eligibility under its filter from its choice to its
// propensities' candidates: it never outlives the decision, so each decision shows only items that
// the filter admits as the catalogue stands, whatever changed since the last one (the shown items'
// prices moved out of the range, the last ones' back in), over an exact and a graph index.
TEST(CatalogueAttributes, ADecisionSeesTheCatalogueAsItStandsAfterEveryChange) {
  constexpr int kDim = 8;
  constexpr std::size_t kArms = 3000;
  // 100 items a label, about 40 of them in the price range: the searches walk the label's list.
  constexpr Label kLabels = 30;
  for (const std::string index : {"exact", "hnsw"}) {
    SCOPED_TRACE(index);
    auto catalogue = std::make_shared<Catalogue>(Json{{"dim", kDim}, {"seed", 3}, {"index", Json{{"type", index}}}});
    Random random(11);
    std::vector<double> features(kArms * kDim);
    for (auto& value : features) value = random.normal();
    std::vector<Id> ids(kArms);
    ItemAttributes attributes;
    const std::size_t price = attributes.addValueColumn("price");
    std::vector<double> prices(kArms);
    for (std::size_t i = 0; i < kArms; ++i) {
      ids[i] = static_cast<Id>(i + 1);
      attributes.append(static_cast<Label>(i % kLabels));
      prices[i] = random.uniform(0.0, 100.0);
      attributes.setValue(price, i, prices[i]);
    }
    catalogue->add(ids.data(), kArms, features.data(), features.size(), &attributes);
    catalogue->build(kArms);
    ArmFilter filter;
    filter.labels = {1};
    filter.where = {{"price", 20.0, 60.0}};
    const auto admitted = [&](Id id) { return (id - 1) % kLabels == 1 && prices[id - 1] >= 20.0 && prices[id - 1] <= 60.0; };
    for (const std::string type : {"lin-ts", "sub-ts"}) {
      SCOPED_TRACE(type);
      auto user = makeLinearPolicy(catalogue, Json{{"type", type}, {"seed", 9}});
      std::vector<Id> movedOut;
      for (int step = 0; step < 40; ++step) {
        const Decision decision = user->decide(5, filter, true);
        ASSERT_EQ(decision.arms.size(), 5u);
        for (std::size_t j = 0; j < decision.arms.size(); ++j) {
          EXPECT_TRUE(admitted(decision.arms[j])) << "step " << step << ": item " << decision.arms[j];
          EXPECT_GT(decision.propensities[j], 0.0);
        }
        std::vector<double> rewards(decision.arms.size(), 1.0);
        user->reward(decision.eventId, rewards.data(), rewards.size());
        // The shown items leave the range, and those the last step moved out come back into it.
        ItemAttributes moved;
        const std::size_t column = moved.addValueColumn("price");
        std::vector<Id> changed;
        for (const Id id : decision.arms) changed.push_back(id);
        for (const Id id : movedOut) {
          if (std::find(changed.begin(), changed.end(), id) == changed.end()) changed.push_back(id);
        }
        for (std::size_t i = 0; i < changed.size(); ++i) {
          const Id id = changed[i];
          const bool shown = i < decision.arms.size();
          moved.append(static_cast<Label>((id - 1) % kLabels));
          moved.setValue(column, i, shown ? 90.0 : 40.0);
          prices[id - 1] = shown ? 90.0 : 40.0;
        }
        movedOut = decision.arms;
        catalogue->setValues(changed.data(), changed.size(), moved);
      }
    }
  }
}

}  // namespace item_attributes_test
}  // namespace sublinear::testing
