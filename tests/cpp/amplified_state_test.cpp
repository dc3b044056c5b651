// Hostile bytes are cheap (issue 34): a state whose stored options were edited to ask for a large
// object (dim 10^6, 64 copies of an index of 1000 hash tables, ...) and then resealed passes every
// envelope check, so only the decoder stands between a few hundred bytes and gigabytes of memory.
// Every class must refuse such a state with CORRUPT_STATE (or, where the edit leaves a consistent
// state, load it) quickly and without allocating for what the options ask before the data is read.
//
// Memory is checked by restoring under an address-space limit a few tens of MiB above the process's
// current size: an allocation for the edited options fails there with std::bad_alloc, which a
// restore reports as OUT_OF_MEMORY, not CORRUPT_STATE, so a decoder that allocates before checking
// fails these tests even though the allocation itself would be refused.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "persistence_checks.hpp"
#include "sublinear/cls/cls_policy_factory.hpp"
#include "sublinear/cls/persistent_cls_policy.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"
#include "sublinear/linear/policy_factory.hpp"
#include "sublinear/matroid/persistent_semi_bandit_policy.hpp"
#include "sublinear/matroid/semi_bandit_factory.hpp"
#include "sublinear/matroid/uniform_matroid.hpp"
#include "sublinear/mips/index_factory.hpp"
#include "sublinear/mips/persistent_index.hpp"
#include "test_support.hpp"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SUBLINEAR_TEST_UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SUBLINEAR_TEST_UNDER_ASAN 1
#endif

namespace sublinear::testing {
namespace amplified_state_test {

constexpr double kMillisecondsAllowed = 100.0;

// Limits the process's address space to its current size plus `headroom` while alive. Sanitizer
// builds reserve terabytes of shadow memory up front, so there the limit is not set.
class AddressSpaceLimit {
 public:
  explicit AddressSpaceLimit(std::size_t headroom) {
#ifndef SUBLINEAR_TEST_UNDER_ASAN
    std::FILE* statm = std::fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (statm == nullptr || std::fscanf(statm, "%lu", &pages) != 1) {
      if (statm) std::fclose(statm);
      return;
    }
    std::fclose(statm);
    if (getrlimit(RLIMIT_AS, &saved_) != 0) return;
    rlimit limited = saved_;
    limited.rlim_cur = static_cast<rlim_t>(pages) * 4096 + headroom;
    if (saved_.rlim_max != RLIM_INFINITY) limited.rlim_cur = std::min(limited.rlim_cur, saved_.rlim_max);
    active_ = setrlimit(RLIMIT_AS, &limited) == 0;
#else
    (void)headroom;
#endif
  }
  ~AddressSpaceLimit() {
    if (active_) setrlimit(RLIMIT_AS, &saved_);
  }
  AddressSpaceLimit(const AddressSpaceLimit&) = delete;
  AddressSpaceLimit& operator=(const AddressSpaceLimit&) = delete;

 private:
  rlimit saved_{};
  bool active_ = false;
};

// What one restore did: the error code (or none), its message, and how long it took.
struct Outcome {
  bool threw = false;
  ErrorCode code = ErrorCode::InvalidArgument;
  std::string message;
  double milliseconds = 0.0;
};

Outcome restoreOnce(const std::function<void(const Bytes&)>& restore, const Bytes& bytes) {
  Outcome outcome;
  const auto start = std::chrono::steady_clock::now();
  {
    AddressSpaceLimit limit(std::size_t{48} << 20);
    try {
      restore(bytes);
    } catch (const Error& error) {
      outcome.threw = true;
      outcome.code = error.code();
      outcome.message = error.what();
    } catch (const std::exception& error) {
      outcome.threw = true;
      outcome.message = std::string("not a sublinear::Error: ") + error.what();
    }
  }
  outcome.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return outcome;
}

// One edit of a state's options. `mayLoad`: the edit leaves a state that is still consistent (the
// option does not shape the stored data), so loading it is allowed -- as cheaply as refusing it.
struct Edit {
  std::string options;  // the whole stored options text, or empty to merge `patch`
  Json patch;
  bool mayLoad = false;
};

Edit patch(Json value, bool mayLoad = false) { return Edit{"", std::move(value), mayLoad}; }

void expectCheapRefusal(const std::string& name, const Bytes& bytes, const std::function<void(const Bytes&)>& restore,
                        const std::vector<Edit>& edits) {
  // The valid state itself loads (the edits below are what make it hostile).
  ASSERT_NO_THROW(restore(bytes)) << name;
  for (const Edit& edit : edits) {
    const Bytes hostile = edit.options.empty() ? withOptions(bytes, edit.patch) : withOptionsText(bytes, edit.options);
    const std::string what = name + " with " + (edit.options.empty() ? edit.patch.dump() : edit.options) + " (" +
                             std::to_string(hostile.size()) + " bytes)";
    // The median of three restores: one slow run of a busy machine is not a failure.
    std::vector<Outcome> outcomes;
    for (int run = 0; run < 3; ++run) outcomes.push_back(restoreOnce(restore, hostile));
    std::vector<double> times;
    for (const auto& outcome : outcomes) times.push_back(outcome.milliseconds);
    std::sort(times.begin(), times.end());
    const Outcome& outcome = outcomes.front();
    if (outcome.threw) {
      EXPECT_EQ(outcome.code, ErrorCode::CorruptState) << what << ": " << outcome.message;
    } else {
      EXPECT_TRUE(edit.mayLoad) << what << ": restored without an error";
    }
    EXPECT_LT(times[1], kMillisecondsAllowed) << what << ": " << outcome.message;
  }
}

// Options every index or policy state is edited with: a dimension its stored data cannot have, a
// dimension that is not a number JSON can hold exactly, and the options of a non-object.
std::vector<Edit> dimensionEdits(double largeDim) {
  return {patch({{"dim", largeDim}}), patch({{"dim", 1e6}}), patch({{"dim", 4294967297.0}}), patch({{"dim", 0}}),
          Edit{"{\"dim\": 1e999}", {}, false}, Edit{"[1, 2]", {}, false}};
}

// ---- MIPS indexes ----

Bytes indexState(const Json& spec, std::size_t count = 40) {
  PersistentIndex index(spec);
  const std::size_t dim = spec["dim"].get<std::size_t>();
  Random random(5);
  std::vector<Id> ids(count);
  std::vector<float> vectors(count * dim);
  for (std::size_t i = 0; i < count; ++i) ids[i] = static_cast<Id>(i * 3 + 1);
  for (auto& value : vectors) value = static_cast<float>(random.normal());
  index->add(ids.data(), ids.size(), vectors.data(), vectors.size());
  index->search(vectors.data(), dim, 3);
  return index.toBytes();
}

void restoreIndex(const Bytes& bytes) { PersistentIndex::fromBytes(bytes.data(), bytes.size(), ""); }

const Json kHugeLsh{{"type", "lsh"}, {"tables", 1000}, {"bits", 64}};

class AmplifiedIndexState : public ::testing::TestWithParam<std::string> {};

TEST_P(AmplifiedIndexState, IsRefusedCheaply) {
  const std::string type = GetParam();
  if (!indexTypeAvailable(type)) GTEST_SKIP() << type << " is not built in";
  Json spec{{"type", type}, {"dim", 4}, {"seed", 1}};
  if (type == "hnsw") spec["build"] = "immediate";
  std::vector<Edit> edits = dimensionEdits(1e6);
  // Index options that size structures: each either contradicts the stored structure or must cost
  // nothing until data needs it.
  if (type == "lsh") {
    edits.push_back(patch({{"tables", 1000}}));
    edits.push_back(patch({{"bits", 64}}, true));
    edits.push_back(patch({{"tables", 1000}, {"bits", 64}, {"dim", 1000000}}));
  }
  if (type == "hnsw") {
    // The graph's link lists are stored with their own sizes: a larger M only allows more links.
    edits.push_back(patch({{"M", 1000}}, true));
    edits.push_back(patch({{"efConstruction", 1000000}, {"efSearch", 1000000}}, true));
  }
  if (type == "adaptive") {
    edits.push_back(patch({{"copies", 64}}));
    edits.push_back(patch({{"copies", 64}, {"base", kHugeLsh}}));
    edits.push_back(patch({{"copies", 64}, {"base", {{"type", "adaptive"}, {"copies", 64}, {"base", kHugeLsh}}}}));
    edits.push_back(patch({{"dim", 1000000}, {"copies", 64}, {"base", kHugeLsh}}));
    edits.push_back(patch({{"base", {{"type", "hnsw"}, {"M", 1000}}}}, true));
    edits.push_back(patch({{"copies", 64}, {"base", {{"type", "bounded-me"}}}, {"dim", 1000000}}));
  }
  if (type == "pca-tree") edits.push_back(patch({{"depth", 20}}));
  if (type == "greedy") edits.push_back(patch({{"budget", 4294967295.0}, {"budgetFraction", nullptr}}, true));
  const Bytes bytes = indexState(spec);
  expectCheapRefusal(type, bytes, restoreIndex, edits);
}

INSTANTIATE_TEST_SUITE_P(EveryIndex, AmplifiedIndexState,
                         ::testing::ValuesIn(mipsIndexTypes()));

// An index with no items holds no data to check the options against: such a state must cost what
// its few bytes cost, whatever the options ask for (the object stays cheap until data arrives).
class AmplifiedEmptyIndexState : public ::testing::TestWithParam<std::string> {};

TEST_P(AmplifiedEmptyIndexState, CostsNothingUntilItemsArrive) {
  const std::string type = GetParam();
  Json spec{{"type", type}, {"dim", 4}, {"seed", 1}};
  const Bytes bytes = PersistentIndex(spec).toBytes();
  std::vector<Edit> edits = {patch({{"dim", 1000000}}, true)};
  if (type == "lsh") edits.push_back(patch({{"dim", 1000000}, {"tables", 1000}, {"bits", 64}}, true));
  if (type == "adaptive") {
    edits.push_back(patch({{"dim", 1000000}, {"copies", 64}, {"base", kHugeLsh}}, true));
    edits.push_back(patch({{"copies", 64}, {"base", {{"type", "adaptive"}, {"copies", 64}, {"base", kHugeLsh}}}}));
    edits.push_back(patch({{"dim", 1000000}, {"copies", 64}, {"base", {{"type", "bounded-me"}}}}));
  }
  expectCheapRefusal(type + " (empty)", bytes, restoreIndex, edits);
}

INSTANTIATE_TEST_SUITE_P(EveryIndex, AmplifiedEmptyIndexState, ::testing::ValuesIn(mipsIndexTypes()));

// ---- Linear policies ----

Bytes linearState(const std::string& type) {
  Json spec{{"type", type}, {"dim", 3}, {"seed", 1}, {"horizon", 100}};
  if (takesOption("linear-policy", type, "index")) spec["index"] = Json{{"type", "exact"}};
  PersistentLinearPolicy policy(spec);
  Random random(2);
  std::vector<Id> ids(20);
  std::vector<double> features(ids.size() * 3);
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<Id>(i + 10);
  for (auto& value : features) value = random.normal();
  policy->addArms(ids.data(), ids.size(), features.data(), features.size());
  for (int t = 0; t < 10; ++t) policy->update(policy->select(), random.normal());
  return policy.toBytes();
}

class AmplifiedLinearState : public ::testing::TestWithParam<std::string> {};

TEST_P(AmplifiedLinearState, IsRefusedCheaply) {
  const std::string type = GetParam();
  std::vector<Edit> edits = dimensionEdits(1000);
  if (takesOption("linear-policy", type, "index")) {
    edits.push_back(patch({{"index", kHugeLsh}}));
    edits.push_back(patch({{"index", {{"type", "adaptive"}, {"copies", 64}, {"base", kHugeLsh}}}}));
    edits.push_back(patch({{"dim", 1000}, {"index", {{"type", "adaptive"}, {"copies", 64}, {"base", kHugeLsh}}}}));
    edits.push_back(patch({{"shortlist", 1000000}}, true));
    edits.push_back(patch({{"horizon", 1e12}}, true));
  }
  if (type == "sub-ts" || type == "sub-elim") edits.push_back(patch({{"maxShortlist", 1000000}}, true));
  expectCheapRefusal(type, linearState(type), [](const Bytes& bytes) { PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), ""); },
                     edits);
}

INSTANTIATE_TEST_SUITE_P(EveryLinearPolicy, AmplifiedLinearState,
                         ::testing::ValuesIn(linearPolicyTypes()));

// ---- Matroid semi-bandit policies ----

class AmplifiedSemiBanditState : public ::testing::TestWithParam<std::string> {};

TEST_P(AmplifiedSemiBanditState, IsRefusedCheaply) {
  const std::string type = GetParam();
  auto policy = makePersistentSemiBanditPolicy(type, UniformMatroid(12, 3), Json{{"seed", 1}, {"horizon", 100}});
  Random random(3);
  for (int t = 0; t < 20; ++t) {
    const auto basis = policy->select();
    std::vector<double> rewards(basis.size());
    for (auto& reward : rewards) reward = random.bernoulli(0.5) ? 1.0 : 0.0;
    policy->update(basis.data(), basis.size(), rewards.data(), rewards.size());
  }
  std::vector<Edit> edits = {patch({{"horizon", 9007199254740991.0}}, true), patch({{"type", "exact"}}),
                             Edit{"{\"type\": \"" + type + "\", \"horizon\": 1e999}", {}, false}, Edit{"[1, 2]", {}, false}};
  if (type == "faster-cucb") {
    edits.push_back(patch({{"epsilon", 1e-300}}));
    edits.push_back(patch({{"epsilon", 1e-9}}, true));
  }
  expectCheapRefusal(type, policy.toBytes(),
                     [](const Bytes& bytes) { PersistentSemiBanditPolicy::fromBytes(bytes.data(), bytes.size(), ""); }, edits);
}

INSTANTIATE_TEST_SUITE_P(EverySemiBanditPolicy, AmplifiedSemiBanditState, ::testing::ValuesIn(semiBanditPolicyTypes()));

// ---- Combinatorial linear policies ----

// `fixed`: a fixed arm set with an index (setArms), else per-round features.
Bytes clsState(const std::string& type, bool fixed) {
  Json options{{"type", type}, {"dim", 3}, {"seed", 1}, {"k", 2}};
  if (fixed) options["index"] = Json{{"type", "exact"}};
  PersistentClsPolicy policy(options);
  Random random(4);
  std::vector<double> features(10 * 3);
  for (auto& value : features) value = random.normal();
  SuperArmConstraint constraint;
  constraint.k = 2;
  if (fixed) policy->setArms(features.data(), features.size());
  for (int t = 0; t < 5; ++t) {
    const auto rows = fixed ? policy->selectFromArms(constraint) : policy->select(features.data(), features.size(), constraint);
    const double rewards[] = {1.0, -1.0};
    policy->update(rows.data(), rows.size(), rewards, rows.size());
  }
  return policy.toBytes();
}

class AmplifiedClsState : public ::testing::TestWithParam<std::string> {};

TEST_P(AmplifiedClsState, IsRefusedCheaply) {
  const std::string type = GetParam();
  auto restore = [](const Bytes& bytes) { PersistentClsPolicy::fromBytes(bytes.data(), bytes.size(), ""); };
  std::vector<Edit> edits = dimensionEdits(100000);
  edits.push_back(patch({{"blocks", 100000}}));
  edits.push_back(patch({{"dim", 100000}, {"blocks", 100000}}));
  edits.push_back(patch({{"k", 4294967295.0}}, true));
  expectCheapRefusal(type, clsState(type, false), restore, edits);
  std::vector<Edit> indexed = dimensionEdits(100000);
  indexed.push_back(patch({{"index", kHugeLsh}}));
  indexed.push_back(patch({{"index", {{"type", "adaptive"}, {"copies", 64}, {"base", kHugeLsh}}}}));
  indexed.push_back(patch({{"index", {{"shortlist", 4294967295.0}}}}, true));
  expectCheapRefusal(type + " (fixed arms)", clsState(type, true), restore, indexed);
}

INSTANTIATE_TEST_SUITE_P(EveryClsPolicy, AmplifiedClsState,
                         ::testing::ValuesIn(clsPolicyTypes()));

}  // namespace amplified_state_test
}  // namespace sublinear::testing
