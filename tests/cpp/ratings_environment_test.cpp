#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "sublinear/core/error.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/env/alternating_least_squares.hpp"
#include "sublinear/env/environment_factory.hpp"
#include "sublinear/env/ratings_environment.hpp"
#include "sublinear/env/ratings_table.hpp"
#include "planted_ratings.hpp"
#include "test_support.hpp"

using sublinear::testing::expectError;

using namespace sublinear;
using sublinear::testing::Planted;
using sublinear::testing::plantedRatings;


TEST(RatingsTable, ParsesBothMovieLensFormatsMixed) {
  const std::string text = "1::10::5::978300760\r\n\n2\t20\t3\t881250949\n  \n3 30 4.5 100\n1::10::2::978300761\n";
  const RatingsTable table = RatingsTable::parse(text);
  ASSERT_EQ(table.size(), 3u);  // the second (1, 10) line replaces the first
  EXPECT_EQ(table.ratings()[0].user, 1u);
  EXPECT_EQ(table.ratings()[0].item, 10u);
  EXPECT_EQ(table.ratings()[0].value, 2.0);
  EXPECT_EQ(table.ratings()[0].time, 978300761);
  EXPECT_EQ(table.ratings()[1].user, 2u);
  EXPECT_EQ(table.ratings()[1].item, 20u);
  EXPECT_EQ(table.ratings()[1].value, 3.0);
  EXPECT_EQ(table.ratings()[2].value, 4.5);
  const Planted planted = plantedRatings(5, 7, 2, 0.6, true, 1);
  const RatingsTable fromTabs = RatingsTable::parse(planted.text);
  const RatingsTable fromColons = RatingsTable::parse(plantedRatings(5, 7, 2, 0.6, false, 1).text);
  ASSERT_EQ(fromTabs.size(), planted.ratings.size());
  ASSERT_EQ(fromColons.size(), planted.ratings.size());
  for (std::size_t i = 0; i < fromTabs.size(); ++i) {
    EXPECT_EQ(fromTabs.ratings()[i].value, planted.ratings[i].value);
    EXPECT_EQ(fromColons.ratings()[i].time, planted.ratings[i].time);
  }
}

TEST(RatingsTable, AMalformedLineIsAnInvalidArgumentNamingItsLineNumber) {
  expectError(ErrorCode::InvalidArgument, "ratings line 3", [] { RatingsTable::parse("1::2::3::4\n1::3::4::5\n1::2::3\n"); });
  expectError(ErrorCode::InvalidArgument, "ratings line 2", [] { RatingsTable::parse("1\t2\t3\t4\n1\t2\tfive\t4\n"); });
  expectError(ErrorCode::InvalidArgument, "ratings line 1", [] { RatingsTable::parse("-1::2::3::4\n"); });
  expectError(ErrorCode::InvalidArgument, "ratings line 4", [] { RatingsTable::parse("\n\n1 2 3 4\n1 2 3 4 5\n"); });
  expectError(ErrorCode::InvalidArgument, "ratings line 1", [] { RatingsTable::parse("user,item,rating,time\n"); });
  expectError(ErrorCode::InvalidArgument, "user", [] { RatingsTable::parse("4294967296::1::3::4\n"); });
  expectError(ErrorCode::InvalidArgument, "no ratings", [] { RatingsTable::parse("\n \n"); });
}

TEST(AlternatingLeastSquares, RecoversAPlantedLowRankModel) {
  const Planted planted = plantedRatings(300, 200, 3, 0.25, false, 7);
  Random split(3);
  std::vector<AlternatingLeastSquares::Entry> train;
  std::vector<AlternatingLeastSquares::Entry> test;
  for (const Rating& rating : planted.ratings) {
    (split.uniform() < 0.9 ? train : test).push_back({rating.user - 1, rating.item - 1, rating.value});
  }
  // Rank 4: the planted rank 3 plus the constant offset (ALS has no bias terms).
  AlternatingLeastSquares als(4, 15, 0.05);
  Random random(1);
  als.fit(train, 300, 200, random);
  double mean = 0.0;
  for (const auto& entry : train) mean += entry.value;
  mean /= static_cast<double>(train.size());
  double alsSquares = 0.0;
  double meanSquares = 0.0;
  for (const auto& entry : test) {
    alsSquares += std::pow(entry.value - als.predict(entry.row, entry.column), 2);
    meanSquares += std::pow(entry.value - mean, 2);
  }
  const double alsRmse = std::sqrt(alsSquares / static_cast<double>(test.size()));
  const double meanRmse = std::sqrt(meanSquares / static_cast<double>(test.size()));
  EXPECT_LT(alsRmse, 0.6 * meanRmse) << "ALS " << alsRmse << " vs mean predictor " << meanRmse;
}

TEST(RatingsEnvironment, FollowsThePapersMovieProtocol) {
  const int users = 60;
  const int movies = 80;
  const Planted planted = plantedRatings(users, movies, 2, 0.5, false, 9);
  const Json options = {{"type", "ratings"}, {"ratings", planted.text}, {"dim", 4}, {"iterations", 4},
                        {"testUsers", 5}, {"minRatings", 30}, {"change", {{"every", 10}, {"add", 2}}}};
  const std::int64_t horizon = 200;  // 20 changes of 2 movies: 40 arrive, 40 are there at the start
  auto first = makeLinearEnvironment(options, horizon, 0);
  auto* environment = dynamic_cast<RatingsEnvironment*>(first.get());
  ASSERT_NE(environment, nullptr);
  const Json description = environment->describe();
  EXPECT_EQ(description["heldOutUsers"], 5);
  EXPECT_EQ(description["initialArms"], 40);
  EXPECT_EQ(environment->dim(), 4);

  // The held-out users are the 5 runs' users, have > 30 ratings, and are out of the training set.
  std::map<std::uint32_t, std::size_t> countOf;
  for (const Rating& rating : planted.ratings) ++countOf[rating.user];
  std::set<std::uint32_t> heldOut;
  std::size_t heldOutRatings = 0;
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    auto run = makeLinearEnvironment(options, horizon, seed);
    const auto user = dynamic_cast<RatingsEnvironment&>(*run).user();
    EXPECT_GT(countOf[user], 30u);
    if (heldOut.insert(user).second) heldOutRatings += countOf[user];
  }
  EXPECT_EQ(heldOut.size(), 5u);
  EXPECT_EQ(description["trainingRatings"], planted.ratings.size() - heldOutRatings);

  // Movies arrive by first rating time: the planted times put movie m before m - 1.
  std::vector<std::uint32_t> present(environment->arms().ids().begin(), environment->arms().ids().end());
  std::sort(present.begin(), present.end());
  for (std::size_t i = 0; i < present.size(); ++i) EXPECT_EQ(present[i], static_cast<std::uint32_t>(movies - 39 + i));
  const ArmChange change = environment->changeAfterRound(10);
  EXPECT_EQ(change.added, (std::vector<Id>{40, 39}));
  EXPECT_TRUE(environment->changeAfterRound(11).empty());

  // Reward 1 exactly for movies the user rated >= 4; the paper's regret is 1 - reward.
  std::map<std::uint32_t, double> ratingOf;
  for (const Rating& rating : planted.ratings) {
    if (rating.user == environment->user()) ratingOf[rating.item] = rating.value;
  }
  int liked = 0;
  for (Id movie : environment->arms().ids()) {
    const double expected = ratingOf.count(movie) && ratingOf[movie] >= 4 ? 1.0 : 0.0;
    liked += static_cast<int>(expected);
    EXPECT_EQ(environment->drawReward(movie), expected);
    EXPECT_EQ(environment->regret(movie), 1.0 - expected);
  }
  EXPECT_GT(liked, 0);
  Json bestOptions = options;
  bestOptions["regret"] = "best";
  auto best = makeLinearEnvironment(bestOptions, horizon, 0);
  for (Id movie : best->arms().ids()) EXPECT_EQ(best->regret(movie), best->arms().bestExpectedReward() - best->arms().expectedReward(movie));
}

TEST(RatingsEnvironment, RejectsMissingOrMalformedFiles) {
  expectError(ErrorCode::InvalidArgument, "'ratings'", [] { makeLinearEnvironment(Json{{"type", "ratings"}}, 10, 0); });
  expectError(ErrorCode::InvalidArgument, "ratings line 2", [] {
    makeLinearEnvironment(Json{{"type", "ratings"}, {"ratings", "1::2::3::4\n1::2::3\n"}}, 10, 0);
  });
  expectError(ErrorCode::InvalidArgument, "minRatings", [] {
    makeLinearEnvironment(Json{{"type", "ratings"}, {"ratings", "1::2::3::4\n1::3::3::4\n"}}, 10, 0);
  });
  expectError(ErrorCode::InvalidArgument, "'regret'", [] {
    makeLinearEnvironment(Json{{"type", "ratings"}, {"ratings", "1::2::3::4\n2::3::3::4\n"}, {"minRatings", 0}, {"testUsers", 1}, {"regret", "x"}}, 10, 0);
  });
}
