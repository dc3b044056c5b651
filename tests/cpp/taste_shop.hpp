#pragma once

// What the population evaluation tests generate: a catalogue of items with features drawn uniformly
// in a range, and users with tastes drawn uniformly in another, from one seeded stream. Each test
// adds its own click model on top.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "sublinear/core/random.hpp"
#include "sublinear/linear/catalogue.hpp"

namespace sublinear::testing {

struct TasteShop {
  std::shared_ptr<Catalogue> catalogue;
  std::vector<Id> items;
  std::vector<std::vector<double>> features;
  std::vector<std::vector<double>> tastes;
  Random random;

  // Items 0 to itemCount - 1 of dimension dim over an exact index, features in [featureLow,
  // featureHigh), then userCount tastes in [tasteLow, tasteHigh).
  TasteShop(int dim, std::size_t itemCount, std::size_t userCount, std::uint64_t seed, double featureLow, double featureHigh,
            double tasteLow, double tasteHigh)
      : random(seed) {
    catalogue = std::make_shared<Catalogue>(Json{{"dim", dim}, {"index", Json{{"type", "exact"}}}, {"seed", 5}});
    std::vector<double> rows;
    for (std::size_t a = 0; a < itemCount; ++a) {
      items.push_back(static_cast<Id>(a));
      features.emplace_back();
      for (int j = 0; j < dim; ++j) {
        features.back().push_back(random.uniform(featureLow, featureHigh));
        rows.push_back(features.back().back());
      }
    }
    catalogue->add(items.data(), items.size(), rows.data(), rows.size(), nullptr, 0);
    for (std::size_t u = 0; u < userCount; ++u) {
      tastes.emplace_back();
      for (int j = 0; j < dim; ++j) tastes.back().push_back(random.uniform(tasteLow, tasteHigh));
    }
  }

  // The inner product of item `item`'s features and user `user`'s taste.
  double score(std::size_t user, Id item) const {
    double sum = 0.0;
    for (std::size_t j = 0; j < tastes[user].size(); ++j) sum += features[item][j] * tastes[user][j];
    return sum;
  }
};

}  // namespace sublinear::testing
