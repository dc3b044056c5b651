// Issue 31's claim at small scale: many users over one catalogue, served in turn, each learn their
// own taste as a Linear TS with its own copy of the arms would. A LinTS user over the catalogue makes
// exactly the own copy's choices, step for step, while other users search the same shared graph
// between its steps; a SubTS user (over the shared graph) stays within 10% of the own copy's regret,
// mean over 5 users x 5 seeds with the same tastes and noise.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/core/random.hpp"
#include "sublinear/linear/catalogue.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"

namespace sublinear::testing {
namespace catalogue_many_users_test {

struct Arms {
  int dim;
  std::vector<Id> ids;
  std::vector<double> features;
  const double* row(Id id) const { return features.data() + static_cast<std::size_t>(id) * static_cast<std::size_t>(dim); }
};

Arms gaussianArms(std::size_t count, int dim, std::uint64_t seed) {
  Random random(seed);
  Arms arms{dim, {}, std::vector<double>(count * static_cast<std::size_t>(dim))};
  for (std::size_t i = 0; i < count; ++i) arms.ids.push_back(static_cast<Id>(i));
  for (double& value : arms.features) value = random.normal();
  return arms;
}

// Unit-norm tastes, one per user.
std::vector<std::vector<double>> tastes(std::size_t users, int dim, std::uint64_t seed) {
  Random random(seed);
  std::vector<std::vector<double>> out(users, std::vector<double>(static_cast<std::size_t>(dim)));
  for (auto& theta : out) {
    double norm = 0.0;
    for (double& value : theta) {
      value = random.normal();
      norm += value * value;
    }
    for (double& value : theta) value /= std::sqrt(norm);
  }
  return out;
}

double meanOf(const Arms& arms, Id arm, const std::vector<double>& theta) {
  const double* x = arms.row(arm);
  double sum = 0.0;
  for (int j = 0; j < arms.dim; ++j) sum += x[j] * theta[static_cast<std::size_t>(j)];
  return sum;
}

std::shared_ptr<Catalogue> builtCatalogue(const Arms& arms) {
  auto catalogue = std::make_shared<Catalogue>(Json{{"dim", arms.dim}, {"seed", 3}});  // the default graph
  catalogue->add(arms.ids.data(), arms.ids.size(), arms.features.data(), arms.features.size());
  catalogue->build(arms.ids.size());
  return catalogue;
}

Json spec(const std::string& type, std::uint64_t seed) { return Json{{"type", type}, {"seed", seed}, {"horizon", 4000}}; }

TEST(CatalogueManyUsers, ALinTSUserAmongManyMakesItsOwnCopysChoicesStepForStep) {
  constexpr int kDim = 8;
  constexpr std::size_t kUsers = 12;
  constexpr std::size_t kWatched = 4;  // users 0..3 have an own-copy twin; the others are SubTS users
  constexpr int kRounds = 150;
  const Arms arms = gaussianArms(3000, kDim, 21);
  auto catalogue = builtCatalogue(arms);
  const auto theta = tastes(kUsers, kDim, 22);
  std::vector<std::unique_ptr<PersistentLinearPolicy>> users;
  std::vector<std::unique_ptr<PersistentLinearPolicy>> twins;
  for (std::size_t u = 0; u < kUsers; ++u) {
    users.push_back(std::make_unique<PersistentLinearPolicy>(spec(u < kWatched ? "lin-ts" : "sub-ts", 50 + u), catalogue));
    if (u < kWatched) {
      Json own = spec("lin-ts", 50 + u);
      own["dim"] = kDim;
      twins.push_back(std::make_unique<PersistentLinearPolicy>(own));
      (*twins.back())->addArms(arms.ids.data(), arms.ids.size(), arms.features.data(), arms.features.size());
    }
  }
  Random noise(23);
  for (int round = 0; round < kRounds; ++round) {
    for (std::size_t u = 0; u < kUsers; ++u) {
      const Id arm = (*users[u])->select();
      const double reward = meanOf(arms, arm, theta[u]) + noise.normal();
      if (u < kWatched) {
        ASSERT_EQ((*twins[u])->select(), arm) << "user " << u << ", round " << round;
        (*twins[u])->update(arm, reward);
      }
      (*users[u])->update(arm, reward);
    }
  }
  for (std::size_t u = 0; u < kWatched; ++u) EXPECT_EQ((*users[u])->theta(), (*twins[u])->theta()) << "user " << u;
}

TEST(CatalogueManyUsers, SubTSUsersOverTheSharedGraphHaveTheRegretOfAnOwnCopyLinTS) {
  // Enough arms that Sub-TS searches the graph rather than scanning (its crossover), few dimensions
  // so that the own copies stay quick.
  constexpr int kDim = 8;
  constexpr std::size_t kUsers = 5;
  constexpr int kSeeds = 5;
  constexpr int kHorizon = 300;
  const Arms arms = gaussianArms(60000, kDim, 31);
  auto catalogue = builtCatalogue(arms);
  const auto theta = tastes(kUsers, kDim, 32);
  double ownTotal = 0.0;
  double catalogueTotal = 0.0;
  Json lastUser;
  for (std::size_t u = 0; u < kUsers; ++u) {
    double best = -INFINITY;
    std::vector<double> means(arms.ids.size());
    for (const Id id : arms.ids) best = std::max(best, means[id] = meanOf(arms, id, theta[u]));
    for (int seed = 1; seed <= kSeeds; ++seed) {
      const std::uint64_t policySeed = 100 * static_cast<std::uint64_t>(seed) + u;
      Json ownSpec = spec("lin-ts", policySeed);
      ownSpec["dim"] = kDim;
      PersistentLinearPolicy own(ownSpec);
      own->addArms(arms.ids.data(), arms.ids.size(), arms.features.data(), arms.features.size());
      PersistentLinearPolicy user(spec("sub-ts", policySeed), catalogue);
      for (auto* policy : {&own, &user}) {
        Random noise(1000 * u + static_cast<std::uint64_t>(seed));
        double regret = 0.0;
        for (int t = 0; t < kHorizon; ++t) {
          const Id arm = (*policy)->select();
          (*policy)->update(arm, means[arm] + noise.normal());
          regret += best - means[arm];
        }
        (policy == &own ? ownTotal : catalogueTotal) += regret;
      }
      lastUser = user->stats();
    }
  }
  const double runs = static_cast<double>(kUsers * kSeeds);
  std::printf("  K = 60,000, d = 8, T = %d, %zu users x %d seeds: own-copy LinTS regret %.1f, SubTS over the catalogue %.1f (x%.3f)\n",
              kHorizon, kUsers, kSeeds, ownTotal / runs, catalogueTotal / runs, catalogueTotal / ownTotal);
  // The users searched the graph: a small share of the inner products of a scan per selection.
  const double perSelection = lastUser["indexInnerProducts"].get<double>() / kHorizon;
  std::printf("  a SubTS user's inner products per selection: %.0f of %zu arms\n", perSelection, arms.ids.size());
  EXPECT_LT(perSelection, 0.1 * static_cast<double>(arms.ids.size()));
  EXPECT_LE(catalogueTotal, 1.10 * ownTotal);
  EXPECT_GE(catalogueTotal, 0.90 * ownTotal);
}

}  // namespace catalogue_many_users_test
}  // namespace sublinear::testing
