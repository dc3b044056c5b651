// Random select / update / add / remove sequences on every policy type (linear, matroid
// semi-bandit, combinatorial linear), with invalid arguments mixed in. Checked: every failure is a
// coded sublinear::Error that leaves the policy's saved state byte for byte unchanged; selections
// are valid (an arm in the set, an independent basis of full rank, distinct rows); and a policy
// restored from its bytes makes the same next selection.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <set>
#include <vector>

#include "fuzz_input.hpp"
#include "sublinear/cls/cls_policy_factory.hpp"
#include "sublinear/cls/persistent_cls_policy.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"
#include "sublinear/linear/policy_factory.hpp"
#include "sublinear/matroid/persistent_semi_bandit_policy.hpp"
#include "sublinear/matroid/partition_matroid.hpp"
#include "sublinear/matroid/semi_bandit_factory.hpp"
#include "sublinear/matroid/uniform_matroid.hpp"

using namespace sublinear;

namespace {
void check(bool condition) {
  if (!condition) std::abort();
}

// Runs `action`; on an Error, the state (as saved) must be what it was before.
template <typename Saved>
void attempt(const std::function<void()>& action, const Saved& save) {
  const auto before = save();
  try {
    action();
  } catch (const Error& error) {
    check(error.code() != ErrorCode::CorruptState);
    check(save() == before);
  }
}

double reward(fuzz::FuzzInput& input) {
  switch (input.byte() % 16) {
    case 0: return NAN;
    case 1: return 1e300;
    default: return input.smallFloat();
  }
}

void fuzzLinear(fuzz::FuzzInput& input) {
  const auto types = linearPolicyTypes();
  const int dim = 1 + static_cast<int>(input.below(4));
  Json spec{{"type", types[input.below(types.size())]}, {"dim", dim}, {"seed", input.byte()}, {"horizon", 200}, {"beta", 1.0}};
  // Only a type whose option table has `index` takes one (LinUCB and the toy policy scan their arms
  // themselves; an unknown option is refused).
  if (input.byte() % 2 && optionTable("linear-policy", spec["type"].get<std::string>()).find("index") != nullptr) {
    spec["index"] = Json{{"type", "hnsw"}, {"M", 4}};
  }
  PersistentLinearPolicy policy(spec);
  const auto save = [&] { return policy.toBytes(); };
  for (int step = 0; step < 48 && !input.empty(); ++step) {
    switch (input.byte() % 4) {
      case 0: {
        const std::size_t n = 1 + input.below(4);
        std::vector<Id> ids(n);
        std::vector<double> x(n * static_cast<std::size_t>(dim) + (input.byte() % 8 == 0 ? 1 : 0));
        for (auto& id : ids) id = input.below(24);
        for (auto& value : x) value = input.smallFloat();
        attempt([&] { policy->addArms(ids.data(), n, x.data(), x.size()); }, save);
        break;
      }
      case 1: {
        const Id id = input.below(24);
        attempt([&] { policy->removeArms(&id, 1); }, save);
        break;
      }
      default: {
        Id arm = 0;
        bool selected = false;
        attempt([&] {
          arm = policy->select();
          selected = true;
          check(policy->hasArm(arm));
        }, save);
        if (selected) attempt([&] { policy->update(input.byte() % 8 == 0 ? arm + 1 : arm, reward(input)); }, save);
      }
    }
    if (input.byte() % 8 == 0) {
      const auto bytes = policy.toBytes();
      check(PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), policy->type()).toBytes() == bytes);
    }
  }
  const auto bytes = policy.toBytes();
  auto restored = PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), policy->type());
  if (policy->armCount() > 0) check(restored->select() == policy->select());
}

void fuzzSemiBandit(fuzz::FuzzInput& input) {
  const auto types = semiBanditPolicyTypes();
  std::unique_ptr<Matroid> matroid;
  if (input.byte() % 2) {
    matroid = std::make_unique<UniformMatroid>(2 + input.below(12), 1 + input.below(2));
  } else {
    std::vector<std::uint32_t> groups(2 + input.below(12));
    for (auto& group : groups) group = input.below(3);
    matroid = std::make_unique<PartitionMatroid>(groups);
  }
  auto policy = makePersistentSemiBanditPolicy(types[input.below(types.size())], *matroid, Json{{"horizon", 100}, {"seed", input.byte()}});
  const auto save = [&] { return policy.toBytes(); };
  for (int step = 0; step < 48 && !input.empty(); ++step) {
    std::vector<Id> basis = policy->select();
    check(basis.size() == matroid->rank() && matroid->isIndependent(basis.data(), basis.size()));
    std::vector<double> rewards(basis.size());
    for (auto& r : rewards) r = input.byte() % 16 == 0 ? 2.0 : (input.byte() % 2);
    if (input.byte() % 8 == 0 && !basis.empty()) basis.pop_back();
    attempt([&] { policy->update(basis.data(), basis.size(), rewards.data(), rewards.size()); }, save);
  }
  const auto bytes = policy.toBytes();
  auto restored = PersistentSemiBanditPolicy::fromBytes(bytes.data(), bytes.size(), policy->type());
  check(restored->select() == policy->select());
}

// Rounds of features (any row count), fixed arm sets that grow and shrink, selections from either,
// updates: after any such sequence the saved state reloads, and the restored policy continues
// exactly as the original does (issue 34: a selection over more rows than setArms registered, or
// pending while setArms shrank, once saved a state that did not reload).
void fuzzCls(fuzz::FuzzInput& input) {
  auto types = clsPolicyTypes();
  const int dim = 1 + static_cast<int>(input.below(3));
  Json options{{"type", types[input.below(types.size())]}, {"dim", dim}, {"seed", input.byte()}};
  if (options["type"] == "comb-ts" && input.byte() % 2) {
    options["randomization"] = "round";
    options["index"] = Json{{"type", "exact"}};
  }
  PersistentClsPolicy policy(options);
  const auto save = [&] { return policy.toBytes(); };
  const auto features = [&](std::size_t rows) {
    std::vector<double> x(rows * static_cast<std::size_t>(dim));
    for (auto& value : x) value = input.byte() % 32 == 0 ? INFINITY : input.smallFloat();
    return x;
  };
  const auto reloads = [&] {
    const auto bytes = policy.toBytes();
    check(PersistentClsPolicy::fromBytes(bytes.data(), bytes.size(), policy->type()).toBytes() == bytes);
  };
  for (int step = 0; step < 32 && !input.empty(); ++step) {
    const std::size_t rows = 1 + input.below(6);
    const int action = input.byte() % 4;
    if (action == 0) {
      const auto x = features(rows);
      attempt([&] { policy->setArms(x.data(), x.size()); }, save);
      continue;
    }
    SuperArmConstraint constraint;
    constraint.k = input.below(rows + 2);
    std::vector<Id> chosen;
    bool selected = false;
    if (action == 1) {
      attempt([&] {
        chosen = policy->selectFromArms(constraint);
        selected = true;
        check(chosen.size() == constraint.k && std::set<Id>(chosen.begin(), chosen.end()).size() == chosen.size());
      }, save);
    } else {
      const auto x = features(rows);
      attempt([&] {
        chosen = policy->select(x.data(), x.size(), constraint);
        selected = true;
        check(chosen.size() == constraint.k && std::set<Id>(chosen.begin(), chosen.end()).size() == chosen.size());
      }, save);
    }
    if (input.byte() % 4 == 0) reloads();  // also while a selection is pending
    if (!selected) continue;
    std::vector<double> rewards(chosen.size());
    for (auto& r : rewards) r = reward(input);
    attempt([&] { policy->update(chosen.data(), chosen.size(), rewards.data(), rewards.size()); }, save);
  }
  const auto bytes = policy.toBytes();
  auto restored = PersistentClsPolicy::fromBytes(bytes.data(), bytes.size(), policy->type());
  check(restored.toBytes() == bytes);
  // The two continue alike: the same rows for the same round, the same state after the same feedback.
  std::vector<double> x(4 * static_cast<std::size_t>(dim));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(static_cast<double>(i) + 0.5);
  SuperArmConstraint constraint;
  constraint.k = 2;
  const auto chosen = policy->select(x.data(), x.size(), constraint);
  check(restored->select(x.data(), x.size(), constraint) == chosen);
  const std::vector<double> rewards(chosen.size(), 0.5);
  policy->update(chosen.data(), chosen.size(), rewards.data(), rewards.size());
  restored->update(chosen.data(), chosen.size(), rewards.data(), rewards.size());
  check(restored.toBytes() == policy.toBytes());
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput input(data, size);
  switch (input.byte() % 3) {
    case 0: fuzzLinear(input); break;
    case 1: fuzzSemiBandit(input); break;
    default: fuzzCls(input); break;
  }
  return 0;
}
