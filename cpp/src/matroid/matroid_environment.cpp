#include "sublinear/matroid/matroid_environment.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "sublinear/core/error.hpp"
#include "sublinear/core/limits.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/matroid/graphic_matroid.hpp"
#include "sublinear/matroid/matroid_option_tables.hpp"
#include "sublinear/matroid/partition_matroid.hpp"
#include "sublinear/matroid/transversal_matroid.hpp"
#include "sublinear/matroid/uniform_matroid.hpp"

namespace sublinear {

namespace {

std::vector<std::uint32_t> readIntegers(const Json& options, const char* key) {
  const Json& value = options.at(key);
  if (!value.is_array()) fail(ErrorCode::InvalidArgument, std::string("option '") + key + "' must be an array of integers");
  std::vector<std::uint32_t> out;
  out.reserve(value.size());
  for (const Json& item : value) {
    const double number = item.is_number() ? item.get<double>() : -1.0;
    if (!(number >= 0 && number <= kMaxUint32 && std::floor(number) == number)) {
      fail(ErrorCode::InvalidArgument, std::string("option '") + key + "' must hold integers in [0, 2^32-1]");
    }
    out.push_back(static_cast<std::uint32_t>(number));
  }
  return out;
}

std::unique_ptr<Matroid> makeMatroid(const Json& spec, std::size_t k, Random& random) {
  requireObject(spec, "option 'matroid'");
  const OptionGroup& specs = option_groups::matroidSpec();
  const std::string kind = readStringOption(specs, spec, "kind", "matroid.");
  // rank and groups are bounded by K too, within their table's range.
  const auto withinK = [&](const char* name) {
    const long long value = readIntegerOption(specs, spec, name, std::min<long long>(10, k));
    requireIntegerOptionWithin(name, value, 1, static_cast<long long>(k));
    return value;
  };
  if (kind == "uniform") return std::make_unique<UniformMatroid>(k, static_cast<std::size_t>(withinK("rank")));
  if (kind == "partition") {
    std::vector<std::uint32_t> groups;
    if (isGiven(spec, "groupOfArm")) {
      groups = readIntegers(spec, "groupOfArm");
      require(groups.size() == k, ErrorCode::DimensionMismatch, "option 'groupOfArm' must hold K entries");
    } else {
      const auto count = static_cast<std::uint32_t>(withinK("groups"));
      groups.resize(k);
      for (std::size_t i = 0; i < k; ++i) groups[i] = static_cast<std::uint32_t>(i % count);
    }
    return std::make_unique<PartitionMatroid>(std::move(groups));
  }
  if (kind == "graphic") {
    const auto vertices = static_cast<std::uint32_t>(readIntegerOption(specs, spec, "vertices"));
    std::vector<std::uint32_t> edges;
    if (isGiven(spec, "edges")) {
      edges = readIntegers(spec, "edges");
      require(edges.size() == 2 * k, ErrorCode::DimensionMismatch, "option 'edges' must hold 2K endpoints (one edge per arm)");
    } else {
      edges.reserve(2 * k);
      for (std::size_t i = 0; i < k; ++i) {
        const auto u = static_cast<std::uint32_t>(random.uniformInt(vertices));
        auto v = static_cast<std::uint32_t>(random.uniformInt(vertices - 1));
        if (v >= u) ++v;
        edges.push_back(u);
        edges.push_back(v);
      }
    }
    return std::make_unique<GraphicMatroid>(vertices, std::move(edges));
  }
  if (kind == "transversal") {
    const auto right = static_cast<std::uint32_t>(readIntegerOption(specs, spec, "right"));
    std::vector<std::uint32_t> edges;
    if (isGiven(spec, "edges")) {
      edges = readIntegers(spec, "edges");
    } else {
      const auto degree = static_cast<std::size_t>(readIntegerOption(specs, spec, "degree"));
      edges.reserve(2 * k * degree);
      for (std::size_t i = 0; i < k; ++i) {
        for (std::size_t j = 0; j < degree; ++j) {
          edges.push_back(static_cast<std::uint32_t>(i));
          edges.push_back(static_cast<std::uint32_t>(random.uniformInt(right)));
        }
      }
    }
    return std::make_unique<TransversalMatroid>(k, right, edges);
  }
  // readStringOption accepted only the table's choices: a kind listed there and not built above is
  // the code's error, not the user's.
  throw std::logic_error("matroid kind '" + kind + "' is in the option table but not built");
}
}  // namespace

MatroidEnvironment::MatroidEnvironment(const Json& options, std::uint64_t fallbackSeed) {
  requireObject(options, "environment options");
  Random random(readSeed(options, fallbackSeed));
  const auto k = static_cast<std::size_t>(readIntegerOption(option_groups::matroidEnvironment(), options, "K"));
  bernoulli_ = readStringOption(option_groups::matroidEnvironment(), options, "rewards") == "bernoulli";
  if (!bernoulli_) {
    a_ = readOption(option_groups::matroidEnvironment(), options, "a");
    b_ = readOption(option_groups::matroidEnvironment(), options, "b");
    require(a_ < b_, ErrorCode::InvalidArgument, "options 'a' and 'b' must satisfy a < b");
  }
  matroid_ = makeMatroid(options.is_object() && options.contains("matroid") ? options.at("matroid") : Json::object(), k, random);
  require(matroid_->rank() >= 1, ErrorCode::InvalidArgument, "the environment's matroid has rank 0");
  if (isGiven(options, "means")) {
    const Json& given = options.at("means");
    require(given.is_array() && given.size() == k, ErrorCode::DimensionMismatch, "option 'means' must hold K numbers");
    for (const Json& mean : given) {
      require(mean.is_number(), ErrorCode::InvalidArgument, "option 'means' must hold numbers");
      const double value = mean.get<double>();
      require(std::isfinite(value) && value >= a_ && value <= b_, ErrorCode::InvalidArgument, "every mean must lie in [a, b]");
      means_.push_back(value);
    }
  } else {
    means_.resize(k);
    for (auto& mean : means_) mean = random.uniform(a_, b_);
  }
  optimalValue_ = expectedValue(matroid_->maxWeightBasis(means_.data(), means_.size()));
  if (isGiven(options, "drift")) {
    const Json& drift = options.at("drift");
    require(drift.is_object(), ErrorCode::InvalidArgument, "option 'drift' must be an object { kind, every }");
    readStringOption(option_groups::matroidDrift(), drift, "kind", "drift.");
    driftEvery_ = readIntegerOption(option_groups::matroidDrift(), drift, "every");
  }
}

void MatroidEnvironment::atRound(std::int64_t round) {
  if (driftEvery_ == 0) return;
  const bool turned = ((round - 1) / driftEvery_) % 2 == 1;
  if (turned != turnedOver_) turnOver();
}

void MatroidEnvironment::turnOver() {
  for (double& mean : means_) mean = a_ + b_ - mean;
  optimalValue_ = expectedValue(matroid_->maxWeightBasis(means_.data(), means_.size()));
  turnedOver_ = !turnedOver_;
}

double MatroidEnvironment::expectedValue(const std::vector<Id>& basis) const {
  double total = 0.0;
  for (const Id arm : basis) total += means_[arm];
  return total;
}

double MatroidEnvironment::draw(Id arm, Random& random) const {
  const double mean = means_[arm];
  if (bernoulli_) return random.bernoulli(mean) ? 1.0 : 0.0;
  const double radius = std::min(mean - a_, b_ - mean);
  return std::min(b_, std::max(a_, mean + radius * (2.0 * random.uniform() - 1.0)));
}

}  // namespace sublinear
