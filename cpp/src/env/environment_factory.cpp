#include "sublinear/env/environment_factory.hpp"

#include <mutex>

#include "sublinear/core/error.hpp"
#include "sublinear/core/type_registry.hpp"
#include "sublinear/env/gaussian_linear_environment.hpp"
#include "sublinear/env/ratings_environment.hpp"

namespace sublinear {

namespace {
constexpr std::uint64_t kInstancePurpose = 1;
constexpr std::uint64_t kNoisePurpose = 2;

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t hash = 1469598103934665603ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return hash;
}

// The last factorised ratings model: the runs of one simulate() call (one per seed, i.e. per
// held-out user) share it instead of parsing and factorising the same file again.
std::shared_ptr<const RatingsModel> ratingsModel(const Json& options, std::uint64_t instanceSeed) {
  static std::mutex mutex;
  static std::string cachedKey;
  static std::shared_ptr<const RatingsModel> cached;
  require(options.contains("ratings") && options["ratings"].is_string(), ErrorCode::InvalidArgument,
          "environment 'ratings' needs option 'ratings': the contents of a MovieLens ratings file");
  const std::string& text = options["ratings"].get_ref<const std::string&>();
  Json modelOptions = Json::object();
  for (const char* key : {"dim", "iterations", "lambda", "testUsers", "minRatings", "user"}) {
    if (options.contains(key)) modelOptions[key] = options[key];
  }
  const std::string key = std::to_string(fnv1a(text)) + ":" + std::to_string(text.size()) + ":" +
                          std::to_string(instanceSeed) + ":" + modelOptions.dump();
  std::lock_guard<std::mutex> lock(mutex);
  if (cached && cachedKey == key) return cached;
  cached.reset();
  auto model = std::make_shared<const RatingsModel>(text, modelOptions, instanceSeed);
  cachedKey = key;
  cached = model;
  return model;
}
}  // namespace

std::uint64_t deriveSeed(std::uint64_t seed, std::uint64_t purpose) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (purpose + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

namespace {
// The linear-family environments, one entry a type (its options are the "environment" table of
// that type).
struct LinearEnvironmentType {
  std::string type;
  std::unique_ptr<LinearEnvironment> (*make)(const Json& options, std::int64_t horizon, std::uint64_t runSeed, bool seeded);
};

const TypeRegistry<LinearEnvironmentType>& linearEnvironments() {
  static const TypeRegistry<LinearEnvironmentType> registry("environment", "unknown linear environment type", {
      {"linear",
       [](const Json& options, std::int64_t, std::uint64_t runSeed, bool seeded) -> std::unique_ptr<LinearEnvironment> {
         const std::uint64_t instanceSeed = seeded ? readSeed(options) : deriveSeed(runSeed, kInstancePurpose);
         return std::make_unique<GaussianLinearEnvironment>(options, instanceSeed,
                                                            deriveSeed(instanceSeed ^ deriveSeed(runSeed, 0), kNoisePurpose));
       }},
      {"ratings",
       [](const Json& options, std::int64_t horizon, std::uint64_t runSeed, bool seeded) -> std::unique_ptr<LinearEnvironment> {
         const std::uint64_t instanceSeed = seeded ? readSeed(options) : 0;
         return std::make_unique<RatingsEnvironment>(ratingsModel(options, instanceSeed), options, horizon, instanceSeed, runSeed);
       }},
  });
  return registry;
}
}  // namespace

std::unique_ptr<LinearEnvironment> makeLinearEnvironment(const Json& options, std::int64_t horizon, std::uint64_t runSeed) {
  requireObject(options, "environment");
  require(options.is_object() && options.contains("type"), ErrorCode::InvalidArgument,
          "environment option 'type' is required");
  const std::string type = readString(options, "type", "");
  const bool seeded = options.contains("seed") && !options["seed"].is_null();
  return linearEnvironments().at(type).make(options, horizon, runSeed, seeded);
}

std::vector<std::string> linearEnvironmentTypes() { return linearEnvironments().types(); }

}  // namespace sublinear
