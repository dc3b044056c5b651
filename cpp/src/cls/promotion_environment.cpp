#include "sublinear/cls/promotion_environment.hpp"

#include <cmath>

#include "sublinear/core/error.hpp"

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
    : promotions_(static_cast<std::size_t>(readInteger(options, "promotions", 10, 1, 10000))),
      users_(0),
      width_(static_cast<std::size_t>(readInteger(options, "rank", 10, 1, 1000)) + 1),
      random_(readSeed(options, seed)) {
  if (options.is_object() && options.contains("ratings") && !options["ratings"].is_null()) {
    fail(ErrorCode::InvalidArgument, "ratings input for promotion is not supported yet");
  }
  const auto k = static_cast<std::size_t>(readInteger(options, "k", 50, 1, 100000000));
  users_ = static_cast<std::size_t>(readInteger(options, "users", static_cast<long long>(100 * k), static_cast<long long>(k), 100000000));
  const auto population = static_cast<std::size_t>(readInteger(
      options, "population", static_cast<long long>(users_ > 20000 ? users_ : 20000), static_cast<long long>(users_), 100000000));
  const double spread = readNumber(options, "spread", 0.3, 0.0, 1e6);
  require(users_ * promotions_ <= 4294967295u, ErrorCode::InvalidArgument, "users * promotions must be below 2^32");
  const std::size_t rank = width_ - 1;
  const double inverseSqrt2 = 1.0 / std::sqrt(2.0);

  // Users: cluster c's centre is the basis vector e_c, spread by |Gaussian| noise, so that users
  // of different clusters are nearly orthogonal (paper 003's Figure 3 for MovieLens).
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
  permutation_.resize(population);
  for (std::size_t i = 0; i < population; ++i) permutation_[i] = i;
  roundFeatures_.resize(users_ * width_);
  means_.resize(users_ * promotions_);
  constraint_.k = k * promotions_;
  constraint_.perGroup = k;
  constraint_.groups.resize(users_ * promotions_);
  for (std::size_t row = 0; row < constraint_.groups.size(); ++row) constraint_.groups[row] = static_cast<std::uint32_t>(row / users_);
}

void PromotionEnvironment::beginRound() {
  // N distinct users, uniformly: the first N steps of a Fisher-Yates shuffle.
  const std::size_t population = permutation_.size();
  for (std::size_t i = 0; i < users_; ++i) {
    const std::size_t j = i + static_cast<std::size_t>(random_.uniformInt(population - i));
    std::swap(permutation_[i], permutation_[j]);
    const double* source = populationFeatures_.data() + permutation_[i] * width_;
    std::copy(source, source + width_, roundFeatures_.data() + i * width_);
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
