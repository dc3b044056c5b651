#include "sublinear/core/id.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace sublinear {

std::size_t firstRepeatedId(const Id* ids, std::size_t count) {
  std::vector<std::pair<Id, std::size_t>> sorted(count);
  for (std::size_t i = 0; i < count; ++i) sorted[i] = {ids[i], i};
  std::sort(sorted.begin(), sorted.end());
  // Equal ids sit together in position order: each later one of a run is a repeat.
  std::size_t first = count;
  for (std::size_t i = 1; i < count; ++i) {
    if (sorted[i].first == sorted[i - 1].first) first = std::min(first, sorted[i].second);
  }
  return first;
}

}  // namespace sublinear
