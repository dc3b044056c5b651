#include "sublinear/env/ratings_environment.hpp"

#include <algorithm>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"

namespace sublinear {

namespace {
const Json& changeOptions(const Json& options) {
  static const Json none = Json::object();
  if (!options.is_object() || !options.contains("change") || options["change"].is_null()) return none;
  const Json& change = options["change"];
  require(change.is_object(), ErrorCode::InvalidArgument, "option 'change' must be an object { every, add, remove }");
  return change;
}

std::uint32_t pickUser(const RatingsModel& model, const Json& options, std::uint64_t runSeed) {
  if (options.is_object() && options.contains("user") && !options["user"].is_null()) {
    return static_cast<std::uint32_t>(readInteger(options, "user", 0, 0, 4294967295LL));
  }
  const auto& users = model.heldOutUsers();
  return users[static_cast<std::size_t>(runSeed % users.size())];
}
}  // namespace

RatingsEnvironment::RatingsEnvironment(std::shared_ptr<const RatingsModel> model, const Json& options,
                                       std::int64_t horizon, std::uint64_t instanceSeed, std::uint64_t runSeed)
    : model_(std::move(model)),
      user_(pickUser(*model_, options, runSeed)),
      userRatings_(model_->ratingsOf(user_)),
      threshold_(readOption(option_groups::ratingsEnvironment(), options, "threshold")),
      paperRegret_(true),
      changeEvery_(readIntegerOption(option_groups::ratingsChange(), changeOptions(options), "every")),
      changeAdd_(static_cast<std::size_t>(readIntegerOption(option_groups::ratingsChange(), changeOptions(options), "add"))),
      changeRemove_(static_cast<std::size_t>(readIntegerOption(option_groups::ratingsChange(), changeOptions(options), "remove"))),
      random_(instanceSeed ^ (runSeed * 0x9e3779b97f4a7c15ULL)),
      arms_(model_->dim()) {
  paperRegret_ = readStringOption(option_groups::ratingsEnvironment(), options, "regret") == "paper";
  const std::size_t movies = model_->moviesByArrival().size();
  std::size_t scheduled = 0;
  if (changeEvery_ > 0 && horizon > 0) scheduled = static_cast<std::size_t>(horizon / changeEvery_) * changeAdd_;
  const std::size_t fallback = movies > scheduled ? movies - scheduled : 1;
  initialArms_ = static_cast<std::size_t>(readInteger(options, "arms", static_cast<long long>(fallback), 1,
                                                      static_cast<long long>(movies)));
  for (std::size_t i = 0; i < initialArms_; ++i) addNextMovie(nullptr);
}

double RatingsEnvironment::rewardOf(std::uint32_t movie) const {
  const auto found = std::lower_bound(userRatings_.begin(), userRatings_.end(), movie,
                                      [](const Rating& rating, std::uint32_t m) { return rating.item < m; });
  return found != userRatings_.end() && found->item == movie && found->value >= threshold_ ? 1.0 : 0.0;
}

void RatingsEnvironment::addNextMovie(ArmChange* change) {
  const std::uint32_t movie = model_->moviesByArrival()[nextArrival_];
  const double* features = model_->featuresOfArrival(nextArrival_);
  ++nextArrival_;
  arms_.add(movie, features, rewardOf(movie));
  if (change != nullptr) {
    change->added.push_back(movie);
    change->addedFeatures.insert(change->addedFeatures.end(), features, features + arms_.dim());
  }
}

double RatingsEnvironment::drawReward(Id arm) {
  if (!arms_.contains(arm)) fail(ErrorCode::UnknownId, "movie " + std::to_string(arm) + " is not among the current arms");
  return arms_.expectedReward(arm);
}

double RatingsEnvironment::regret(Id arm) const {
  if (!paperRegret_) return LinearEnvironment::regret(arm);
  if (!arms_.contains(arm)) fail(ErrorCode::UnknownId, "movie " + std::to_string(arm) + " is not among the current arms");
  return 1.0 - arms_.expectedReward(arm);
}

ArmChange RatingsEnvironment::changeAfterRound(std::int64_t t) {
  ArmChange change;
  if (changeEvery_ <= 0 || t % changeEvery_ != 0) return change;
  const std::size_t arriving = std::min(changeAdd_, model_->moviesByArrival().size() - nextArrival_);
  change.removed = arms_.removeRandom(changeRemove_, arriving > 0 ? 0 : 1, random_);
  for (std::size_t i = 0; i < arriving; ++i) addNextMovie(&change);
  return change;
}

Json RatingsEnvironment::describe() const {
  std::size_t liked = 0;
  for (const Rating& rating : userRatings_) liked += rating.value >= threshold_ ? 1 : 0;
  return Json{{"type", type()},
              {"dim", arms_.dim()},
              {"user", user_},
              {"userRatings", userRatings_.size()},
              {"userLikes", liked},
              {"heldOutUsers", model_->heldOutUsers().size()},
              {"movies", model_->moviesByArrival().size()},
              {"initialArms", initialArms_},
              {"arms", arms_.size()},
              {"trainingRatings", model_->trainingRatings()},
              {"trainingRmse", model_->trainingRmse()},
              {"regret", paperRegret_ ? "paper" : "best"}};
}

}  // namespace sublinear
