#pragma once

// A MovieLens-format ratings file the tests generate (no real data can be downloaded here).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "sublinear/core/random.hpp"
#include "sublinear/env/ratings_table.hpp"

namespace sublinear::testing {

// A planted rank-`rank` model: rating = clamp(round(3 + <u, v> + noise), 1, 5), observed with
// probability `density`; movie m is first seen at time 1000 * m + something, so arrival order is by id.
struct Planted {
  std::string text;
  std::vector<Rating> ratings;
};

inline Planted plantedRatings(int users, int movies, int rank, double density, bool tabs, std::uint64_t seed) {
  Random random(seed);
  std::vector<double> u(static_cast<std::size_t>(users * rank));
  std::vector<double> v(static_cast<std::size_t>(movies * rank));
  for (double& x : u) x = random.normal() * 0.8;
  for (double& x : v) x = random.normal() * 0.8;
  Planted planted;
  for (int i = 0; i < users; ++i) {
    for (int m = 0; m < movies; ++m) {
      if (random.uniform() >= density) continue;
      double score = 3.0;
      for (int r = 0; r < rank; ++r) score += u[static_cast<std::size_t>(i * rank + r)] * v[static_cast<std::size_t>(m * rank + r)];
      score += 0.3 * random.normal();
      const double rating = std::min(5.0, std::max(1.0, std::round(score)));
      const std::int64_t time = 1000 * (movies - m) + static_cast<std::int64_t>(random.uniformInt(900));
      planted.ratings.push_back({static_cast<std::uint32_t>(i + 1), static_cast<std::uint32_t>(m + 1), rating, time});
      const std::string line = tabs ? std::to_string(i + 1) + "\t" + std::to_string(m + 1) + "\t" + std::to_string(static_cast<int>(rating)) + "\t" + std::to_string(time)
                                    : std::to_string(i + 1) + "::" + std::to_string(m + 1) + "::" + std::to_string(static_cast<int>(rating)) + "::" + std::to_string(time);
      planted.text += line + "\n";
    }
  }
  return planted;
}

}  // namespace sublinear::testing
