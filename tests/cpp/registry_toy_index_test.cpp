// The recipe of docs/architecture.md for a new index type, followed in the test build only: a toy
// index (its class here, its registry entry with its option table) is then built by the factory,
// described by its option table, saved and restored through the persistence family, and searched by
// a linear policy, with no other file touched. If any of these paths named the index types by hand
// instead of reading the registry, the toy type would be refused there and this test would fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sublinear/core/option_table.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"
#include "sublinear/mips/index_factory.hpp"
#include "sublinear/mips/mips_option_tables.hpp"
#include "sublinear/mips/persistent_index.hpp"
#include "test_support.hpp"

namespace sublinear::testing {
namespace registry_toy_index_test {

// Scans only the first `window` rows of the store: approximate (items past the window are found
// only by exact re-ranking of what the caller asks for), with one saved field of its own, the count
// of searches, so that a restore is seen to bring back the structure and not just the items.
class WindowIndex final : public MipsIndex {
 public:
  WindowIndex(std::size_t dim, const Json& spec)
      : MipsIndex(dim), window_(static_cast<std::size_t>(readIntegerOption(group(), spec, "window"))) {
    readSeedOption(group(), spec);
  }
  std::string type() const override { return "toy-window"; }
  Json stats() const override {
    Json out = MipsIndex::stats();
    out["windowSearches"] = searches_;
    return out;
  }

  static const OptionGroup& group() {
    static const OptionGroup options{
        [] {
          OptionSpec spec{"window", OptionType::Integer};
          spec.low = 1;
          spec.high = 1e9;
          spec.fallback = 64;
          spec.doc = "rows of the store scanned per search";
          return spec;
        }(),
        [] {
          OptionSpec spec{"seed", OptionType::Seed};
          spec.high = 9007199254740991.0;
          spec.doc = "unused: the window draws nothing";
          return spec;
        }(),
    };
    return options;
  }

 protected:
  void onAdd(const Id*, std::size_t) override {}
  void onRemove(const Id*, std::size_t) override {}
  std::vector<Id> candidates(const float* paddedQuery, std::size_t count) override {
    ++searches_;
    const std::size_t skipped = size() > window_ ? size() - window_ : 0;
    std::vector<Id> found = scan(paddedQuery, count, skipped);
    return found;
  }
  void saveStructure(StateWriter& out) const override { out.u64(searches_); }
  void loadStructure(StateReader& in) override { searches_ = in.u64(); }

 private:
  std::size_t window_;
  std::uint64_t searches_ = 0;
};

// Registered once per process: the registry refuses a type twice.
void registerToyIndex() {
  static const bool registered = [] {
    // What the recipe's registry entry says: the name, the constructor, nothing saved per
    // coordinate before items arrive, and the option table's groups (the type's own beside its class).
    MipsIndexType entry{"toy-window",
                        [](std::size_t dim, const Json& spec) -> std::unique_ptr<MipsIndex> { return std::make_unique<WindowIndex>(dim, spec); },
                        nullptr,
                        {&option_groups::typed(), &option_groups::indexDim(), &WindowIndex::group()}};
    std::vector<const OptionGroup*> groups = entry.groups;
    mipsIndexRegistry().add(std::move(entry), std::move(groups));
    return true;
  }();
  (void)registered;
}

std::vector<float> gaussian(Random& random, std::size_t count) {
  std::vector<float> values(count);
  for (float& value : values) value = static_cast<float>(random.normal());
  return values;
}

TEST(RegistryToyIndex, FactoryTableRefusalsAndTypeList) {
  registerToyIndex();
  const auto types = mipsIndexTypes();
  EXPECT_NE(std::find(types.begin(), types.end(), "toy-window"), types.end());
  // The option table: described like any other, defaults and ranges from the entry's group.
  const Json described = optionTable("index", "toy-window").describe();
  const auto window = std::find_if(described.begin(), described.end(), [](const Json& entry) { return entry["name"] == "window"; });
  ASSERT_NE(window, described.end());
  EXPECT_EQ((*window)["default"], 64.0);
  EXPECT_EQ((*window)["low"], 1.0);
  // The factory checks keys and ranges through it.
  expectError(ErrorCode::InvalidArgument, "unknown option 'windw' for toy-window (did you mean 'window'?)",
              [] { makeMipsIndex(4, Json{{"type", "toy-window"}, {"windw", 3}}); });
  EXPECT_EQ(codeOf([] { makeMipsIndex(4, Json{{"type", "toy-window"}, {"window", 0}}); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(makeMipsIndex(4, Json{{"type", "toy-window"}})->type(), "toy-window");
  // An unknown type's refusal lists the registered ones, the toy included.
  expectError(ErrorCode::InvalidArgument, "pca-tree, toy-window)", [] { makeMipsIndex(4, Json{{"type", "toy"}}); });
  // A second registration of the name is a programming error.
  EXPECT_THROW(mipsIndexRegistry().add(MipsIndexType{"toy-window", nullptr, nullptr, {}}, {&option_groups::typed()}), std::logic_error);
}

TEST(RegistryToyIndex, SavesAndRestoresThroughThePersistenceFamily) {
  registerToyIndex();
  constexpr std::size_t dim = 6;
  PersistentIndex original(Json{{"type", "toy-window"}, {"dim", dim}, {"window", 5}});
  Random random(3);
  std::vector<Id> ids(40);
  for (Id i = 0; i < 40; ++i) ids[i] = 100 + i;
  const auto vectors = gaussian(random, ids.size() * dim);
  original->add(ids.data(), ids.size(), vectors.data(), vectors.size());
  const auto query = gaussian(random, dim);
  const SearchResult first = original->search(query.data(), dim, 3);
  ASSERT_EQ(first.ids.size(), 3u);
  // Only the window's five rows (the last five added) are candidates.
  for (Id id : first.ids) EXPECT_GE(id, 135u);

  const std::vector<std::uint8_t> bytes = original.toBytes();
  auto restored = PersistentIndex::fromBytes(bytes.data(), bytes.size(), "toy-window");
  EXPECT_EQ(restored->type(), "toy-window");
  EXPECT_EQ(restored->stats(), original->stats());
  EXPECT_EQ(restored->stats()["windowSearches"], 1);
  EXPECT_EQ(restored.toBytes(), bytes);
  const SearchResult again = restored->search(query.data(), dim, 3);
  EXPECT_EQ(again.ids, first.ids);
  // A state of another type is refused as of another type, not as an unknown one.
  EXPECT_EQ(codeOf([&] { PersistentIndex::fromBytes(bytes.data(), bytes.size(), "exact"); }), ErrorCode::CorruptState);
  std::vector<std::uint8_t> damaged = bytes;
  damaged[damaged.size() / 2] ^= 0x10;
  EXPECT_EQ(codeOf([&] { PersistentIndex::fromBytes(damaged.data(), damaged.size(), "toy-window"); }), ErrorCode::CorruptState);
}

TEST(RegistryToyIndex, ALinearPolicySearchesIt) {
  registerToyIndex();
  constexpr int dim = 4;
  PersistentLinearPolicy policy(Json{{"type", "sub-ts"}, {"dim", dim}, {"seed", 2}, {"shortlist", 4},
                                     {"index", {{"type", "toy-window"}, {"window", 8}}}});
  Random random(5);
  std::vector<Id> ids(30);
  std::vector<double> features(ids.size() * dim);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<Id>(i);
  for (double& value : features) value = random.normal();
  policy->addArms(ids.data(), ids.size(), features.data(), features.size());
  for (int step = 0; step < 20; ++step) {
    const Id arm = policy->select();
    EXPECT_LT(arm, 30u);
    policy->update(arm, features[arm * dim]);
  }
  EXPECT_GE(policy->stats()["index"].value("windowSearches", 0), 20);
  // The policy's state holds the toy index and restores through the same family.
  const std::vector<std::uint8_t> bytes = policy.toBytes();
  auto restored = PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), "sub-ts");
  EXPECT_EQ(restored.toBytes(), bytes);
  EXPECT_EQ(restored->select(), policy->select());
}

}  // namespace registry_toy_index_test
}  // namespace sublinear::testing
