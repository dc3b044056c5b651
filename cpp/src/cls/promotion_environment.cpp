#include "sublinear/cls/promotion_environment.hpp"

#include <algorithm>
#include <cmath>

#include "sublinear/cls/cls_option_tables.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/env/alternating_least_squares.hpp"
#include "sublinear/env/ratings_table.hpp"

namespace sublinear {

namespace {
void normalise(double* values, std::size_t count) {
  double squared = 0.0;
  for (std::size_t i = 0; i < count; ++i) squared += values[i] * values[i];
  const double norm = std::sqrt(squared);
  if (norm > 0.0) {
    for (std::size_t i = 0; i < count; ++i) values[i] /= norm;
  }
}
}  // namespace

PromotionEnvironment::PromotionEnvironment(const Json& options, std::uint64_t seed)
    : promotions_(static_cast<std::size_t>(readIntegerOption(option_groups::promotionEnvironment(), options, "promotions"))),
      users_(0),
      width_(static_cast<std::size_t>(readIntegerOption(option_groups::promotionEnvironment(), options, "rank")) + 1),
      random_(readSeed(options, seed)) {
  const auto k = static_cast<std::size_t>(readIntegerOption(option_groups::promotionEnvironment(), options, "k"));
  const long long users = readIntegerOption(option_groups::promotionEnvironment(), options, "users", static_cast<long long>(100 * k));
  requireIntegerOptionWithin("users", users, static_cast<long long>(k), 100000000);
  users_ = static_cast<std::size_t>(users);
  require(users_ * promotions_ <= 4294967295u, ErrorCode::InvalidArgument, "users * promotions must be below 2^32");
  const bool fromRatings = options.is_object() && options.contains("ratings") && !options["ratings"].is_null();
  if (fromRatings) {
    loadRatings(options);
  } else {
    generateUsers(options);
  }
  const std::size_t population = populationFeatures_.size() / width_;
  if (users_ > population) {
    fail(ErrorCode::InvalidArgument, "option 'users' (" + std::to_string(users_) + ") exceeds the " + std::to_string(population) + " users available");
  }
  permutation_.resize(population);
  for (std::size_t i = 0; i < population; ++i) permutation_[i] = i;
  roundFeatures_.resize(users_ * width_);
  means_.resize(users_ * promotions_);
  constraint_.k = k * promotions_;
  constraint_.perGroup = k;
  if (isGiven(options, "drift")) {
    const Json& drift = options.at("drift");
    require(drift.is_object(), ErrorCode::InvalidArgument, "option 'drift' must be an object { kind, every }");
    readStringOption(option_groups::clsDrift(), drift, "kind", "drift.");
    driftEvery_ = readIntegerOption(option_groups::clsDrift(), drift, "every");
    require(promotions_ >= 2, ErrorCode::InvalidArgument, "option 'drift' needs at least 2 promotions to pass their reward models on");
  }
  constraint_.groups.resize(users_ * promotions_);
  for (std::size_t row = 0; row < constraint_.groups.size(); ++row) constraint_.groups[row] = static_cast<std::uint32_t>(row / users_);
}

void PromotionEnvironment::loadRatings(const Json& options) {
  require(options["ratings"].is_string(), ErrorCode::InvalidArgument, "option 'ratings' must be the contents of a MovieLens ratings file");
  const RatingsTable table = RatingsTable::parse(options["ratings"].get_ref<const std::string&>());
  const auto minRaters = static_cast<std::size_t>(readIntegerOption(option_groups::promotionEnvironment(), options, "testMinRaters"));
  const auto maxRaters = static_cast<std::size_t>(readIntegerOption(option_groups::promotionEnvironment(), options, "testMaxRaters"));
  const int iterations = static_cast<int>(readIntegerOption(option_groups::promotionEnvironment(), options, "iterations"));
  const double lambda = readOption(option_groups::promotionEnvironment(), options, "lambda");
  // Dense indices for users and movies, in id order (the table is sorted by (user, item)).
  std::vector<std::uint32_t> userIds, movieIds;
  for (const Rating& rating : table.ratings()) {
    if (userIds.empty() || userIds.back() != rating.user) userIds.push_back(rating.user);
    movieIds.push_back(rating.item);
  }
  std::sort(movieIds.begin(), movieIds.end());
  std::vector<std::size_t> raters;  // per distinct movie
  std::vector<std::uint32_t> distinctMovies;
  for (const std::uint32_t id : movieIds) {
    if (distinctMovies.empty() || distinctMovies.back() != id) distinctMovies.push_back(id), raters.push_back(0);
    ++raters.back();
  }
  const auto movieIndex = [&](std::uint32_t id) {
    return static_cast<std::size_t>(std::lower_bound(distinctMovies.begin(), distinctMovies.end(), id) - distinctMovies.begin());
  };
  // Takemura and Ito (arXiv:1909.02251), section VII-A2: the M promotions are movies rated by
  // between 1,400 and 2,800 users, chosen at random; their ratings are the test data, the rest
  // trains the user features.
  std::vector<std::size_t> candidates;
  for (std::size_t m = 0; m < distinctMovies.size(); ++m) {
    if (raters[m] >= minRaters && raters[m] <= maxRaters) candidates.push_back(m);
  }
  if (candidates.size() < promotions_) {
    fail(ErrorCode::InvalidArgument, "the ratings file has " + std::to_string(candidates.size()) + " movies rated by " +
                                         std::to_string(minRaters) + " to " + std::to_string(maxRaters) + " users, fewer than the " +
                                         std::to_string(promotions_) + " promotions (options testMinRaters, testMaxRaters)");
  }
  random_.shuffle(candidates);
  candidates.resize(promotions_);
  std::vector<std::size_t> promotionOfMovie(distinctMovies.size(), promotions_);
  for (std::size_t j = 0; j < promotions_; ++j) promotionOfMovie[candidates[j]] = j;

  const std::size_t population = userIds.size();
  std::vector<AlternatingLeastSquares::Entry> training;
  ratingOf_.assign(promotions_ * population, 0.0);
  std::size_t user = 0;
  for (const Rating& rating : table.ratings()) {
    while (userIds[user] != rating.user) ++user;
    const std::size_t movie = movieIndex(rating.item);
    const std::size_t promotion = promotionOfMovie[movie];
    if (promotion < promotions_) {
      ratingOf_[promotion * population + user] = rating.value;
    } else {
      training.push_back({static_cast<std::uint32_t>(user), static_cast<std::uint32_t>(movie), rating.value});
    }
  }
  AlternatingLeastSquares als(static_cast<int>(width_ - 1), iterations, lambda);
  als.fit(training, population, distinctMovies.size(), random_);
  // The user's low-rank factor with a constant entry, as the paper's features.
  populationFeatures_.resize(population * width_);
  for (std::size_t i = 0; i < population; ++i) {
    double* x = populationFeatures_.data() + i * width_;
    for (std::size_t a = 0; a + 1 < width_; ++a) x[a] = als.rowFactors()(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(i));
    x[width_ - 1] = 1.0;
  }
}

void PromotionEnvironment::generateUsers(const Json& options) {
  const auto population = static_cast<std::size_t>(readIntegerOption(option_groups::promotionEnvironment(), options, "population",
                                                                     static_cast<long long>(users_ > 20000 ? users_ : 20000)));
  requireIntegerOptionWithin("population", static_cast<long long>(population), static_cast<long long>(users_), 100000000);
  const double spread = readOption(option_groups::promotionEnvironment(), options, "spread");
  const std::size_t rank = width_ - 1;
  const double inverseSqrt2 = 1.0 / std::sqrt(2.0);

  // Users: cluster c's centre is the basis vector e_c, spread by |Gaussian| noise, so that users
  // of different clusters are nearly orthogonal (Takemura and Ito's Figure 3 for MovieLens).
  populationFeatures_.resize(population * width_);
  std::vector<double> u(rank);
  for (std::size_t i = 0; i < population; ++i) {
    const std::size_t cluster = static_cast<std::size_t>(random_.uniformInt(rank));
    random_.fillNormal(u.data(), rank);
    for (std::size_t a = 0; a < rank; ++a) u[a] = std::fabs(spread * u[a]) + (a == cluster ? 1.0 : 0.0);
    normalise(u.data(), rank);
    double* x = populationFeatures_.data() + i * width_;
    for (std::size_t a = 0; a < rank; ++a) x[a] = u[a] * inverseSqrt2;
    x[rank] = inverseSqrt2;
  }
  // Promotion j appeals to one cluster: w_j = normalise(e_c + spread |g|); the reward is
  // Bernoulli(u^T w_j / 2), i.e. theta*_j = (w_j / sqrt 2, 0). Most users respond rarely, as most
  // MovieLens users never rated a given movie.
  promotionParameters_.resize(promotions_ * width_);
  for (std::size_t j = 0; j < promotions_; ++j) {
    double* w = promotionParameters_.data() + j * width_;
    const std::size_t cluster = static_cast<std::size_t>(random_.uniformInt(rank));
    random_.fillNormal(w, rank);
    for (std::size_t a = 0; a < rank; ++a) w[a] = std::fabs(spread * w[a]) + (a == cluster ? 1.0 : 0.0);
    normalise(w, rank);
    for (std::size_t a = 0; a < rank; ++a) w[a] *= inverseSqrt2;
    w[rank] = 0.0;
  }
}

void PromotionEnvironment::passRewardModelsOn() {
  std::vector<double>& models = ratingOf_.empty() ? promotionParameters_ : ratingOf_;
  const std::size_t block = models.size() / promotions_;
  std::rotate(models.begin(), models.begin() + static_cast<std::ptrdiff_t>(block), models.end());
}

void PromotionEnvironment::beginRound() {
  ++round_;
  if (driftEvery_ > 0 && round_ > 1 && (round_ - 1) % driftEvery_ == 0) passRewardModelsOn();
  // N distinct users, uniformly: the first N steps of a Fisher-Yates shuffle.
  const std::size_t population = permutation_.size();
  for (std::size_t i = 0; i < users_; ++i) {
    const std::size_t j = i + static_cast<std::size_t>(random_.uniformInt(population - i));
    std::swap(permutation_[i], permutation_[j]);
    const double* source = populationFeatures_.data() + permutation_[i] * width_;
    std::copy(source, source + width_, roundFeatures_.data() + i * width_);
  }
  if (!ratingOf_.empty()) {
    // From a ratings file: the reward is the user's rating of the promotion's movie, 0 if unrated.
    for (std::size_t j = 0; j < promotions_; ++j) {
      for (std::size_t i = 0; i < users_; ++i) means_[j * users_ + i] = ratingOf_[j * population + permutation_[i]];
    }
    return;
  }
  for (std::size_t j = 0; j < promotions_; ++j) {
    const double* theta = promotionParameters_.data() + j * width_;
    for (std::size_t i = 0; i < users_; ++i) {
      const double* x = roundFeatures_.data() + i * width_;
      double mean = 0.0;
      for (std::size_t a = 0; a < width_; ++a) mean += theta[a] * x[a];
      means_[j * users_ + i] = mean;
    }
  }
}

}  // namespace sublinear
