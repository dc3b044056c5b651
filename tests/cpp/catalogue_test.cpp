// Catalogue: one arm set and index shared by many users. Its own operations and errors; users over it
// choose what the same policy with its own copy of the arms chooses; a user's memory and snapshot do
// not grow with the catalogue; user snapshots continue exactly, also after the catalogue changed,
// and are refused over another catalogue.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "sublinear/core/random.hpp"
#include "sublinear/linear/catalogue.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"
#include "test_support.hpp"

namespace sublinear::testing {
namespace catalogue_test {

// Arms and rewards from their own stream, so that every policy of a comparison sees the same.
struct Problem {
  int dim;
  Random random;
  std::vector<double> thetaStar;
  Id nextId = 0;

  Problem(int d, std::uint64_t seed) : dim(d), random(seed), thetaStar(static_cast<std::size_t>(d)) {
    for (auto& value : thetaStar) value = random.normal();
  }
  struct Batch {
    std::vector<Id> ids;
    std::vector<double> features;
  };
  Batch arms(std::size_t count) {
    Batch batch;
    for (std::size_t i = 0; i < count; ++i) batch.ids.push_back(nextId++);
    batch.features.resize(count * static_cast<std::size_t>(dim));
    for (auto& value : batch.features) value = random.normal();
    return batch;
  }
  double reward(const double* x) {
    double mean = 0.0;
    for (int j = 0; j < dim; ++j) mean += x[j] * thetaStar[static_cast<std::size_t>(j)];
    return mean + 0.5 * random.normal();
  }
};

std::shared_ptr<Catalogue> makeCatalogue(int dim, const Json& index = Json{{"type", "exact"}}) {
  return std::make_shared<Catalogue>(Json{{"dim", dim}, {"index", index}, {"seed", 5}});
}

Json userSpec(const std::string& type) { return Json{{"type", type}, {"seed", 11}, {"horizon", 2000}}; }

TEST(Catalogue, AddsRemovesAndKeepsLabelsWithTheirArms) {
  Catalogue catalogue(Json{{"dim", 3}});
  EXPECT_EQ(catalogue.dim(), 3);
  EXPECT_EQ(catalogue.size(), 0u);
  const std::vector<Id> ids{10, 20, 30, 40};
  const std::vector<double> x{1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
  const std::vector<std::uint32_t> labels{1, 2, 3, 4};
  catalogue.add(ids.data(), ids.size(), x.data(), x.size(), labels.data(), labels.size());
  EXPECT_EQ(catalogue.size(), 4u);
  EXPECT_TRUE(catalogue.has(30));
  EXPECT_EQ(catalogue.index().size(), 4u);
  const Id gone[] = {20};
  catalogue.remove(gone, 1);
  EXPECT_FALSE(catalogue.has(20));
  EXPECT_EQ(catalogue.index().size(), 3u);
  EXPECT_FALSE(catalogue.index().contains(20));
  // The last row (40) moved into 20's place: its label moved with it.
  EXPECT_EQ(catalogue.labelOf(10), 1u);
  EXPECT_EQ(catalogue.labelOf(30), 3u);
  EXPECT_EQ(catalogue.labelOf(40), 4u);
  const Id more[] = {50};
  const double y[] = {2, 2, 2};
  catalogue.add(more, 1, y, 3);  // no labels: label 0
  EXPECT_EQ(catalogue.labelOf(50), 0u);
  const Json stats = catalogue.stats();
  EXPECT_EQ(stats["size"], 4);
  EXPECT_EQ(stats["labelled"], 3);
  EXPECT_EQ(stats["identity"].get<std::string>().size(), 16u);
  // The default index: Sub-TS's graph for this dimension.
  EXPECT_EQ(stats["index"]["type"], "hnsw");
  EXPECT_EQ(stats["index"]["M"], 8);
  EXPECT_EQ(stats["index"]["efConstruction"], 16);
  EXPECT_EQ(Catalogue(Json{{"dim", 33}}).stats()["index"]["M"], 16);
  EXPECT_EQ(catalogue.build(1000000), 0u);
}

TEST(Catalogue, RefusesBadInputAndStaysUnchanged) {
  Catalogue catalogue(Json{{"dim", 2}, {"index", {{"type", "exact"}}}});
  const Id ids[] = {1, 2};
  const double x[] = {1, 2, 3, 4};
  catalogue.add(ids, 2, x, 4);
  const std::string before = catalogue.stats().dump();
  const Id fresh[] = {3, 4};
  EXPECT_EQ(codeOf([&] { catalogue.add(fresh, 2, x, 3); }), ErrorCode::DimensionMismatch);
  const double nan[] = {1, 2, 3, std::nan("")};
  EXPECT_EQ(codeOf([&] { catalogue.add(fresh, 2, nan, 4); }), ErrorCode::NonFinite);
  const Id repeated[] = {3, 3};
  EXPECT_EQ(codeOf([&] { catalogue.add(repeated, 2, x, 4); }), ErrorCode::DuplicateId);
  const Id present[] = {3, 1};
  EXPECT_EQ(codeOf([&] { catalogue.add(present, 2, x, 4); }), ErrorCode::DuplicateId);
  const std::uint32_t oneLabel[] = {7};
  expectError(ErrorCode::InvalidArgument, "labels", [&] { catalogue.add(fresh, 2, x, 4, oneLabel, 1); });
  const double huge[] = {1, 2, 3, 1e16};
  EXPECT_EQ(codeOf([&] { catalogue.add(fresh, 2, huge, 4); }), ErrorCode::InvalidArgument);
  const Id unknown[] = {1, 9};
  EXPECT_EQ(codeOf([&] { catalogue.remove(unknown, 2); }), ErrorCode::UnknownId);
  EXPECT_EQ(catalogue.stats().dump(), before);
  EXPECT_TRUE(catalogue.has(1));
  EXPECT_FALSE(catalogue.has(3));
  expectError(ErrorCode::InvalidArgument, "dim", [] { Catalogue(Json{{"index", {{"type", "exact"}}}}); });
  expectError(ErrorCode::InvalidArgument, "dim", [] { Catalogue(Json{{"dim", 0}}); });
  expectError(ErrorCode::InvalidArgument, "unknown option 'dimm'", [] { Catalogue(Json{{"dim", 2}, {"dimm", 2}}); });
  expectError(ErrorCode::InvalidArgument, "efSerch", [] { Catalogue(Json{{"dim", 2}, {"index", {{"efSerch", 2}}}}); });
}

TEST(Catalogue, SnapshotKeepsIdentityArmsLabelsAndAnswers) {
  auto catalogue = makeCatalogue(4, Json{{"type", "hnsw"}, {"M", 4}, {"efConstruction", 8}});
  Problem problem(4, 1);
  auto batch = problem.arms(500);
  std::vector<std::uint32_t> labels(500);
  std::iota(labels.begin(), labels.end(), 0u);
  catalogue->add(batch.ids.data(), batch.ids.size(), batch.features.data(), batch.features.size(), labels.data(), labels.size());
  catalogue->build(300);
  const Id gone[] = {3, 77};
  catalogue->remove(gone, 2);
  const auto bytes = catalogue->toBytes();
  auto restored = Catalogue::fromBytes(bytes.data(), bytes.size());
  EXPECT_EQ(restored->identity(), catalogue->identity());
  EXPECT_EQ(restored->stats().dump(), catalogue->stats().dump());
  EXPECT_EQ(restored->toBytes(), bytes);
  for (const Id id : catalogue->arms().ids()) EXPECT_EQ(restored->labelOf(id), catalogue->labelOf(id));
  const float query[] = {0.5f, -1.0f, 2.0f, 0.1f};
  const SearchResult a = catalogue->index().search(query, 4, 5);
  const SearchResult b = restored->index().search(query, 4, 5);
  EXPECT_EQ(a.ids, b.ids);
  // Another catalogue is another name.
  EXPECT_NE(makeCatalogue(4)->identity(), catalogue->identity());

  auto damaged = bytes;
  damaged[damaged.size() / 2] ^= 0x10;
  EXPECT_EQ(codeOf([&] { Catalogue::fromBytes(damaged.data(), damaged.size()); }), ErrorCode::CorruptState);
  EXPECT_EQ(codeOf([&] { Catalogue::fromBytes(bytes.data(), bytes.size() - 9); }), ErrorCode::CorruptState);
  PersistentLinearPolicy own(Json{{"type", "lin-ucb"}, {"dim", 4}});
  const auto policyBytes = own.toBytes();
  EXPECT_EQ(codeOf([&] { Catalogue::fromBytes(policyBytes.data(), policyBytes.size()); }), ErrorCode::CorruptState);
}

// Runs the user and a policy with its own copy of the arms side by side with the same rewards and
// arm changes; every selection must agree.
void expectSameChoices(const std::string& type, const Json& catalogueIndex) {
  constexpr int kDim = 6;
  auto catalogue = makeCatalogue(kDim, catalogueIndex);
  PersistentLinearPolicy user(userSpec(type), catalogue);
  Json ownSpec = userSpec(type);
  ownSpec["dim"] = kDim;
  if (type == "sub-ts") ownSpec["index"] = catalogueIndex;
  PersistentLinearPolicy own(ownSpec);
  Problem problem(kDim, 7);
  const auto add = [&](std::size_t count) {
    auto batch = problem.arms(count);
    catalogue->add(batch.ids.data(), batch.ids.size(), batch.features.data(), batch.features.size());
    own->addArms(batch.ids.data(), batch.ids.size(), batch.features.data(), batch.features.size());
  };
  add(300);
  for (int t = 0; t < 400; ++t) {
    if (t % 100 == 50) {
      add(20);
      const Id leaving[] = {static_cast<Id>(t), static_cast<Id>(t + 1)};
      catalogue->remove(leaving, 2);
      own->removeArms(leaving, 2);
    }
    const Id chosen = user->select();
    ASSERT_EQ(chosen, own->select()) << type << " at step " << t;
    const double reward = problem.reward(catalogue->arms().featuresOf(chosen));
    user->update(chosen, reward);
    own->update(chosen, reward);
  }
  const Vector a = user->theta();
  const Vector b = own->theta();
  EXPECT_EQ(a, b);
}

TEST(CatalogueUsers, ChooseWhatTheSamePolicyWithItsOwnArmsChooses) {
  expectSameChoices("lin-ucb", Json{{"type", "exact"}});
  // Linear TS scans the catalogue's rows exactly, whatever its index.
  expectSameChoices("lin-ts", Json{{"type", "hnsw"}});
  expectSameChoices("sub-ts", Json{{"type", "exact"}});
}

TEST(CatalogueUsers, SubTSSearchesTheSharedGraphAndLearns) {
  constexpr int kDim = 8;
  auto catalogue = makeCatalogue(kDim, Json{{"type", "hnsw"}});
  Problem problem(kDim, 3);
  auto batch = problem.arms(3000);
  catalogue->add(batch.ids.data(), batch.ids.size(), batch.features.data(), batch.features.size());
  PersistentLinearPolicy user(userSpec("sub-ts"), catalogue);
  double best = -INFINITY;
  for (std::size_t row = 0; row < catalogue->size(); ++row) {
    double mean = 0.0;
    for (int j = 0; j < kDim; ++j) mean += catalogue->arms().rowData(row)[j] * problem.thetaStar[static_cast<std::size_t>(j)];
    best = std::max(best, mean);
  }
  double lateRegret = 0.0;
  for (int t = 0; t < 1500; ++t) {
    const Id arm = user->select();
    const double* x = catalogue->arms().featuresOf(arm);
    double mean = 0.0;
    for (int j = 0; j < kDim; ++j) mean += x[j] * problem.thetaStar[static_cast<std::size_t>(j)];
    if (t >= 1000) lateRegret += best - mean;
    user->update(arm, problem.reward(x));
  }
  // The user searched the catalogue's index (not a copy of its own).
  EXPECT_EQ(catalogue->stats()["index"]["searches"], 1500);
  // buildIndex() builds the catalogue's graph; Linear TS over it scans and has nothing to build.
  PersistentLinearPolicy baseline(userSpec("lin-ts"), catalogue);
  EXPECT_EQ(baseline->buildIndex(1000000), 0u);
  EXPECT_GT(catalogue->stats()["index"]["pending"].get<std::size_t>(), 0u);
  EXPECT_EQ(user->buildIndex(1000000), 0u);
  EXPECT_EQ(catalogue->stats()["index"]["pending"], 0);
  EXPECT_LT(lateRegret / 500.0, 0.1 * best);
  const Json stats = user->stats();
  EXPECT_EQ(stats["searches"], 1500);
  EXPECT_EQ(stats["catalogue"], catalogue->identityText());
}

TEST(CatalogueUsers, RefuseWhatOnlyAPolicyWithItsOwnArmsDoes) {
  auto catalogue = makeCatalogue(3);
  const Id ids[] = {1};
  const double x[] = {1, 2, 3};
  catalogue->add(ids, 1, x, 3);
  for (const std::string type : {"lin-ucb", "lin-ts", "sub-ts"}) {
    PersistentLinearPolicy user(userSpec(type), catalogue);
    expectError(ErrorCode::InvalidArgument, "catalogue.add()", [&] { user->addArms(ids, 1, x, 3); });
    expectError(ErrorCode::InvalidArgument, "catalogue.remove()", [&] { user->removeArms(ids, 1); });
    Json withDim = userSpec(type);
    withDim["dim"] = 3;
    expectError(ErrorCode::InvalidArgument, "'dim'", [&] { PersistentLinearPolicy(withDim, catalogue); });
  }
  for (const std::string type : {"lin-ts", "sub-ts"}) {
    Json withIndex = userSpec(type);
    withIndex["index"] = Json{{"type", "exact"}};
    expectError(ErrorCode::InvalidArgument, "'index'", [&] { PersistentLinearPolicy(withIndex, catalogue); });
  }
  Json transform = userSpec("sub-ts");
  transform["negativeRewardTransform"] = true;
  expectError(ErrorCode::InvalidArgument, "negativeRewardTransform", [&] { PersistentLinearPolicy(transform, catalogue); });
  for (const std::string type : {"linear-elim", "sub-elim"}) {
    // Over a catalogue the elimination policies keep widths: no stage index to give, no lifted search.
    Json withIndex = userSpec(type);
    withIndex["index"] = Json{{"type", "exact"}};
    expectError(ErrorCode::InvalidArgument, "'index'", [&] { PersistentLinearPolicy(withIndex, catalogue); });
    Json lifted = userSpec(type);
    lifted["search"] = "lifted";
    expectError(ErrorCode::InvalidArgument, "'search'", [&] { PersistentLinearPolicy(lifted, catalogue); });
    Json unknown = userSpec(type);
    unknown["search"] = "graph";
    expectError(ErrorCode::InvalidArgument, "'search'", [&] { PersistentLinearPolicy(unknown, catalogue); });
  }
  expectError(ErrorCode::InvalidArgument, "catalogue", [&] { PersistentLinearPolicy(userSpec("lin-ucb"), nullptr); });
  // An arm removed from the catalogue is unknown to its users.
  PersistentLinearPolicy user(userSpec("lin-ucb"), catalogue);
  EXPECT_EQ(user->select(), 1u);
  catalogue->remove(ids, 1);
  EXPECT_EQ(codeOf([&] { user->update(1, 1.0); }), ErrorCode::UnknownId);
  EXPECT_EQ(codeOf([&] { user->select(); }), ErrorCode::Empty);
}

TEST(CatalogueUsers, KeepTheCatalogueAliveAfterItsOwnerLetsGo) {
  auto catalogue = makeCatalogue(3);
  Problem problem(3, 2);
  auto batch = problem.arms(50);
  catalogue->add(batch.ids.data(), batch.ids.size(), batch.features.data(), batch.features.size());
  PersistentLinearPolicy user(userSpec("sub-ts"), catalogue);
  const std::weak_ptr<Catalogue> watch = catalogue;
  catalogue.reset();
  ASSERT_FALSE(watch.expired());
  for (int t = 0; t < 20; ++t) {
    const Id arm = user->select();
    user->update(arm, 1.0);
  }
}

// A catalogue of `arms` of the problem's arms, and `user` fed five of its own selections.
std::shared_ptr<Catalogue> filledCatalogue(Problem& problem, int dim, std::size_t arms) {
  auto catalogue = makeCatalogue(dim);
  auto batch = problem.arms(arms);
  catalogue->add(batch.ids.data(), batch.ids.size(), batch.features.data(), batch.features.size());
  return catalogue;
}

void playFiveSteps(PersistentLinearPolicy& user, Problem& problem, const Catalogue& catalogue) {
  for (int t = 0; t < 5; ++t) {
    const Id arm = user->select();
    user->update(arm, problem.reward(catalogue.arms().featuresOf(arm)));
  }
}

// The user's state (and so its model) at d = 32 is the same size over 1,000 and 100,000 arms
// (LinUCB with `widths: 'direct'`; its kept widths cost 12 bytes an arm, below).
TEST(CatalogueUsers, StateDoesNotGrowWithTheCatalogue) {
  constexpr int kDim = 32;
  std::vector<std::size_t> sizes;
  for (const std::size_t arms : {std::size_t{1000}, std::size_t{100000}}) {
    Problem problem(kDim, 4);
    auto catalogue = filledCatalogue(problem, kDim, arms);
    for (const std::string type : {"lin-ucb", "lin-ts", "sub-ts"}) {
      Json spec = userSpec(type);
      if (type == "lin-ucb") spec["widths"] = "direct";
      PersistentLinearPolicy user(spec, catalogue);
      playFiveSteps(user, problem, *catalogue);
      const auto bytes = user.toBytes();
      sizes.push_back(bytes.size());
      EXPECT_LT(bytes.size(), 64u * 1024u) << type;
    }
  }
  EXPECT_EQ(std::vector<std::size_t>(sizes.begin(), sizes.begin() + 3), std::vector<std::size_t>(sizes.begin() + 3, sizes.end()));
  std::printf("[ catalogue ] user state at d = 32: lin-ucb %zu, lin-ts %zu, sub-ts %zu bytes\n", sizes[0], sizes[1], sizes[2]);
}

// LinUCB's kept widths over a catalogue (the default) cost the user 12 bytes an arm, in memory and
// in its snapshot: the row order it last saw (4) and the width (8).
TEST(CatalogueUsers, KeptWidthsCostTwelveBytesAnArm) {
  constexpr int kDim = 32;
  std::vector<std::size_t> sizes;
  for (const std::size_t arms : {std::size_t{1000}, std::size_t{21000}}) {
    Problem problem(kDim, 4);
    auto catalogue = filledCatalogue(problem, kDim, arms);
    PersistentLinearPolicy user(userSpec("lin-ucb"), catalogue);
    playFiveSteps(user, problem, *catalogue);
    const Json stats = user->stats();
    EXPECT_EQ(stats["widths"], "kept");
    EXPECT_EQ(stats["perArmBytes"].get<std::size_t>(), 12 * arms);
    sizes.push_back(user.toBytes().size());
  }
  EXPECT_EQ(sizes[1] - sizes[0], 12u * 20000u);
}

// Runs `a` and `b` side by side for `steps` with the same rewards; every selection must agree.
void expectSameContinuation(PersistentLinearPolicy& a, PersistentLinearPolicy& b, const Catalogue& catalogue,
                            Problem& problem, int steps) {
  for (int t = 0; t < steps; ++t) {
    const Id chosen = a->select();
    ASSERT_EQ(chosen, b->select()) << "step " << t;
    const double reward = problem.reward(catalogue.arms().featuresOf(chosen));
    a->update(chosen, reward);
    b->update(chosen, reward);
  }
  EXPECT_EQ(a.toBytes(), b.toBytes());
}

class CatalogueUserSnapshots : public ::testing::TestWithParam<std::string> {};

TEST_P(CatalogueUserSnapshots, ContinueExactlyAlsoAfterTheCatalogueChanged) {
  constexpr int kDim = 5;
  // A weak graph, every search audited: Sub-TS recalls arms that its audits found, and the restored
  // user must continue with them (and with the audits' stream).
  Json index{{"type", "hnsw"}, {"M", 4}, {"efConstruction", 8}, {"efSearch", 1}, {"build", "immediate"}};
  auto catalogue = makeCatalogue(kDim, index);
  Problem problem(kDim, 9);
  auto batch = problem.arms(400);
  catalogue->add(batch.ids.data(), batch.ids.size(), batch.features.data(), batch.features.size());
  Json spec = userSpec(GetParam());
  if (GetParam() == "sub-ts") {
    spec["shortlist"] = 1;
    spec["auditBudget"] = 1.0;
  }
  PersistentLinearPolicy original(spec, catalogue);
  for (int t = 0; t < 150; ++t) {
    const Id arm = original->select();
    original->update(arm, problem.reward(catalogue->arms().featuresOf(arm)));
  }
  const auto bytes = original.toBytes();
  EXPECT_EQ(StateReader::peekType(bytes.data(), bytes.size()), GetParam() + "@catalogue");
  // Restored at once over the same catalogue.
  auto restored = PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), GetParam(), catalogue);
  EXPECT_EQ(restored.toBytes(), bytes);
  expectSameContinuation(original, restored, *catalogue, problem, 100);

  // The catalogue gains and loses arms (the recalled ones and the last played among them) after the save.
  const auto saved = original.toBytes();
  const Json stats = original->stats();
  std::vector<Id> leaving{original->select()};
  for (Id id = 0; id < 40; ++id) {
    if (std::find(leaving.begin(), leaving.end(), id) == leaving.end() && catalogue->has(id)) leaving.push_back(id);
  }
  catalogue->remove(leaving.data(), leaving.size());
  auto arriving = problem.arms(60);
  catalogue->add(arriving.ids.data(), arriving.ids.size(), arriving.features.data(), arriving.features.size());
  auto afterChange = PersistentLinearPolicy::fromBytes(saved.data(), saved.size(), GetParam(), catalogue);
  // `original` made one select since `saved` (its draw is not undone): restore a second copy from
  // the same bytes to compare against.
  auto twin = PersistentLinearPolicy::fromBytes(saved.data(), saved.size(), GetParam(), catalogue);
  expectSameContinuation(afterChange, twin, *catalogue, problem, 200);
  if (GetParam() == "sub-ts") {
    EXPECT_GT(stats["approximation"]["audits"].get<std::size_t>(), 0u);
  }

  // The same catalogue loaded from its snapshot (another process would) has the same identity.
  const auto catalogueBytes = catalogue->toBytes();
  auto elsewhere = Catalogue::fromBytes(catalogueBytes.data(), catalogueBytes.size());
  auto moved = PersistentLinearPolicy::fromBytes(saved.data(), saved.size(), GetParam(), elsewhere);
  auto stay = PersistentLinearPolicy::fromBytes(saved.data(), saved.size(), GetParam(), catalogue);
  // Both catalogues search alike only if their indexes stand alike: the copy was made just now.
  std::vector<Id> picks;
  for (int t = 0; t < 50; ++t) {
    const Id a = moved->select();
    ASSERT_EQ(a, stay->select());
    const double reward = problem.reward(catalogue->arms().featuresOf(a));
    moved->update(a, reward);
    stay->update(a, reward);
  }
}

TEST_P(CatalogueUserSnapshots, AreRefusedOverAnotherCatalogueOrNone) {
  auto catalogue = makeCatalogue(3);
  Problem problem(3, 1);
  auto batch = problem.arms(20);
  catalogue->add(batch.ids.data(), batch.ids.size(), batch.features.data(), batch.features.size());
  PersistentLinearPolicy user(userSpec(GetParam()), catalogue);
  const auto bytes = user.toBytes();
  auto other = makeCatalogue(3);
  other->add(batch.ids.data(), batch.ids.size(), batch.features.data(), batch.features.size());
  expectError(ErrorCode::InvalidArgument, "saved over catalogue " + catalogue->identityText(),
              [&] { PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), GetParam(), other); });
  expectError(ErrorCode::InvalidArgument, "{ catalogue }",
              [&] { PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), GetParam()); });
  expectError(ErrorCode::InvalidArgument, "{ catalogue }", [&] { PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), ""); });
  // A policy of another type, and damaged bytes.
  const std::string otherType = GetParam() == "lin-ucb" ? "sub-ts" : "lin-ucb";
  EXPECT_EQ(codeOf([&] { PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), otherType, catalogue); }), ErrorCode::CorruptState);
  auto damaged = bytes;
  damaged[damaged.size() - 30] ^= 1;
  EXPECT_EQ(codeOf([&] { PersistentLinearPolicy::fromBytes(damaged.data(), damaged.size(), GetParam(), catalogue); }), ErrorCode::CorruptState);
  // A state with its own arms is not a user's.
  PersistentLinearPolicy own(Json{{"type", GetParam()}, {"dim", 3}});
  const auto ownBytes = own.toBytes();
  expectError(ErrorCode::InvalidArgument, "own arms", [&] { PersistentLinearPolicy::fromBytes(ownBytes.data(), ownBytes.size(), GetParam(), catalogue); });
}

INSTANTIATE_TEST_SUITE_P(EveryUserPolicy, CatalogueUserSnapshots, ::testing::Values("lin-ucb", "lin-ts", "sub-ts"),
                         [](const auto& info) {
                           std::string name = info.param;
                           name.erase(std::remove(name.begin(), name.end(), '-'), name.end());
                           return name;
                         });

TEST(CatalogueUserSnapshots, LoadWellUnderAMillisecondAtDimension32) {
  auto catalogue = makeCatalogue(32);
  Problem problem(32, 6);
  auto batch = problem.arms(2000);
  catalogue->add(batch.ids.data(), batch.ids.size(), batch.features.data(), batch.features.size());
  PersistentLinearPolicy user(userSpec("sub-ts"), catalogue);
  for (int t = 0; t < 50; ++t) {
    const Id arm = user->select();
    user->update(arm, problem.reward(catalogue->arms().featuresOf(arm)));
  }
  const auto bytes = user.toBytes();
  std::vector<double> micros;
  for (int repeat = 0; repeat < 200; ++repeat) {
    const auto start = std::chrono::steady_clock::now();
    auto restored = PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), "sub-ts", catalogue);
    micros.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(micros.begin(), micros.end());
  std::printf("[ catalogue ] sub-ts user at d = 32: %zu bytes, load median %.1f us, p90 %.1f us\n", bytes.size(),
              micros[micros.size() / 2], micros[micros.size() * 9 / 10]);
  // Generous against a loaded machine; measured far below.
  EXPECT_LT(micros[micros.size() / 2], 1000.0);
}

}  // namespace catalogue_test
}  // namespace sublinear::testing
