#include "sublinear/env/ratings_environment.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/env/change_options.hpp"
#include "sublinear/env/env_option_tables.hpp"

namespace sublinear {

namespace {
std::uint32_t pickUser(const RatingsModel& model, const Json& options, std::uint64_t runSeed) {
  if (options.is_object() && options.contains("user") && !options["user"].is_null()) {
    return static_cast<std::uint32_t>(readIntegerOption(option_groups::ratingsEnvironment(), options, "user", 0));
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
  const long long arms = readIntegerOption(option_groups::ratingsEnvironment(), options, "arms", static_cast<long long>(fallback));
  requireIntegerOptionWithin("arms", arms, 1, static_cast<long long>(movies));
  initialArms_ = static_cast<std::size_t>(arms);
  for (std::size_t i = 0; i < initialArms_; ++i) addNextMovie(nullptr);
  const auto users = static_cast<std::size_t>(readIntegerOption(option_groups::ratingsEnvironment(), options, "users"));
  if (users > 1) {
    require(!(options.contains("user") && !options["user"].is_null()), ErrorCode::InvalidArgument,
            "option 'user' names one user; with users > 1 the run's seed picks them among the held-out users");
    const auto& heldOut = model_->heldOutUsers();
    if (users > heldOut.size()) {
      fail(ErrorCode::InvalidArgument, "users (" + std::to_string(users) + ") is more than the " + std::to_string(heldOut.size()) +
                                           " held-out users: raise 'testUsers' or lower 'minRatings'");
    }
    // From the run's own user on (heldOut[runSeed mod n], as pickUser), so user 0 is user_.
    const std::size_t first = static_cast<std::size_t>(runSeed % heldOut.size());
    users_.reserve(users);
    for (std::size_t i = 0; i < users; ++i) {
      const std::uint32_t id = heldOut[(first + i) % heldOut.size()];
      users_.push_back({id, model_->ratingsOf(id), NAN});
    }
  }
}

double RatingsEnvironment::rewardOf(const std::vector<Rating>& ratings, std::uint32_t movie) const {
  const auto found = std::lower_bound(ratings.begin(), ratings.end(), movie,
                                      [](const Rating& rating, std::uint32_t m) { return rating.item < m; });
  return found != ratings.end() && found->item == movie && found->value >= threshold_ ? 1.0 : 0.0;
}

void RatingsEnvironment::setUser(std::size_t user) {
  if (user >= userCount()) fail(ErrorCode::InvalidArgument, "user " + std::to_string(user) + " is out of range");
  current_ = user;
}

double RatingsEnvironment::currentReward(Id movie) const {
  if (users_.empty()) return arms_.expectedReward(movie);
  return rewardOf(users_[current_].ratings, static_cast<std::uint32_t>(movie));
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
  return currentReward(arm);
}

double RatingsEnvironment::regret(Id arm) const {
  if (!paperRegret_ && users_.empty()) return LinearEnvironment::regret(arm);
  if (!arms_.contains(arm)) fail(ErrorCode::UnknownId, "movie " + std::to_string(arm) + " is not among the current arms");
  if (paperRegret_) return 1.0 - currentReward(arm);
  double& best = users_[current_].best;
  if (std::isnan(best)) {
    best = 0.0;
    for (const Id id : arms_.ids()) best = std::max(best, currentReward(id));
  }
  return best - currentReward(arm);
}

ArmChange RatingsEnvironment::changeAfterRound(std::int64_t t) {
  ArmChange change;
  if (changeEvery_ <= 0 || t % changeEvery_ != 0) return change;
  const std::size_t arriving = std::min(changeAdd_, model_->moviesByArrival().size() - nextArrival_);
  change.removed = arms_.removeRandom(changeRemove_, arriving > 0 ? 0 : 1, random_);
  for (std::size_t i = 0; i < arriving; ++i) addNextMovie(&change);
  if (!change.empty()) {
    for (ServedUser& user : users_) user.best = NAN;
  }
  return change;
}

Json RatingsEnvironment::describe() const {
  std::size_t liked = 0;
  for (const Rating& rating : userRatings_) liked += rating.value >= threshold_ ? 1 : 0;
  Json description{{"type", type()},
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
  if (!users_.empty()) {
    std::vector<std::uint32_t> ids;
    ids.reserve(users_.size());
    for (const ServedUser& user : users_) ids.push_back(user.id);
    description["users"] = ids.size();
    description["userIds"] = ids;
  }
  return description;
}

}  // namespace sublinear
