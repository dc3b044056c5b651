#pragma once

// What the population evaluation tests generate: a catalogue of items with features drawn uniformly
// in a range, and users with tastes drawn uniformly in another, from one seeded stream. Each test
// adds its own click model on top.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "sublinear/core/random.hpp"
#include "sublinear/eval/decision_log.hpp"
#include "sublinear/linear/catalogue.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"

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

// A log of decisions and the user each was made for.
struct UsersLog {
  DecisionLog log;
  std::vector<Id> users;
};

// `records` decisions per user of a logger that plays arm 0 with probability `favourite` and the
// others uniformly (a logger that prefers one arm whatever the user: non-uniform propensities);
// the shop's `clickRate(user, arm)` draws the clicks.
template <class Shop>
UsersLog favouriteLoggerLog(Shop& shop, std::size_t records, double favourite) {
  UsersLog logged;
  const std::size_t k = shop.items.size();
  for (std::size_t u = 0; u < shop.tastes.size(); ++u) {
    for (std::size_t t = 0; t < records; ++t) {
      const Id arm = shop.random.bernoulli(favourite) ? 0 : static_cast<Id>(1 + shop.random.uniformInt(k - 1));
      logged.log.arms.push_back(arm);
      logged.log.propensities.push_back(arm == 0 ? favourite : (1.0 - favourite) / static_cast<double>(k - 1));
      logged.log.rewards.push_back(shop.random.bernoulli(shop.clickRate(u, arm)) ? 1.0 : 0.0);
      logged.users.push_back(static_cast<Id>(u));
    }
  }
  return logged;
}

// Each user's LinUCB after `pulls` uniformly random pulls of its own (not a log's records), saved.
template <class Shop>
std::unordered_map<Id, std::vector<std::uint8_t>> trainedLinUcbStates(Shop& shop, int pulls) {
  std::unordered_map<Id, std::vector<std::uint8_t>> states;
  for (std::size_t u = 0; u < shop.tastes.size(); ++u) {
    PersistentLinearPolicy user(Json{{"type", "lin-ucb"}}, shop.catalogue);
    for (int t = 0; t < pulls; ++t) {
      const Id arm = shop.items[shop.random.uniformInt(shop.items.size())];
      user->update(arm, shop.random.bernoulli(shop.clickRate(u, arm)) ? 1.0 : 0.0);
    }
    states[static_cast<Id>(u)] = user.toBytes();
  }
  return states;
}

}  // namespace sublinear::testing
