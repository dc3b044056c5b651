#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sublinear {

struct Rating {
  std::uint32_t user;
  std::uint32_t item;
  double value;
  std::int64_t time;
};

// A ratings file in one of MovieLens's two line formats, mixed freely:
//   ratings.dat (ML-1M, ML-10M):  user::movie::rating::timestamp
//   u.data (ML-100K):             user<TAB>item<TAB>rating<TAB>timestamp   (any blanks separate)
// Blank lines are skipped; a line in neither format is INVALID_ARGUMENT naming its line number.
// A (user, item) pair rated twice keeps the later line.
class RatingsTable {
 public:
  static RatingsTable parse(const char* text, std::size_t length);
  static RatingsTable parse(const std::string& text) { return parse(text.data(), text.size()); }

  // Sorted by (user, item).
  const std::vector<Rating>& ratings() const { return ratings_; }
  std::size_t size() const { return ratings_.size(); }

 private:
  std::vector<Rating> ratings_;
};

}  // namespace sublinear
