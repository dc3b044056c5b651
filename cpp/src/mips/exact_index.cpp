#include "sublinear/mips/exact_index.hpp"

namespace sublinear {

std::vector<Id> ExactIndex::candidates(const float* paddedQuery, std::size_t count) { return scan(paddedQuery, count); }

}  // namespace sublinear
