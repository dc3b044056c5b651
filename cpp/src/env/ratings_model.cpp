#include "sublinear/env/ratings_model.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/env/alternating_least_squares.hpp"
#include "sublinear/env/env_option_tables.hpp"

namespace sublinear {

RatingsModel::RatingsModel(const std::string& text, const Json& options, std::uint64_t instanceSeed)
    : table_(RatingsTable::parse(text)) {
  const int dim = static_cast<int>(readIntegerOption(option_groups::ratingsEnvironment(), options, "dim"));
  const int iterations = static_cast<int>(readIntegerOption(option_groups::ratingsEnvironment(), options, "iterations"));
  const double lambda = readOption(option_groups::ratingsEnvironment(), options, "lambda");
  const auto testUsers = static_cast<std::size_t>(readIntegerOption(option_groups::ratingsEnvironment(), options, "testUsers"));
  const auto minRatings = static_cast<std::size_t>(readIntegerOption(option_groups::ratingsEnvironment(), options, "minRatings"));
  const bool userGiven = options.is_object() && options.contains("user") && !options["user"].is_null();
  const auto chosenUser = static_cast<std::uint32_t>(readIntegerOption(option_groups::ratingsEnvironment(), options, "user", 0));

  const std::vector<Rating>& ratings = table_.ratings();
  // Users (sorted, since the table is sorted by user) with their rating counts.
  std::vector<std::uint32_t> users;
  std::vector<std::size_t> counts;
  for (const Rating& rating : ratings) {
    if (users.empty() || users.back() != rating.user) {
      users.push_back(rating.user);
      counts.push_back(0);
    }
    ++counts.back();
  }
  std::vector<std::uint32_t> eligible;
  for (std::size_t i = 0; i < users.size(); ++i) {
    if (counts[i] > minRatings) eligible.push_back(users[i]);
  }
  Random random(instanceSeed);
  random.shuffle(eligible);
  if (eligible.size() > testUsers) eligible.resize(testUsers);
  if (userGiven) {
    require(std::binary_search(users.begin(), users.end(), chosenUser), ErrorCode::InvalidArgument,
            "option 'user' names a user with no ratings in the file");
    if (std::find(eligible.begin(), eligible.end(), chosenUser) == eligible.end()) eligible.insert(eligible.begin(), chosenUser);
  }
  if (eligible.empty()) {
    fail(ErrorCode::InvalidArgument, "no user has more than minRatings = " + std::to_string(minRatings) +
                                         " ratings to hold out; lower option 'minRatings'");
  }
  heldOutUsers_ = eligible;
  std::vector<std::uint32_t> heldOutSorted = eligible;
  std::sort(heldOutSorted.begin(), heldOutSorted.end());

  // Movies in order of their first rating (every user's ratings count: a movie exists from then on).
  std::map<std::uint32_t, std::int64_t> firstTime;
  for (const Rating& rating : ratings) {
    const auto found = firstTime.find(rating.item);
    if (found == firstTime.end()) {
      firstTime.emplace(rating.item, rating.time);
    } else if (rating.time < found->second) {
      found->second = rating.time;
    }
  }
  std::vector<std::pair<std::int64_t, std::uint32_t>> arrivals;
  arrivals.reserve(firstTime.size());
  for (const auto& [item, time] : firstTime) arrivals.emplace_back(time, item);
  std::sort(arrivals.begin(), arrivals.end());
  std::map<std::uint32_t, std::uint32_t> columnOf;
  for (const auto& [time, item] : arrivals) {
    columnOf.emplace(item, static_cast<std::uint32_t>(moviesByArrival_.size()));
    moviesByArrival_.push_back(item);
  }

  // The training matrix: every rating of a user who is not held out.
  std::vector<AlternatingLeastSquares::Entry> entries;
  entries.reserve(ratings.size());
  std::uint32_t rowCount = 0;
  for (std::size_t i = 0; i < ratings.size();) {
    const std::uint32_t user = ratings[i].user;
    std::size_t end = i;
    while (end < ratings.size() && ratings[end].user == user) ++end;
    if (!std::binary_search(heldOutSorted.begin(), heldOutSorted.end(), user)) {
      for (std::size_t k = i; k < end; ++k) entries.push_back({rowCount, columnOf.at(ratings[k].item), ratings[k].value});
      ++rowCount;
    }
    i = end;
  }
  require(!entries.empty(), ErrorCode::InvalidArgument,
          "no ratings are left to factorise after holding out the test users; lower option 'testUsers'");
  trainingRatings_ = entries.size();
  AlternatingLeastSquares als(dim, iterations, lambda);
  als.fit(entries, rowCount, moviesByArrival_.size(), random);
  movieFeatures_ = als.columnFactors();
  double squared = 0.0;
  for (const auto& entry : entries) {
    const double error = entry.value - als.predict(entry.row, entry.column);
    squared += error * error;
  }
  trainingRmse_ = std::sqrt(squared / static_cast<double>(entries.size()));
}

std::vector<Rating> RatingsModel::ratingsOf(std::uint32_t user) const {
  const auto& ratings = table_.ratings();
  const auto begin = std::lower_bound(ratings.begin(), ratings.end(), user,
                                      [](const Rating& rating, std::uint32_t u) { return rating.user < u; });
  auto end = begin;
  while (end != ratings.end() && end->user == user) ++end;
  return std::vector<Rating>(begin, end);
}

}  // namespace sublinear
