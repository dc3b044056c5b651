// Thompson users over a catalogue learning in the catalogue's subspace (issue 37 item 5 with the
// catalogue of issue 31): one basis for every user, a model of modelDim^2 whatever d, models that
// move forward through the catalogue's transitions when it refits, snapshots that restore over the
// same lineage only, and refusals that leave the state as it was.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "low_rank_arms.hpp"
#include "persistence_checks.hpp"
#include "sublinear/linear/catalogue.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"
#include "test_support.hpp"

namespace sublinear::testing {
namespace catalogue_subspace_test {

using World = LowRankCatalogue;

Json userSpec(const std::string& type, std::uint64_t seed = 5) { return Json{{"type", type}, {"seed", seed}, {"horizon", 1500}}; }

class CatalogueSubspaceUsers : public ::testing::TestWithParam<std::string> {};

TEST_P(CatalogueSubspaceUsers, LearnAtHighDimensionInTheSharedBasis) {
  // d = 192 > 64: subspace 'auto' learns in the catalogue's subspace, as over its own arms.
  World world(192, 8, Json{{"seed", 2}}, 11);
  world.add(3000, 0.3);
  PersistentLinearPolicy user(userSpec(GetParam()), world.catalogue);
  const double lastQuarter = world.play(user, 1200, 300) / 300.0;
  EXPECT_LT(lastQuarter, 0.2 * world.uniformRegret()) << "uniform " << world.uniformRegret();
  const Json stats = user->stats();
  EXPECT_EQ(stats["subspace"]["shared"], true);
  EXPECT_EQ(stats["subspace"]["version"], 1);
  EXPECT_EQ(stats["subspace"]["modelDim"], Catalogue::kDefaultModelDim);  // min(d, 32)
  EXPECT_EQ(world.catalogue->stats()["subspace"]["fits"], 1);
  // A second user shares the basis: no second fit.
  PersistentLinearPolicy second(userSpec(GetParam(), 6), world.catalogue);
  world.play(second, 5, 0);
  EXPECT_EQ(world.catalogue->stats()["subspace"]["fits"], 1);
  // theta() is in the arms' coordinates: the estimate points at theta*.
  EXPECT_GT(user->theta().normalized().dot(world.thetaStar), 0.8);
}

INSTANTIATE_TEST_SUITE_P(Thompson, CatalogueSubspaceUsers, ::testing::Values("lin-ts", "sub-ts"));

TEST(CatalogueSubspace, AUsersModelIsModelDimSquaredWhateverD) {
  // The same user over catalogues of d = 128 and d = 1,024 with modelDim 24: the same model, the same
  // snapshot size; the basis (d x modelDim) is the catalogue's, counted once.
  std::vector<std::size_t> sizes;
  for (const int d : {128, 1024}) {
    World world(d, 8, Json{{"modelDim", 24}}, 3);
    world.add(200, 0.3);
    PersistentLinearPolicy user(userSpec("lin-ts"), world.catalogue);
    world.play(user, 30, 0);
    EXPECT_EQ(user->stats()["subspace"]["modelDim"], 24);
    EXPECT_EQ(world.catalogue->stats()["subspace"]["basisBytes"], static_cast<std::size_t>(d) * 24 * sizeof(double));
    sizes.push_back(user.toBytes().size());
    // V, its factor, V^-1 and b in 24 dimensions, a few hundred bytes of options and counters.
    EXPECT_LT(sizes.back(), 3 * 24 * 24 * sizeof(double) + 2048);
  }
  EXPECT_EQ(sizes[0], sizes[1]);
  // subspace 'none' keeps the d x d model (the cost the subspace removes).
  World world(128, 8, Json{{"modelDim", 24}}, 3);
  world.add(200, 0.3);
  Json full = userSpec("lin-ts");
  full["subspace"] = "none";
  PersistentLinearPolicy user(full, world.catalogue);
  world.play(user, 3, 0);
  EXPECT_GT(user.toBytes().size(), 2 * 128 * 128 * sizeof(double));
  EXPECT_FALSE(user->stats().contains("subspace"));
}

TEST(CatalogueSubspace, ARefitMovesEveryModelAndTheUserKeepsLearning) {
  // Arms of rank 6 without a tail and an energy that keeps every direction: the refit's basis spans
  // the same space, so a moved model estimates the same theta.
  World world(128, 6, Json{{"subspaceEnergy", 0.9999999}, {"seed", 4}}, 21);
  world.add(800, 0.0);
  PersistentLinearPolicy user(userSpec("lin-ts"), world.catalogue);
  world.play(user, 400, 0);
  const Vector before = user->theta();
  world.add(900, 0.0);  // the catalogue more than doubles
  // Another user's call refits the catalogue's basis; the first user's model has not moved yet, and
  // theta() reports what it will hold once it moves.
  PersistentLinearPolicy other(userSpec("lin-ts", 9), world.catalogue);
  world.play(other, 1, 0);
  EXPECT_EQ(world.catalogue->stats()["subspace"]["fits"], 2);
  EXPECT_EQ(world.catalogue->stats()["subspace"]["transitionBytes"], 32 * 32 * sizeof(double));
  EXPECT_EQ(user->stats()["subspace"]["version"], 1);
  EXPECT_LT((user->theta() - before).norm(), 1e-6 * before.norm());
  const double lastQuarter = world.play(user, 400, 100) / 100.0;
  EXPECT_EQ(user->stats()["subspace"]["version"], 2);
  EXPECT_LT(lastQuarter, 0.2 * world.uniformRegret()) << "uniform " << world.uniformRegret();
  // Half the arms leave: the catalogue fits again at the next need.
  std::vector<Id> gone = idRange(0, 900);
  world.catalogue->remove(gone.data(), gone.size());
  world.play(user, 1, 0);
  EXPECT_EQ(user->stats()["subspace"]["version"], 3);
}

TEST(CatalogueSubspace, ADecisionsRewardAfterARefitLandsInTheMovedModel) {
  // decide() keeps the arms' features (d of them); a reward that comes after another user refitted
  // the basis is projected onto the new basis once the model has moved to it.
  World world(100, 6, Json{{"subspaceEnergy", 0.9999999}}, 61);
  world.add(300, 0.0);
  PersistentLinearPolicy user(userSpec("sub-ts"), world.catalogue);
  world.play(user, 50, 0);
  const Decision decision = user->decide(2, ArmFilter{}, true);
  ASSERT_EQ(decision.arms.size(), 2u);
  for (const double p : decision.propensities) EXPECT_TRUE(p >= 0.0 && p <= 1.0);
  world.add(400, 0.0);
  PersistentLinearPolicy other(userSpec("lin-ts", 2), world.catalogue);
  world.play(other, 1, 0);
  ASSERT_EQ(user->stats()["subspace"]["version"], 1);
  const std::vector<double> rewards{world.means[decision.arms[0]], world.means[decision.arms[1]]};
  user->reward(decision.eventId, rewards.data(), rewards.size());
  EXPECT_EQ(user->stats()["subspace"]["version"], 2);
  EXPECT_EQ(user->stats()["updates"], 52);
  // The arms span the same space before and after: the estimate still points at theta*.
  EXPECT_GT(user->theta().normalized().dot(world.thetaStar), 0.5);
  const auto bytes = user.toBytes();
  auto restored = PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), "sub-ts", world.catalogue);
  EXPECT_EQ(restored->theta(), user->theta());
}

TEST(CatalogueSubspace, SnapshotsRestoreAcrossARefitAndOverTheCataloguesSnapshot) {
  World world(96, 8, Json{{"modelDim", 32}, {"seed", 1}}, 31);
  world.add(400, 0.2);
  const auto unfitted = world.catalogue->toBytes();  // before any fit
  PersistentLinearPolicy user(userSpec("sub-ts"), world.catalogue);
  world.play(user, 120, 0);
  const auto atFirst = user.toBytes();  // version 1
  // A catalogue loaded from the snapshot taken before the fit fits the same basis at its first need.
  auto early = Catalogue::fromBytes(unfitted.data(), unfitted.size());
  auto overEarly = PersistentLinearPolicy::fromBytes(atFirst.data(), atFirst.size(), "sub-ts", early);
  EXPECT_EQ(overEarly->theta(), user->theta());
  world.add(500, 0.2);
  const Id first = user->select();  // refits: version 2, and the model moves
  user->update(first, 0.25);
  const auto atSecond = user.toBytes();
  // Saved in version 1, restored over the catalogue in version 2: the model moves at its next call
  // as the original's did, bit for bit.
  auto moved = PersistentLinearPolicy::fromBytes(atFirst.data(), atFirst.size(), "sub-ts", world.catalogue);
  ASSERT_EQ(moved->select(), first);
  moved->update(first, 0.25);
  EXPECT_EQ(moved->theta(), user->theta());
  EXPECT_EQ(moved.toBytes(), atSecond);
  const auto catalogueBytes = world.catalogue->toBytes();
  auto copy = Catalogue::fromBytes(catalogueBytes.data(), catalogueBytes.size());
  EXPECT_EQ(copy->toBytes(), catalogueBytes);
  EXPECT_EQ(copy->stats()["subspace"], world.catalogue->stats()["subspace"]);
  auto overCopy = PersistentLinearPolicy::fromBytes(atSecond.data(), atSecond.size(), "sub-ts", copy);
  auto overOriginal = PersistentLinearPolicy::fromBytes(atSecond.data(), atSecond.size(), "sub-ts", world.catalogue);
  for (int t = 0; t < 60; ++t) {
    const Id arm = overOriginal->select();
    ASSERT_EQ(overCopy->select(), arm) << "step " << t;
    const double reward = world.means[arm] + 0.1 * world.noise.normal();
    overOriginal->update(arm, reward);
    overCopy->update(arm, reward);
  }
  EXPECT_EQ(overCopy->theta(), overOriginal->theta());
  EXPECT_EQ(overCopy->stats()["subspace"]["version"], 2);
  // Every truncation of a user's state is damage.
  for (std::size_t length = 0; length < atSecond.size(); length += 97) {
    EXPECT_EQ(codeOf([&] { PersistentLinearPolicy::fromBytes(atSecond.data(), length, "sub-ts", world.catalogue); }), ErrorCode::CorruptState);
  }
  // The catalogue's snapshot with its basis and transitions: damage is CORRUPT_STATE, never a crash.
  expectDamageDetected(catalogueBytes, [](const Bytes& damaged) { Catalogue::fromBytes(damaged.data(), damaged.size()); }, 40);
}

TEST(CatalogueSubspace, AStateOfAnotherLineageIsRefused) {
  World world(80, 8, Json{{"modelDim", 16}}, 41);
  world.add(300, 0.2);
  PersistentLinearPolicy user(userSpec("lin-ts"), world.catalogue);
  world.play(user, 20, 0);
  const auto snapshot = world.catalogue->toBytes();  // version 1
  // Two copies of the same catalogue (one identity) that change apart.
  auto a = Catalogue::fromBytes(snapshot.data(), snapshot.size());
  auto b = Catalogue::fromBytes(snapshot.data(), snapshot.size());
  const auto bytes = user.toBytes();
  LowRankArms more(80, 8, 42);
  const auto rowsA = more.draw(400, 0.2);
  const auto rowsB = more.draw(400, 0.2);
  const auto ids = idRange(1000, 400);
  a->add(ids.data(), ids.size(), rowsA.data(), rowsA.size());
  b->add(ids.data(), ids.size(), rowsB.data(), rowsB.size());
  auto overA = PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), "lin-ts", a);
  overA->update(overA->select(), 0.5);  // version 2 of copy a
  const auto savedOverA = overA.toBytes();
  expectError(ErrorCode::InvalidArgument, "fitted otherwise", [&] {
    auto b2 = PersistentLinearPolicy::fromBytes(savedOverA.data(), savedOverA.size(), "lin-ts", b);
  });
  // The snapshot the copies came from has not reached version 2 (and is not due for a fit).
  auto old = Catalogue::fromBytes(snapshot.data(), snapshot.size());
  expectError(ErrorCode::InvalidArgument, "has not reached", [&] {
    auto o = PersistentLinearPolicy::fromBytes(savedOverA.data(), savedOverA.size(), "lin-ts", old);
  });
  // Another catalogue altogether: its identity differs.
  World other(80, 8, Json{{"modelDim", 16}}, 41);
  other.add(300, 0.2);
  expectError(ErrorCode::InvalidArgument, "not over catalogue", [&] {
    auto o = PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), "lin-ts", other.catalogue);
  });
  // A changed fingerprint in the model's own fields (not the head) is damage.
  Bytes changed = savedOverA;
  const std::uint64_t fingerprint = a->subspaceFingerprint(2);
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i + 8 <= changed.size(); ++i) {
    std::uint64_t value = 0;
    for (int k = 0; k < 8; ++k) value |= static_cast<std::uint64_t>(changed[i + static_cast<std::size_t>(k)]) << (8 * k);
    if (value == fingerprint) at.push_back(i);
  }
  ASSERT_EQ(at.size(), 2u) << "the head's copy and the model's";
  changed[at[1]] ^= 1;
  EXPECT_EQ(codeOf([&] { PersistentLinearPolicy::fromBytes(resealed(changed).data(), changed.size(), "lin-ts", a); }), ErrorCode::CorruptState);
}

TEST(CatalogueSubspace, OptionsAreTheCataloguesAndBadInputChangesNothing) {
  World world(100, 8, Json{{"modelDim", 20}, {"subspaceEnergy", 0.7}}, 51);
  world.add(200, 0.2);
  const auto invalid = ErrorCode::InvalidArgument;
  // The catalogue's choice may be repeated (above d means d), not changed.
  EXPECT_NO_THROW((PersistentLinearPolicy(Json{{"type", "lin-ts"}, {"modelDim", 20}, {"subspaceEnergy", 0.7}}, world.catalogue)));
  EXPECT_EQ(codeOf([&] { PersistentLinearPolicy(Json{{"type", "lin-ts"}, {"modelDim", 30}}, world.catalogue); }), invalid);
  EXPECT_EQ(codeOf([&] { PersistentLinearPolicy(Json{{"type", "sub-ts"}, {"subspaceEnergy", 0.5}}, world.catalogue); }), invalid);
  EXPECT_EQ(codeOf([&] {
              PersistentLinearPolicy(Json{{"type", "lin-ts"}, {"subspace", "arms"}, {"prior", Json{{"theta", std::vector<double>(100, 0.0)}, {"weight", 1.0}}}},
                                     world.catalogue);
            }),
            invalid);
  // At d <= 64 'auto' learns in the subspace when the catalogue names modelDim or subspaceEnergy.
  World small(32, 4, Json{{"modelDim", 6}}, 52);
  small.add(50, 0.0);
  PersistentLinearPolicy smallUser(userSpec("lin-ts"), small.catalogue);
  small.play(smallUser, 3, 0);
  EXPECT_EQ(smallUser->stats()["subspace"]["modelDim"], 6);
  World plain(32, 4, Json::object(), 52);
  plain.add(50, 0.0);
  PersistentLinearPolicy plainUser(userSpec("lin-ts"), plain.catalogue);
  plain.play(plainUser, 3, 0);
  EXPECT_FALSE(plainUser->stats().contains("subspace"));
  EXPECT_FALSE(plain.catalogue->stats().contains("subspace"));
  // Refused calls leave the user as it was.
  PersistentLinearPolicy user(userSpec("lin-ts"), world.catalogue);
  world.play(user, 10, 0);
  const auto before = user.toBytes();
  EXPECT_EQ(codeOf([&] { user->update(99999, 0.5); }), ErrorCode::UnknownId);
  EXPECT_EQ(codeOf([&] { user->update(0, NAN); }), ErrorCode::NonFinite);
  const Id ids[] = {7};
  const double x[100] = {};
  EXPECT_EQ(codeOf([&] { user->addArms(ids, 1, x, 100); }), invalid);
  EXPECT_EQ(user.toBytes(), before);
}

}  // namespace catalogue_subspace_test
}  // namespace sublinear::testing
