#include "sublinear/cls/clustered_environment.hpp"

#include <cmath>

#include "sublinear/cls/cls_option_tables.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"

namespace sublinear {

namespace {

// cos and sin on [0, pi/2] by their Taylor series in plain IEEE arithmetic: libm's last bits differ
// between glibc and musl, and a seed must mean the same features everywhere.
void cosSin(double angle, double* cosine, double* sine) {
  double c = 0.0, s = 0.0;
  double term = 1.0;  // angle^n / n!
  for (int n = 0; n < 40; ++n) {
    switch (n % 4) {
      case 0: c += term; break;
      case 1: s += term; break;
      case 2: c -= term; break;
      default: s -= term; break;
    }
    term = term * angle / static_cast<double>(n + 1);
  }
  *cosine = c;
  *sine = s;
}

Vector unitGaussian(Random& random, std::size_t dim) {
  Vector v(static_cast<Eigen::Index>(dim));
  random.fillNormal(v.data(), dim);
  const double norm = std::sqrt(v.squaredNorm());
  return norm > 0.0 ? Vector(v / norm) : v;
}
}  // namespace

ClusteredEnvironment::ClusteredEnvironment(const Json& options, std::uint64_t seed)
    : dim_(static_cast<std::size_t>(readIntegerOption(option_groups::clusteredEnvironment(), options, "dim"))),
      random_(readSeed(options, seed)) {
  const auto arms = static_cast<std::size_t>(readIntegerOption(option_groups::clusteredEnvironment(), options, "arms"));
  const auto k = static_cast<std::size_t>(readIntegerOption(option_groups::clusteredEnvironment(), options, "k"));
  requireIntegerOptionWithin("k", static_cast<long long>(k), 1, static_cast<long long>(arms));
  const double angle = readOption(option_groups::clusteredEnvironment(), options, "angle");
  const double jitter = readOption(option_groups::clusteredEnvironment(), options, "jitter");
  double cosine = 0.0, sine = 0.0;
  cosSin(angle, &cosine, &sine);
  thetaStar_ = unitGaussian(random_, dim_);
  features_.assign(arms * dim_, 0.0);
  means_.resize(arms);
  Vector noise(static_cast<Eigen::Index>(dim_));
  for (std::size_t row = 0; row < arms; ++row) {
    double* x = features_.data() + row * dim_;
    x[0] = cosine;
    x[1 + static_cast<std::size_t>(static_cast<std::uint64_t>(row) * (dim_ - 1) / arms)] = sine;
    if (jitter > 0.0) {
      random_.fillNormal(noise.data(), dim_);
      double squared = 0.0;
      for (std::size_t j = 0; j < dim_; ++j) {
        x[j] += jitter * noise[static_cast<Eigen::Index>(j)];
        squared += x[j] * x[j];
      }
      const double norm = std::sqrt(squared);
      for (std::size_t j = 0; j < dim_; ++j) x[j] /= norm;
    }
    double mean = 0.0;
    for (std::size_t j = 0; j < dim_; ++j) mean += thetaStar_[static_cast<Eigen::Index>(j)] * x[j];
    means_[row] = mean;
  }
  constraint_.k = k;
  if (isGiven(options, "drift")) {
    const Json& drift = options.at("drift");
    require(drift.is_object(), ErrorCode::InvalidArgument, "option 'drift' must be an object { kind, every }");
    readStringOption(option_groups::clsDrift(), drift, "kind", "drift.");
    driftEvery_ = readIntegerOption(option_groups::clsDrift(), drift, "every");
  }
}

void ClusteredEnvironment::beginRound() {
  ++round_;
  // Round t (from 1) of an odd block of `every` rounds is turned: a switch at t = every + 1, 2 every + 1, ...
  if (driftEvery_ == 0 || round_ == 1 || (round_ - 1) % driftEvery_ != 0) return;
  thetaStar_ = -thetaStar_;
  for (double& mean : means_) mean = -mean;
  ++switches_;
}

double ClusteredEnvironment::drawReward(Id row) {
  // P(+1) = (1 + mean) / 2 gives E[r] = mean; |mean| <= ||theta*|| ||x|| = 1.
  return random_.bernoulli((1.0 + means_[row]) / 2.0) ? 1.0 : -1.0;
}

}  // namespace sublinear
