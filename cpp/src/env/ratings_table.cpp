#include "sublinear/env/ratings_table.hpp"

#include <algorithm>
#include <string_view>

#include "sublinear/core/error.hpp"

namespace sublinear {

namespace {
[[noreturn]] void badLine(std::size_t lineNumber, std::string_view line, const std::string& why) {
  std::string shown(line.substr(0, 80));
  if (line.size() > 80) shown += "...";
  fail(ErrorCode::InvalidArgument, "ratings line " + std::to_string(lineNumber) + ": " + why +
                                       " (expected 'user::movie::rating::timestamp' or 'user<TAB>item<TAB>rating<TAB>timestamp'), got '" +
                                       shown + "'");
}

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Splits on "::" when the line has one, else on runs of blanks.
std::vector<std::string_view> splitFields(std::string_view line) {
  std::vector<std::string_view> fields;
  if (line.find("::") != std::string_view::npos) {
    std::size_t start = 0;
    while (true) {
      const std::size_t next = line.find("::", start);
      std::string_view field = line.substr(start, next == std::string_view::npos ? std::string_view::npos : next - start);
      while (!field.empty() && isBlank(field.front())) field.remove_prefix(1);
      while (!field.empty() && isBlank(field.back())) field.remove_suffix(1);
      fields.push_back(field);
      if (next == std::string_view::npos) break;
      start = next + 2;
    }
    return fields;
  }
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && isBlank(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !isBlank(line[i])) ++i;
    if (i > start) fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

bool parseUnsigned(std::string_view text, std::uint64_t limit, std::uint64_t& out) {
  if (text.empty() || text.size() > 19) return false;
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (value > limit) return false;
  out = value;
  return true;
}

// A plain decimal "12", "3.5" or "-1.25", evaluated with IEEE operations only (the same bits in
// every build, unlike strtod's locale and library).
bool parseDecimal(std::string_view text, double& out) {
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  const std::size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  const std::string_view fraction = dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
  if ((whole.empty() && fraction.empty()) || whole.size() > 15 || fraction.size() > 15) return false;
  double value = 0.0;
  for (char c : whole) {
    if (c < '0' || c > '9') return false;
    value = value * 10.0 + (c - '0');
  }
  double fractionValue = 0.0;
  double scale = 1.0;
  for (char c : fraction) {
    if (c < '0' || c > '9') return false;
    fractionValue = fractionValue * 10.0 + (c - '0');
    scale *= 10.0;
  }
  value += fractionValue / scale;
  out = negative ? -value : value;
  return true;
}
}  // namespace

RatingsTable RatingsTable::parse(const char* text, std::size_t length) {
  RatingsTable table;
  const std::string_view all(text, length);
  std::size_t lineNumber = 0;
  std::size_t start = 0;
  // Each rating remembers its line so that the later of two duplicate lines wins.
  std::vector<std::size_t> lineOf;
  while (start < all.size()) {
    std::size_t end = all.find('\n', start);
    if (end == std::string_view::npos) end = all.size();
    std::string_view line = all.substr(start, end - start);
    start = end + 1;
    ++lineNumber;
    if (lineNumber == 1 && line.size() >= 3 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
    if (std::all_of(line.begin(), line.end(), isBlank)) continue;
    const std::vector<std::string_view> fields = splitFields(line);
    if (fields.size() != 4) badLine(lineNumber, line, "expected 4 fields, found " + std::to_string(fields.size()));
    std::uint64_t user = 0;
    std::uint64_t item = 0;
    std::uint64_t time = 0;
    double value = 0.0;
    if (!parseUnsigned(fields[0], 0xffffffffULL, user)) badLine(lineNumber, line, "the user is not an integer in [0, 2^32-1]");
    if (!parseUnsigned(fields[1], 0xffffffffULL, item)) badLine(lineNumber, line, "the item is not an integer in [0, 2^32-1]");
    if (!parseDecimal(fields[2], value)) badLine(lineNumber, line, "the rating is not a decimal number");
    if (!parseUnsigned(fields[3], 9007199254740991ULL, time)) badLine(lineNumber, line, "the timestamp is not a non-negative integer");
    table.ratings_.push_back({static_cast<std::uint32_t>(user), static_cast<std::uint32_t>(item), value, static_cast<std::int64_t>(time)});
    lineOf.push_back(lineNumber);
  }
  require(!table.ratings_.empty(), ErrorCode::InvalidArgument, "the ratings file has no ratings");
  std::vector<std::size_t> order(table.ratings_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto& r = table.ratings_;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (r[a].user != r[b].user) return r[a].user < r[b].user;
    if (r[a].item != r[b].item) return r[a].item < r[b].item;
    return lineOf[a] < lineOf[b];
  });
  std::vector<Rating> sorted;
  sorted.reserve(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Rating& rating = r[order[i]];
    if (!sorted.empty() && sorted.back().user == rating.user && sorted.back().item == rating.item) {
      sorted.back() = rating;
    } else {
      sorted.push_back(rating);
    }
  }
  table.ratings_ = std::move(sorted);
  return table;
}

}  // namespace sublinear
