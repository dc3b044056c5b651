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
  const auto clusters = static_cast<std::size_t>(readInteger(options, "clusters", 20, 1, 1000000));
  const double spread = readNumber(options, "spread", 0.5, 0.0, 1e6);
  require(users_ * promotions_ <= 4294967295u, ErrorCode::InvalidArgument, "users * promotions must be below 2^32");
  const std::size_t rank = width_ - 1;
  const double inverseSqrt2 = 1.0 / std::sqrt(2.0);

  std::vector<double> centres(clusters * rank);
  for (std::size_t c = 0; c < clusters; ++c) {
    random_.fillNormal(centres.data() + c * rank, rank);
    normalise(centres.data() + c * rank, rank);
  }
  const double noiseScale = spread / std::sqrt(static_cast<double>(rank));
  populationFeatures_.resize(population * width_);
  std::vector<double> u(rank);
  for (std::size_t i = 0; i < population; ++i) {
    const std::size_t c = static_cast<std::size_t>(random_.uniformInt(clusters));
    random_.fillNormal(u.data(), rank);
    for (std::size_t a = 0; a < rank; ++a) u[a] = centres[c * rank + a] + noiseScale * u[a];
    normalise(u.data(), rank);
    double* x = populationFeatures_.data() + i * width_;
    for (std::size_t a = 0; a < rank; ++a) x[a] = u[a] * inverseSqrt2;
    x[rank] = inverseSqrt2;
  }
  // theta*_j = (w_j, 1) / (2 sqrt 2): theta*_j^T x = (u^T w_j + 1) / 4 in [0, 1/2].
  promotionParameters_.resize(promotions_ * width_);
  for (std::size_t j = 0; j < promotions_; ++j) {
    double* w = promotionParameters_.data() + j * width_;
    random_.fillNormal(w, rank);
    normalise(w, rank);
    for (std::size_t a = 0; a < rank; ++a) w[a] *= inverseSqrt2 / 2.0;
    w[rank] = inverseSqrt2 / 2.0;
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
