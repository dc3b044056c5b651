#include "sublinear/mips/top_k.hpp"

#include <algorithm>

namespace sublinear {

std::vector<std::pair<float, Id>> TopK::take() {
  std::vector<std::pair<float, Id>> result;
  result.reserve(heap_.size());
  while (!heap_.empty()) {
    result.push_back(heap_.top());
    heap_.pop();
  }
  std::reverse(result.begin(), result.end());
  return result;
}

}  // namespace sublinear
