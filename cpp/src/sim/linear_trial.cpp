#include "sublinear/sim/linear_trial.hpp"

#include <algorithm>
#include <chrono>
#include <string>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/state_codec.hpp"
#include "sublinear/env/environment_factory.hpp"
#include "sublinear/linear/policy_factory.hpp"
#include "sublinear/sim/sim_option_tables.hpp"

namespace sublinear {

namespace {
using Clock = std::chrono::steady_clock;

double secondsBetween(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double>(end - start).count();
}

constexpr std::uint64_t kPolicyPurpose = 3;
constexpr std::uint64_t kCataloguePurpose = 4;
}  // namespace

LinearTrial::LinearTrial(EnvironmentMaker makeEnvironment, PolicyMaker makePolicy)
    : makeEnvironment_(std::move(makeEnvironment)), makePolicy_(std::move(makePolicy)) {}

LinearTrial::LinearTrial(EnvironmentMaker makeEnvironment, PolicyMaker makePolicy, CatalogueMaker makeCatalogue, UserMaker makeUser)
    : makeEnvironment_(std::move(makeEnvironment)),
      makePolicy_(std::move(makePolicy)),
      makeCatalogue_(std::move(makeCatalogue)),
      makeUser_(std::move(makeUser)) {}

void LinearTrial::setup(TrialClock& clock) {
  environment_ = makeEnvironment_();
  require(slate_ == 0 || environment_->supportsSlates(), ErrorCode::InvalidArgument,
          "option 'slate' needs a 'linear' environment of one user (whose regret is that of expected rewards)");
  const auto start = Clock::now();
  if (environment_->userCount() > 1) {
    require(static_cast<bool>(makeCatalogue_), ErrorCode::InvalidArgument, "this environment's users need a catalogue");
    catalogue_ = makeCatalogue_(environment_->dim());
    const EnvironmentArms& arms = environment_->arms();
    if (!arms.empty()) {
      const std::vector<Id>& ids = arms.ids();
      catalogue_->add(ids.data(), ids.size(), arms.features(ids.front()), ids.size() * static_cast<std::size_t>(arms.dim()));
    }
    const std::size_t count = environment_->userCount();
    users_.reserve(count);
    for (std::size_t user = 0; user < count; ++user) users_.push_back(makeUser_(catalogue_, user));
    userRegrets_.assign(count, 0.0);
    clock.setup += secondsBetween(start, Clock::now());
    return;
  }
  policy_ = makePolicy_(environment_->dim());
  const EnvironmentArms& arms = environment_->arms();
  if (!arms.empty()) {
    // The rows are contiguous in the environment, so they go to the policy in one call.
    const std::vector<Id>& ids = arms.ids();
    policy_->addArms(ids.data(), ids.size(), arms.features(ids.front()), ids.size() * static_cast<std::size_t>(arms.dim()));
  }
  clock.setup += secondsBetween(start, Clock::now());
}

RoundOutcome LinearTrial::playRound(std::int64_t t, TrialClock& clock) {
  // Round-robin over the users; one policy is user 0 of 1.
  const std::size_t user = users_.empty() ? 0 : static_cast<std::size_t>((t - 1) % static_cast<std::int64_t>(users_.size()));
  LinearPolicy& policy = users_.empty() ? *policy_ : *users_[user];
  if (!users_.empty()) environment_->setUser(user);
  RoundOutcome outcome;
  if (slate_ > 0) {
    const auto beforeSelect = Clock::now();
    const std::vector<Id> shown = policy.selectSlate(slate_, ArmFilter{});
    clock.select += secondsBetween(beforeSelect, Clock::now());
    outcome.regret = environment_->slateRegret(shown);
    std::vector<double> rewards(shown.size());
    for (std::size_t i = 0; i < shown.size(); ++i) rewards[i] = environment_->drawReward(shown[i]);
    const auto beforeUpdate = Clock::now();
    for (std::size_t i = 0; i < shown.size(); ++i) policy.update(shown[i], rewards[i]);
    clock.update += secondsBetween(beforeUpdate, Clock::now());
    for (const double reward : rewards) outcome.reward += reward;
  } else {
    const auto beforeSelect = Clock::now();
    const Id arm = policy.select();
    const auto afterSelect = Clock::now();
    clock.select += secondsBetween(beforeSelect, afterSelect);
    outcome.regret = environment_->regret(arm);
    outcome.reward = environment_->drawReward(arm);
    const auto beforeUpdate = Clock::now();
    policy.update(arm, outcome.reward);
    const auto afterUpdate = Clock::now();
    clock.update += secondsBetween(beforeUpdate, afterUpdate);
  }
  if (!users_.empty()) userRegrets_[user] += outcome.regret;
  ArmChange change = environment_->changeAfterRound(t);
  if (!change.empty()) {
    const auto beforeChange = Clock::now();
    if (catalogue_) {
      // One change of the catalogue reaches every user at its next call.
      if (!change.removed.empty()) catalogue_->remove(change.removed.data(), change.removed.size());
      if (!change.added.empty()) {
        catalogue_->add(change.added.data(), change.added.size(), change.addedFeatures.data(), change.addedFeatures.size());
      }
    } else {
      if (!change.removed.empty()) policy_->removeArms(change.removed.data(), change.removed.size());
      if (!change.added.empty()) {
        policy_->addArms(change.added.data(), change.added.size(), change.addedFeatures.data(), change.addedFeatures.size());
      }
    }
    clock.update += secondsBetween(beforeChange, Clock::now());
  }
  return outcome;
}

namespace {
std::uint64_t innerProductsOf(const LinearPolicy& policy) {
  const Json stats = policy.stats();
  const auto found = stats.find("innerProducts");
  return found != stats.end() && found->is_number() ? found->get<std::uint64_t>() : 0;
}
}  // namespace

std::uint64_t LinearTrial::innerProducts() const {
  if (!users_.empty()) {
    std::uint64_t total = 0;
    for (const auto& user : users_) total += innerProductsOf(*user);
    return total;
  }
  if (!policy_) return 0;
  return innerProductsOf(*policy_);
}

Json LinearTrial::usersMemory() const {
  if (users_.empty()) return nullptr;
  std::vector<std::size_t> sizes;
  sizes.reserve(users_.size());
  for (const auto& user : users_) {
    StateWriter out("user");
    user->save(out);
    sizes.push_back(out.finish().size());
  }
  std::nth_element(sizes.begin(), sizes.begin() + static_cast<std::ptrdiff_t>(sizes.size() / 2), sizes.end());
  return Json{{"catalogueBytes", catalogue_->toBytes().size()}, {"perUserBytes", sizes[sizes.size() / 2]}};
}

std::unique_ptr<Trial> makeLinearTrial(const Json& environment, const Json& policy, std::uint64_t seed) {
  requireObject(environment, "environment");
  requireObject(policy, "policy");
  // The policy's own horizon, else the one simulate() set on the environment: both read over the
  // environment's range of it (0: none), the policy's own range applying when it is built.
  const std::int64_t horizon = readIntegerOption(option_groups::environmentCommon(), policy, "horizon",
                                                 readIntegerOption(option_groups::environmentCommon(), environment, "horizon"));
  Json policyOptions = policy.is_object() ? policy : Json::object();
  if (!policyOptions.contains("seed") || policyOptions["seed"].is_null()) {
    // Keep the derived seed inside 2^53 so that it survives a trip through JavaScript numbers.
    policyOptions["seed"] = deriveSeed(seed, kPolicyPurpose) >> 11;
  }
  if (horizon > 0 && !policyOptions.contains("horizon")) policyOptions["horizon"] = horizon;
  // Many users: the policy's `index` is the catalogue's (a user over a catalogue takes none).
  Json catalogueIndex = policyOptions.contains("index") ? policyOptions["index"] : Json(nullptr);
  Json userOptions = policyOptions;
  userOptions.erase("index");
  // And its subspace options (modelDim, subspaceEnergy): the catalogue's subspace is every user's,
  // and a user that repeats the catalogue's values is accepted.
  Json catalogueSubspace = Json::object();
  for (const char* key : {"modelDim", "subspaceEnergy"}) {
    if (policyOptions.contains(key) && !policyOptions[key].is_null()) catalogueSubspace[key] = policyOptions[key];
  }
  const std::string type = readString(policyOptions, "type", "");
  if (catalogueIndex.is_null() && type != "sub-ts") catalogueIndex = Json{{"type", "exact"}};
  const std::uint64_t userSeed = readSeed(policyOptions, 0);
  const auto slate = static_cast<std::size_t>(readIntegerOption(option_groups::simulation(), environment, "slate"));
  auto trial = std::make_unique<LinearTrial>(
      [environment, horizon, seed] { return makeLinearEnvironment(environment, horizon, seed); },
      [policyOptions](int dim) {
        Json options = policyOptions;
        options["dim"] = dim;
        return makeLinearPolicy(dim, options);
      },
      [catalogueIndex, catalogueSubspace, seed](int dim) {
        Json options{{"dim", dim}, {"seed", deriveSeed(seed, kCataloguePurpose) >> 11}};
        if (!catalogueIndex.is_null()) options["index"] = catalogueIndex;
        for (const auto& [key, value] : catalogueSubspace.items()) options[key] = value;
        return std::make_shared<Catalogue>(options);
      },
      [userOptions, userSeed](const std::shared_ptr<Catalogue>& catalogue, std::size_t user) {
        Json options = userOptions;
        options["seed"] = deriveSeed(userSeed, kPolicyPurpose + user) >> 11;
        return makeLinearPolicy(catalogue, options);
      });
  trial->setSlate(slate);
  return trial;
}

}  // namespace sublinear
