// An item's features changed in place (setFeatures) in every index type and in a catalogue, with
// the users of a catalogue seeing the changed arms as new ones; and an id removed and added again
// between two calls of a user that keeps something per arm.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/core/error.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/linear/catalogue.hpp"
#include "sublinear/linear/lin_ucb.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"
#include "sublinear/linear/policy_factory.hpp"
#include "sublinear/linear/scan_elim.hpp"
#include "sublinear/mips/index_factory.hpp"
#include "sublinear/mips/persistent_index.hpp"
#include "test_support.hpp"

namespace sublinear::testing {
namespace changed_features_test {

// A unit taste drawn from `random`.
Vector unitTaste(Random& random, int dim) {
  Vector theta(dim);
  random.fillNormal(theta.data(), static_cast<std::size_t>(dim));
  return theta / theta.norm();
}

// Every index type: after setFeatures the exact answers are those of an index given the new
// vectors from the start, the items keep their labels, and an item made dominant along a direction
// is what a search along it finds (approximate indexes included, before and after build()).
TEST(ChangedFeatures, EveryIndexTypeAnswersWithTheNewVectors) {
  constexpr std::size_t kDim = 8;
  constexpr std::size_t kItems = 2000;
  Random random(11);
  const std::vector<float> vectors = normalRows(kItems, kDim, random);
  std::vector<Id> ids(kItems);
  std::vector<Label> labels(kItems);
  for (std::size_t i = 0; i < kItems; ++i) ids[i] = static_cast<Id>(3 * i + 2), labels[i] = static_cast<Label>(i % 4);
  // Every tenth item changes; every hundredth becomes 20 times a direction of its own.
  std::vector<Id> changed;
  std::vector<float> changedVectors;
  std::vector<std::vector<float>> directions;
  std::vector<Id> dominant;
  std::vector<float> final = vectors;
  for (std::size_t i = 0; i < kItems; i += 10) {
    std::vector<float> x(kDim);
    for (auto& value : x) value = static_cast<float>(random.normal());
    if (i % 100 == 0) {
      double norm = 0;
      for (const float value : x) norm += value * value;
      for (auto& value : x) value = static_cast<float>(value / std::sqrt(norm));
      directions.push_back(x);
      dominant.push_back(ids[i]);
      for (auto& value : x) value *= 20.0f;
    }
    changed.push_back(ids[i]);
    changedVectors.insert(changedVectors.end(), x.begin(), x.end());
    std::copy(x.begin(), x.end(), final.begin() + static_cast<std::ptrdiff_t>(i * kDim));
  }
  for (const std::string& type : mipsIndexTypes()) {
    for (const std::string storage : {"f32", "int8"}) {
      if (storage == "int8" && type != "hnsw" && type != "exact") continue;
      SCOPED_TRACE(type + " " + storage);
      Json spec = seededIndexSpec(type, 3);
      if (storage == "int8") spec["storage"] = "int8";
      auto index = makeMipsIndex(kDim, spec);
      index->add(ids.data(), kItems, vectors.data(), vectors.size(), labels.data(), labels.size());
      index->build(kItems);
      auto given = makeMipsIndex(kDim, spec);
      given->add(ids.data(), kItems, final.data(), final.size(), labels.data(), labels.size());
      setUserFeatures(*index, changed.data(), changed.size(), changedVectors.data(), changedVectors.size());
      EXPECT_EQ(index->size(), kItems);
      for (std::size_t i = 0; i < kItems; i += 10) EXPECT_EQ(index->labelOf(ids[i]), labels[i]);
      for (int pass = 0; pass < 2; ++pass) {
        for (std::size_t j = 0; j < directions.size(); ++j) {
          const SearchResult exact = index->searchExactly(directions[j].data(), kDim, 10);
          const SearchResult expected = given->searchExactly(directions[j].data(), kDim, 10);
          EXPECT_EQ(exact.ids, expected.ids);
          EXPECT_EQ(exact.scores, expected.scores);
          EXPECT_EQ(index->search(directions[j].data(), kDim, 1).ids, std::vector<Id>{dominant[j]}) << "pass " << pass;
          SearchOptions label;
          label.labels = {labels[(dominant[j] - 2) / 3]};
          EXPECT_EQ(index->search(directions[j].data(), kDim, 1, label).ids, std::vector<Id>{dominant[j]}) << "pass " << pass;
        }
        index->build(kItems);  // the changed items into the structure; the answers stay
      }
    }
  }
}

TEST(ChangedFeatures, HostileChangesLeaveIndexAndCatalogueUnchanged) {
  auto index = makeMipsIndex(4, Json{{"type", "hnsw"}, {"seed", 1}});
  const std::vector<float> vectors(8, 1.0f);
  const Id ids[2] = {1, 2};
  index->add(ids, 2, vectors.data(), vectors.size());
  const std::vector<std::uint8_t> before = savedIndexBytes(*index);
  const Id unknown[2] = {1, 99};
  expectError(ErrorCode::UnknownId, "99", [&] { setUserFeatures(*index, unknown, 2, vectors.data(), 8); });
  const Id repeated[2] = {1, 1};
  expectError(ErrorCode::DuplicateId, "twice", [&] { setUserFeatures(*index, repeated, 2, vectors.data(), 8); });
  expectError(ErrorCode::DimensionMismatch, "2 x 4", [&] { setUserFeatures(*index, ids, 2, vectors.data(), 7); });
  std::vector<float> bad = vectors;
  bad[5] = NAN;
  expectError(ErrorCode::NonFinite, "vectors", [&] { setUserFeatures(*index, ids, 2, bad.data(), 8); });
  bad[5] = 1e16f;
  expectError(ErrorCode::InvalidArgument, "1e15", [&] { setUserFeatures(*index, ids, 2, bad.data(), 8); });
  EXPECT_EQ(savedIndexBytes(*index), before);

  Catalogue catalogue(Json{{"dim", 4}, {"seed", 2}});
  const std::vector<double> features(8, 0.5);
  catalogue.add(ids, 2, features.data(), features.size());
  const std::vector<std::uint8_t> saved = catalogue.toBytes();
  expectError(ErrorCode::UnknownId, "99", [&] { catalogue.setFeatures(unknown, 2, features.data(), 8); });
  expectError(ErrorCode::DuplicateId, "twice", [&] { catalogue.setFeatures(repeated, 2, features.data(), 8); });
  expectError(ErrorCode::DimensionMismatch, "2 x 4", [&] { catalogue.setFeatures(ids, 2, features.data(), 6); });
  std::vector<double> wrong = features;
  wrong[1] = INFINITY;
  expectError(ErrorCode::NonFinite, "non-finite", [&] { catalogue.setFeatures(ids, 2, wrong.data(), 8); });
  wrong[1] = 1e16;
  expectError(ErrorCode::InvalidArgument, "1e15", [&] { catalogue.setFeatures(ids, 2, wrong.data(), 8); });
  EXPECT_EQ(catalogue.toBytes(), saved);
}

// The worst arm of a catalogue becomes by far the best: every user type finds it (the elimination
// users had eliminated it and take it back as a new arm, LinUCB's kept width of it is computed
// afresh), users saved before the change and restored over the catalogue saved after it do the
// same, and the catalogue's state keeps the change.
TEST(ChangedFeatures, EveryUserOfACatalogueFindsAnArmThatBecameTheBest) {
  constexpr int kDim = 6;
  constexpr std::size_t kArms = 400;
  Random random(21);
  const Vector thetaStar = unitTaste(random, kDim);
  std::vector<double> features(kArms * kDim);
  for (auto& value : features) value = random.normal() / std::sqrt(static_cast<double>(kDim));
  std::vector<Id> ids(kArms);
  for (std::size_t i = 0; i < kArms; ++i) ids[i] = static_cast<Id>(i + 1);
  const auto meanOf = [&](const std::vector<double>& rows, Id id) {
    return Eigen::Map<const Vector>(rows.data() + (id - 1) * kDim, kDim).dot(thetaStar);
  };
  Id worst = 1;
  for (const Id id : ids) worst = meanOf(features, id) < meanOf(features, worst) ? id : worst;
  std::vector<double> better(kDim);
  for (int j = 0; j < kDim; ++j) better[static_cast<std::size_t>(j)] = 1.5 * thetaStar[j];

  for (const std::string type : {"lin-ucb", "lin-ts", "sub-ts", "linear-elim", "sub-elim"}) {
    SCOPED_TRACE(type);
    auto catalogue = std::make_shared<Catalogue>(Json{{"dim", kDim}, {"seed", 4}});
    catalogue->add(ids.data(), kArms, features.data(), features.size());
    std::vector<double> current = features;
    auto user = std::make_unique<PersistentLinearPolicy>(Json{{"type", type}, {"seed", 5}, {"horizon", 3000}}, catalogue);
    const auto play = [&](PersistentLinearPolicy& policy, int steps) {
      int chosen = 0;
      for (int step = 0; step < steps; ++step) {
        const Id arm = policy->select();
        chosen += arm == worst ? 1 : 0;
        policy->update(arm, meanOf(current, arm) + 0.1 * random.normal());
      }
      return chosen;
    };
    play(*user, 600);
    if (type == "linear-elim" || type == "sub-elim") {
      EXPECT_EQ(dynamic_cast<const ScanElim&>(**user).stageOf(worst), -1) << "the worst arm was not eliminated";
    }
    const std::vector<std::uint8_t> userBefore = user->toBytes();
    const std::uint64_t revision = catalogue->revision();
    catalogue->setFeatures(&worst, 1, better.data(), better.size());
    EXPECT_EQ(catalogue->revision(), revision + 1);
    std::copy(better.begin(), better.end(), current.begin() + static_cast<std::ptrdiff_t>((worst - 1) * kDim));
    const std::vector<std::uint8_t> catalogueAfter = catalogue->toBytes();
    const int found = play(*user, 300);
    EXPECT_GE(found, 150) << "the changed arm was chosen " << found << " times of 300";
    if (type == "lin-ucb") {
      (*user)->select();  // the widths up to date with the last update
      const auto& ucb = dynamic_cast<const LinUCB&>(**user);
      EXPECT_NEAR(ucb.width(worst), ucb.directWidth(worst), 2e-6 * ucb.directWidth(worst));
    }
    // Saved before the change, restored over the catalogue saved after it.
    const auto restoredCatalogue = Catalogue::fromBytes(catalogueAfter.data(), catalogueAfter.size());
    EXPECT_EQ(restoredCatalogue->revision(), catalogue->revision());
    EXPECT_EQ(restoredCatalogue->toBytes(), catalogueAfter);
    PersistentLinearPolicy restored = PersistentLinearPolicy::fromBytes(userBefore.data(), userBefore.size(), type, restoredCatalogue);
    const int foundAgain = play(restored, 300);
    EXPECT_GE(foundAgain, 150) << "restored, the changed arm was chosen " << foundAgain << " times of 300";
  }
}

// An id removed and added again (other features, the same row: it was the last) between two calls
// is a new arm to the elimination policies, over their own arms and over a catalogue: it leaves the
// eliminated stage.
TEST(ChangedFeatures, AnIdAddedAgainIsANewArmToTheEliminationPolicies) {
  constexpr int kDim = 4;
  constexpr std::size_t kArms = 120;
  Random random(5);
  const Vector thetaStar = unitTaste(random, kDim);
  std::vector<double> features(kArms * kDim);
  for (auto& value : features) value = random.normal() / 2.0;
  // The last arm is the worst: a row of -theta*.
  for (int j = 0; j < kDim; ++j) features[(kArms - 1) * kDim + static_cast<std::size_t>(j)] = -thetaStar[j];
  std::vector<Id> ids(kArms);
  for (std::size_t i = 0; i < kArms; ++i) ids[i] = static_cast<Id>(i + 1);
  const Id last = ids.back();
  std::vector<double> better(kDim);
  for (int j = 0; j < kDim; ++j) better[static_cast<std::size_t>(j)] = 2.0 * thetaStar[j];
  for (const bool overCatalogue : {false, true}) {
    SCOPED_TRACE(overCatalogue ? "over a catalogue" : "own arms");
    auto catalogue = std::make_shared<Catalogue>(Json{{"dim", kDim}, {"index", {{"type", "exact"}}}});
    catalogue->add(ids.data(), kArms, features.data(), features.size());
    Json options{{"type", "linear-elim"}, {"seed", 2}, {"horizon", 2000}};
    std::unique_ptr<PersistentLinearPolicy> policy;
    if (overCatalogue) {
      policy = std::make_unique<PersistentLinearPolicy>(options, catalogue);
    } else {
      options["dim"] = kDim;
      options["search"] = "widths";  // the scan (ScanElim), which reads its arms at the next call
      policy = std::make_unique<PersistentLinearPolicy>(options);
      (*policy)->addArms(ids.data(), kArms, features.data(), features.size());
    }
    std::vector<double> current = features;
    const auto mean = [&](Id id) { return Eigen::Map<const Vector>(current.data() + (id - 1) * kDim, kDim).dot(thetaStar); };
    for (int step = 0; step < 400; ++step) {
      const Id arm = (*policy)->select();
      (*policy)->update(arm, mean(arm) + 0.1 * random.normal());
    }
    const auto& elimination = dynamic_cast<const ScanElim&>(**policy);
    ASSERT_EQ(elimination.stageOf(last), -1);
    if (overCatalogue) {
      catalogue->remove(&last, 1);
      catalogue->add(&last, 1, better.data(), better.size());
    } else {
      (*policy)->removeArms(&last, 1);
      (*policy)->addArms(&last, 1, better.data(), better.size());
    }
    std::copy(better.begin(), better.end(), current.begin() + static_cast<std::ptrdiff_t>((last - 1) * kDim));
    // Saved and restored in between: the arrival is in the state.
    const std::vector<std::uint8_t> bytes = policy->toBytes();
    auto restored = overCatalogue ? PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), "linear-elim", catalogue)
                                  : PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), "linear-elim");
    int chosen = 0;
    for (int step = 0; step < 200; ++step) {
      const Id arm = restored->select();
      chosen += arm == last ? 1 : 0;
      restored->update(arm, mean(arm) + 0.1 * random.normal());
    }
    EXPECT_NE(dynamic_cast<const ScanElim&>(*restored).stageOf(last), -1);
    EXPECT_GE(chosen, 100) << "the arm added again was chosen " << chosen << " times of 200";
  }
}

}  // namespace changed_features_test
}  // namespace sublinear::testing
