// LinUCB and the elimination policies over a catalogue learning in the catalogue's subspace (issue 37
// item 5 for the scanning users): the rows they score are the catalogue's projected rows z = B^T x,
// so a user chooses exactly what the same policy over its own arms z chooses; a user's model is
// modelDim^2 whatever d; models move through the catalogue's transitions after a refit; snapshots
// continue bit for bit across a refit and refuse another lineage; bad input changes nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "low_rank_arms.hpp"
#include "sublinear/linear/catalogue.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"
#include "sublinear/linear/policy_factory.hpp"
#include "test_support.hpp"

namespace sublinear::testing {
namespace catalogue_subspace_scan_test {

using World = LowRankCatalogue;

Json userSpec(const std::string& type, std::uint64_t seed = 5) { return Json{{"type", type}, {"seed", seed}, {"horizon", 1500}}; }

class ScanningSubspaceUsers : public ::testing::TestWithParam<std::string> {};

TEST_P(ScanningSubspaceUsers, ChooseExactlyWhatThePolicyOverTheProjectedRowsChooses) {
  // The oracle: the same policy over its own arms whose features are the catalogue's projected rows
  // B^T x (same ids, same row order, same seed, same rewards) chooses the same arm at every step.
  World world(128, 10, Json{{"seed", 3}}, 71);
  world.add(700, 0.3);
  PersistentLinearPolicy user(userSpec(GetParam()), world.catalogue);
  const ArmSet& z = world.catalogue->projectedArmsCurrent();
  ASSERT_EQ(z.size(), world.catalogue->size());
  ASSERT_EQ(z.dim(), Catalogue::kDefaultModelDim);
  std::vector<double> rows;
  for (std::size_t row = 0; row < z.size(); ++row) rows.insert(rows.end(), z.rowData(row), z.rowData(row) + z.dim());
  Json own = userSpec(GetParam());
  own["dim"] = z.dim();
  if (GetParam() != "lin-ucb") own["search"] = "widths";
  auto oracle = makeLinearPolicy(z.dim(), own);
  oracle->addArms(z.ids().data(), z.size(), rows.data(), rows.size(), nullptr, 0);
  int eliminatedSeen = 0;
  for (int t = 0; t < 400; ++t) {
    const Id arm = user->select();
    ASSERT_EQ(oracle->select(), arm) << "step " << t;
    const double reward = world.means[arm] + 0.1 * world.noise.normal();
    user->update(arm, reward);
    oracle->update(arm, reward);
    if (GetParam() != "lin-ucb") eliminatedSeen = std::max(eliminatedSeen, user->stats()["eliminated"].get<int>());
  }
  // The model is the oracle's, reported in the arms' coordinates (B theta^).
  const Vector lifted = world.catalogue->fittedSubspace()->lift(oracle->theta());
  EXPECT_LT((user->theta() - lifted).norm(), 1e-12 * lifted.norm());
  // A slate too.
  EXPECT_EQ(user->selectSlate(5, ArmFilter{}), oracle->selectSlate(5, ArmFilter{}));
  if (GetParam() != "lin-ucb") EXPECT_GT(eliminatedSeen, 0) << "the elimination eliminated nothing: the oracle compared little";
}

TEST_P(ScanningSubspaceUsers, LearnOnLowRankEmbeddingsAtHighDimension) {
  // d = 256 > 64: 'auto' learns in the catalogue's subspace (modelDim 32).
  World world(256, 12, Json{{"seed", 2}}, 11);
  world.add(3000, 0.3);
  PersistentLinearPolicy user(userSpec(GetParam()), world.catalogue);
  const double lastQuarter = world.play(user, 1200, 300) / 300.0;
  EXPECT_LT(lastQuarter, 0.2 * world.uniformRegret()) << "uniform " << world.uniformRegret();
  const Json stats = user->stats();
  EXPECT_EQ(stats["subspace"]["shared"], true);
  EXPECT_EQ(stats["subspace"]["version"], 1);
  EXPECT_EQ(stats["subspace"]["modelDim"], Catalogue::kDefaultModelDim);
  EXPECT_EQ(user->theta().size(), 256);
  // The catalogue counts the projected rows it keeps for such users (doubles and floats a row).
  EXPECT_GE(world.catalogue->stats()["subspace"]["projectedBytes"].get<std::size_t>(), 3000u * 32 * 12);
}

TEST_P(ScanningSubspaceUsers, KeepLearningWhenTheCatalogueDoublesAndRefits) {
  World world(128, 6, Json{{"subspaceEnergy", 0.9999999}, {"seed", 4}}, 21);
  world.add(800, 0.0);
  PersistentLinearPolicy user(userSpec(GetParam()), world.catalogue);
  world.play(user, 400, 0);
  const Vector before = user->theta();
  world.add(900, 0.0);  // the catalogue more than doubles
  PersistentLinearPolicy other(userSpec(GetParam(), 9), world.catalogue);
  world.play(other, 1, 0);  // refits the basis, and refills the projected rows
  EXPECT_EQ(world.catalogue->stats()["subspace"]["fits"], 2);
  EXPECT_EQ(user->stats()["subspace"]["version"], 1);
  // The same span: the moved model estimates the same theta.
  EXPECT_LT((user->theta() - before).norm(), 1e-6 * before.norm());
  const double lastQuarter = world.play(user, 400, 100) / 100.0;
  EXPECT_EQ(user->stats()["subspace"]["version"], 2);
  EXPECT_LT(lastQuarter, 0.2 * world.uniformRegret()) << "uniform " << world.uniformRegret();
  // Arms leave: the projected rows follow, and the user's choices stay in the catalogue.
  std::vector<Id> gone = idRange(0, 300);
  world.catalogue->remove(gone.data(), gone.size());
  EXPECT_EQ(world.catalogue->projectedArms().size(), world.catalogue->size());
  for (int t = 0; t < 20; ++t) {
    const Id arm = user->select();
    ASSERT_TRUE(world.catalogue->has(arm));
    user->update(arm, world.means[arm]);
  }
}

TEST_P(ScanningSubspaceUsers, SnapshotsContinueBitForBitAcrossARefitAndRefuseAnotherLineage) {
  World world(96, 8, Json{{"modelDim", 24}, {"seed", 1}}, 31);
  world.add(400, 0.2);
  const auto unfitted = world.catalogue->toBytes();
  PersistentLinearPolicy user(userSpec(GetParam()), world.catalogue);
  world.play(user, 120, 0);
  const auto atFirst = user.toBytes();  // version 1
  const auto fittedCatalogue = world.catalogue->toBytes();
  world.add(500, 0.2);
  const Id first = user->select();  // refits: version 2, the model moves, the widths are computed afresh
  user->update(first, 0.25);
  const Id second = user->select();
  user->update(second, 0.5);
  const auto atSecond = user.toBytes();
  auto moved = PersistentLinearPolicy::fromBytes(atFirst.data(), atFirst.size(), GetParam(), world.catalogue);
  ASSERT_EQ(moved->select(), first);
  moved->update(first, 0.25);
  ASSERT_EQ(moved->select(), second);
  moved->update(second, 0.5);
  EXPECT_EQ(moved->theta(), user->theta());
  EXPECT_EQ(moved.toBytes(), atSecond);
  // Over a copy of the catalogue (snapshot, projected rows made afresh) the user continues alike.
  const auto catalogueBytes = world.catalogue->toBytes();
  auto copy = Catalogue::fromBytes(catalogueBytes.data(), catalogueBytes.size());
  auto overCopy = PersistentLinearPolicy::fromBytes(atSecond.data(), atSecond.size(), GetParam(), copy);
  for (int t = 0; t < 40; ++t) {
    const Id arm = user->select();
    ASSERT_EQ(overCopy->select(), arm) << "step " << t;
    const double reward = world.means[arm] + 0.1 * world.noise.normal();
    user->update(arm, reward);
    overCopy->update(arm, reward);
  }
  EXPECT_EQ(overCopy.toBytes(), user.toBytes());
  // Two copies of the fitted catalogue that grow apart: a state saved over one is refused over the other.
  auto a = Catalogue::fromBytes(fittedCatalogue.data(), fittedCatalogue.size());
  auto b = Catalogue::fromBytes(fittedCatalogue.data(), fittedCatalogue.size());
  LowRankArms more(96, 8, 42);
  const auto rowsA = more.draw(500, 0.2);
  const auto rowsB = more.draw(500, 0.2);
  const auto ids = idRange(5000, 500);
  a->add(ids.data(), ids.size(), rowsA.data(), rowsA.size());
  b->add(ids.data(), ids.size(), rowsB.data(), rowsB.size());
  auto overA = PersistentLinearPolicy::fromBytes(atFirst.data(), atFirst.size(), GetParam(), a);
  overA->update(overA->select(), 0.5);  // version 2 of copy a
  const auto savedOverA = overA.toBytes();
  expectError(ErrorCode::InvalidArgument, "fitted otherwise", [&] {
    auto overB = PersistentLinearPolicy::fromBytes(savedOverA.data(), savedOverA.size(), GetParam(), b);
  });
  // The unfitted snapshot (version 0) fits version 1 at the first need; it has not reached version 2.
  auto old = Catalogue::fromBytes(unfitted.data(), unfitted.size());
  expectError(ErrorCode::InvalidArgument, "has not reached", [&] {
    auto o = PersistentLinearPolicy::fromBytes(savedOverA.data(), savedOverA.size(), GetParam(), old);
  });
  // Truncations are damage.
  for (std::size_t length = 0; length < atSecond.size(); length += 211) {
    EXPECT_EQ(codeOf([&] { PersistentLinearPolicy::fromBytes(atSecond.data(), length, GetParam(), world.catalogue); }), ErrorCode::CorruptState);
  }
}

TEST_P(ScanningSubspaceUsers, AUsersMemoryDoesNotGrowWithD) {
  // The same user over catalogues of d = 128 and 1,024 (modelDim 24, 200 arms): the same snapshot,
  // the model's modelDim^2 doubles and the per-arm state (row order, widths, stages), nothing of d.
  std::vector<std::size_t> sizes;
  for (const int d : {128, 1024}) {
    World world(d, 8, Json{{"modelDim", 24}}, 3);
    world.add(200, 0.3);
    PersistentLinearPolicy user(userSpec(GetParam()), world.catalogue);
    world.play(user, 30, 0);
    EXPECT_EQ(user->stats()["subspace"]["modelDim"], 24);
    sizes.push_back(user.toBytes().size());
    EXPECT_LT(sizes.back(), 24 * 24 * sizeof(double) + 200 * 13 + 4096);
  }
  EXPECT_EQ(sizes[0], sizes[1]);
  // subspace 'none' keeps V^-1 of d x d.
  World world(128, 8, Json{{"modelDim", 24}}, 3);
  world.add(200, 0.3);
  Json full = userSpec(GetParam());
  full["subspace"] = "none";
  PersistentLinearPolicy user(full, world.catalogue);
  world.play(user, 3, 0);
  EXPECT_GT(user.toBytes().size(), 128 * 128 * sizeof(double));
  EXPECT_FALSE(user->stats().contains("subspace"));
}

TEST_P(ScanningSubspaceUsers, BadInputIsRefusedAndChangesNothing) {
  const auto invalid = ErrorCode::InvalidArgument;
  // Over their own arms the same options ask for the arms' own subspace (own_arms_subspace_test.cpp).
  for (const Json& extra : {Json{{"subspace", "arms"}}, Json{{"modelDim", 8}}, Json{{"subspaceEnergy", 0.5}}}) {
    Json own = userSpec(GetParam());
    own.update(extra);
    EXPECT_TRUE(makeLinearPolicy(100, own)->stats().contains("subspace")) << extra.dump();
  }
  Json none = userSpec(GetParam());
  none["subspace"] = "none";
  EXPECT_NO_THROW(makeLinearPolicy(100, none));
  World world(100, 8, Json{{"modelDim", 20}, {"subspaceEnergy", 0.7}}, 51);
  world.add(200, 0.2);
  Json other = userSpec(GetParam());
  other["modelDim"] = 30;
  EXPECT_EQ(codeOf([&] { PersistentLinearPolicy(other, world.catalogue); }), invalid);
  Json same = userSpec(GetParam());
  same["modelDim"] = 20;
  same["subspaceEnergy"] = 0.7;
  EXPECT_NO_THROW(PersistentLinearPolicy(same, world.catalogue));
  // Every choice of `subspace` over a catalogue, and nothing else.
  for (const char* choice : {"auto", "arms", "none"}) {
    Json chosen = userSpec(GetParam());
    chosen["subspace"] = choice;
    EXPECT_NO_THROW(PersistentLinearPolicy(chosen, world.catalogue)) << choice;
  }
  Json unknown = userSpec(GetParam());
  unknown["subspace"] = "none-of-these";
  expectError(invalid, "option 'subspace' must be ", [&] { PersistentLinearPolicy(unknown, world.catalogue); });
  PersistentLinearPolicy user(userSpec(GetParam()), world.catalogue);
  world.play(user, 10, 0);
  const auto before = user.toBytes();
  EXPECT_EQ(codeOf([&] { user->update(99999, 0.5); }), ErrorCode::UnknownId);
  EXPECT_EQ(codeOf([&] { user->update(0, NAN); }), ErrorCode::NonFinite);
  EXPECT_EQ(codeOf([&] { user->selectSlate(0, ArmFilter{}); }), invalid);
  const Id ids[] = {7};
  const double x[100] = {};
  EXPECT_EQ(codeOf([&] { user->addArms(ids, 1, x, 100); }), invalid);
  EXPECT_EQ(user.toBytes(), before);
}

INSTANTIATE_TEST_SUITE_P(Scanning, ScanningSubspaceUsers, ::testing::Values("lin-ucb", "linear-elim", "sub-elim"));

TEST(CatalogueProjectedRows, FollowAddAndRemoveAndAreMadeOnlyForUsersThatScan) {
  World world(80, 6, Json{{"modelDim", 16}}, 81);
  world.add(300, 0.2);
  // A Thompson user needs the basis, not the projected rows.
  PersistentLinearPolicy thompson(userSpec("lin-ts"), world.catalogue);
  world.play(thompson, 5, 0);
  EXPECT_EQ(world.catalogue->stats()["subspace"]["projectedBytes"], 0);
  PersistentLinearPolicy user(userSpec("lin-ucb"), world.catalogue);
  world.play(user, 5, 0);
  const auto check = [&] {
    const ArmSet& z = world.catalogue->projectedArms();
    ASSERT_EQ(z.size(), world.catalogue->size());
    std::vector<double> expected(16);
    for (std::size_t row = 0; row < z.size(); ++row) {
      ASSERT_EQ(z.idAt(row), world.catalogue->arms().idAt(row));
      world.catalogue->project(world.catalogue->arms().rowData(row), expected.data());
      for (int k = 0; k < 16; ++k) {
        ASSERT_EQ(z.rowData(row)[k], expected[static_cast<std::size_t>(k)]);
        ASSERT_EQ(z.floatRowData(row)[k], static_cast<float>(expected[static_cast<std::size_t>(k)]));
      }
    }
  };
  check();
  world.add(50, 0.2);  // not yet due for a refit: appended in the current basis
  check();
  // Labelled arms: the projected rows carry the labels, so a filtered selection over them admits
  // exactly the catalogue's eligible arms.
  const auto labelledRows = world.source.draw(10, 0.2);
  const auto labelledIds = idRange(10000, 10);
  const std::vector<std::uint32_t> labels(10, 4);
  world.catalogue->add(labelledIds.data(), labelledIds.size(), labelledRows.data(), labelledRows.size(), labels.data(), labels.size());
  check();
  for (std::size_t row = 0; row < world.catalogue->size(); ++row) {
    ASSERT_TRUE(world.catalogue->projectedArms().attributes().sameRow(row, world.catalogue->arms().attributes(), row));
  }
  ArmFilter onlyFour;
  onlyFour.labels = {4};
  for (const Id arm : user->selectSlate(3, onlyFour)) EXPECT_GE(arm, 10000u);
  std::vector<Id> gone{3, 299, 17, 320};
  world.catalogue->remove(gone.data(), gone.size());
  check();
  EXPECT_EQ(world.catalogue->stats()["subspace"]["projectedBytes"], world.catalogue->size() * (16 * 12 + 8));
}

}  // namespace catalogue_subspace_scan_test
}  // namespace sublinear::testing
