#include "sublinear/matroid/uniform_matroid.hpp"

#include <string>

#include "sublinear/core/state_codec.hpp"
#include "sublinear/core/error.hpp"

namespace sublinear {

namespace {
// Appendix C: the size of the held set is all a uniform matroid needs (T_member = O(1)).
class UniformOracle : public IndependenceOracle {
 public:
  explicit UniformOracle(std::size_t rank) : rank_(rank) {}
  bool canAdd(Id) override { return size_ < rank_; }
  void add(Id) override { ++size_; }
  void clear() override { size_ = 0; }
  std::size_t size() const override { return size_; }

 private:
  std::size_t rank_;
  std::size_t size_ = 0;
};
}  // namespace

UniformMatroid::UniformMatroid(std::size_t groundSetSize, std::size_t rank) : groundSetSize_(groundSetSize), rank_(rank) {
  if (groundSetSize < 1 || groundSetSize > 0xffffffffULL) fail(ErrorCode::InvalidArgument, "a uniform matroid needs K in [1, 2^32-1]");
  if (rank < 1 || rank > groundSetSize) {
    fail(ErrorCode::InvalidArgument, "a uniform matroid's rank D must be in [1, K] = [1, " + std::to_string(groundSetSize) + "], got " + std::to_string(rank));
  }
}

std::unique_ptr<IndependenceOracle> UniformMatroid::makeOracle() const { return std::make_unique<UniformOracle>(rank_); }

void UniformMatroid::save(StateWriter& out) const {
  out.string(kind());
  out.u64(groundSetSize_);
  out.u64(rank_);
}

}  // namespace sublinear
