#pragma once

#include "sublinear/matroid/matroid.hpp"

namespace sublinear {

// U(K, D): every set of at most D arms is independent. 1 <= D <= K (INVALID_ARGUMENT otherwise).
class UniformMatroid : public Matroid {
 public:
  UniformMatroid(std::size_t groundSetSize, std::size_t rank);

  std::string kind() const override { return "uniform"; }
  std::size_t groundSetSize() const override { return groundSetSize_; }
  std::size_t rank() const override { return rank_; }
  std::unique_ptr<IndependenceOracle> makeOracle() const override;
  std::unique_ptr<Matroid> clone() const override { return std::make_unique<UniformMatroid>(*this); }
  void save(StateWriter& out) const override;
  // Every arm is interchangeable with every other.
  std::vector<std::uint32_t> armClasses() const override { return std::vector<std::uint32_t>(groundSetSize_, 0); }

 private:
  std::size_t groundSetSize_;
  std::size_t rank_;
};

}  // namespace sublinear
