// `sublinear-native linear-replay <file.json>`: file { dim, options (a makeLinearPolicy spec), ids,
// features, thetaStar, steps }; plays `steps` rounds with the noise-free reward x^T theta* and prints
// the chosen ids, then theta^ (%.17g), then the saved state (toBytes() of { type, dim, ...options })
// in hex — the native side of the wasm-vs-native policy test. The state holds every maintained
// number bit for bit (the kept widths among them), so equal states mean equal arithmetic.
#include <cstdio>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <vector>

#include "native_commands.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"

namespace sublinear::tools {

int linearReplay(const char* path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  const sublinear::Json input = sublinear::parseJson(text.str());
  const int dim = input.at("dim").get<int>();
  sublinear::Json spec = input.at("options");
  spec["dim"] = dim;
  sublinear::PersistentLinearPolicy policy(spec);
  const auto ids = input.at("ids").get<std::vector<sublinear::Id>>();
  const auto features = input.at("features").get<std::vector<double>>();
  const auto thetaStar = input.at("thetaStar").get<std::vector<double>>();
  policy->addArms(ids.data(), ids.size(), features.data(), features.size());
  const long steps = input.at("steps").get<long>();
  for (long t = 0; t < steps; ++t) {
    const sublinear::Id arm = policy->select();
    std::size_t row = 0;
    while (ids[row] != arm) ++row;
    // The same summation order as the JavaScript side, so both compute the same reward bits.
    double reward = 0.0;
    for (int j = 0; j < dim; ++j) reward += features[row * static_cast<std::size_t>(dim) + static_cast<std::size_t>(j)] * thetaStar[static_cast<std::size_t>(j)];
    policy->update(arm, reward);
    std::printf("%s%u", t == 0 ? "" : ",", arm);
  }
  std::printf("\n");
  const sublinear::Vector theta = policy->theta();
  for (int j = 0; j < theta.size(); ++j) std::printf("%s%.17g", j == 0 ? "" : ",", theta[j]);
  std::printf("\n");
  for (const std::uint8_t byte : policy.toBytes()) std::printf("%02x", byte);
  std::printf("\n");
  return 0;
}

}  // namespace sublinear::tools
