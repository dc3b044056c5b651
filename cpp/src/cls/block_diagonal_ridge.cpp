#include "sublinear/cls/block_diagonal_ridge.hpp"

#include <algorithm>
#include <cmath>

#include "sublinear/core/error.hpp"
#include "sublinear/core/state_codec.hpp"

namespace sublinear {

namespace {
int checkedBlockDim(int dim, int blocks) {
  require(dim > 0, ErrorCode::InvalidArgument, "dim must be a positive integer");
  require(blocks >= 1 && dim % blocks == 0, ErrorCode::InvalidArgument, "option 'blocks' must be a positive divisor of dim");
  return dim / blocks;
}
}  // namespace

BlockDiagonalRidge::BlockDiagonalRidge(int dim, int blocks, double lambda)
    : blockDim_(checkedBlockDim(dim, blocks)), lambda_(lambda), theta_(Vector::Zero(dim)) {
  blocks_.reserve(static_cast<std::size_t>(blocks));
  for (int b = 0; b < blocks; ++b) blocks_.emplace_back(blockDim_, lambda);
}

double BlockDiagonalRidge::quadraticForm(const ArmSlice& arm) const {
  if (arm.width == 0) return 0.0;
  const auto blockDim = static_cast<std::size_t>(blockDim_);
  const std::size_t end = arm.offset + arm.width;
  double sum = 0.0;
  for (std::size_t b = arm.offset / blockDim; b * blockDim < end; ++b) {
    const std::size_t blockStart = b * blockDim;
    const std::size_t from = std::max(arm.offset, blockStart);
    const std::size_t to = std::min(end, blockStart + blockDim);
    // Columns of the (symmetric, column-major) block inverse are contiguous.
    const Matrix& inverse = blocks_[b].inverseGram();
    for (std::size_t a = from; a < to; ++a) {
      const double* column = inverse.data() + (a - blockStart) * blockDim + (from - blockStart);
      const double* x = arm.values + (from - arm.offset);
      double inner = 0.0;
      for (std::size_t c = 0; c < to - from; ++c) inner += column[c] * x[c];
      sum += arm.values[a - arm.offset] * inner;
    }
  }
  return sum;
}

Vector BlockDiagonalRidge::sampleTheta(Random& random, double scale) const {
  if (blocks_.size() == 1) return blocks_.front().sampleTheta(random, scale);
  Vector sample(theta_.size());
  for (std::size_t b = 0; b < blocks_.size(); ++b) {
    sample.segment(static_cast<Eigen::Index>(b) * blockDim_, blockDim_) = blocks_[b].sampleTheta(random, scale);
  }
  return sample;
}

bool BlockDiagonalRidge::fitsOneBlock(const Vector& x) const {
  if (blocks_.size() == 1) return true;
  Eigen::Index first = -1, last = -1;
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    if (x[i] != 0.0) {
      if (first < 0) first = i;
      last = i;
    }
  }
  return first < 0 || first / blockDim_ == last / blockDim_;
}

Eigen::Index BlockDiagonalRidge::blockOf(const Vector& x) const {
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    if (x[i] != 0.0) return i / blockDim_;
  }
  return 0;
}

void BlockDiagonalRidge::update(const Vector& x, double reward) {
  ++observations_;
  if (blocks_.size() == 1) {
    blocks_.front().update(x, reward);
    theta_ = blocks_.front().theta();
    lastDenominator_ = blocks_.front().lastDenominator();
    return;
  }
  const Eigen::Index block = blockOf(x);
  const Eigen::Index start = block * blockDim_;
  RidgeRegression& ridge = blocks_[static_cast<std::size_t>(block)];
  ridge.update(x.segment(start, blockDim_), reward);
  theta_.segment(start, blockDim_) = ridge.theta();
  lastDenominator_ = ridge.lastDenominator();
}

void BlockDiagonalRidge::refreshTheta() {
  for (std::size_t b = 0; b < blocks_.size(); ++b) theta_.segment(static_cast<Eigen::Index>(b) * blockDim_, blockDim_) = blocks_[b].theta();
}

void BlockDiagonalRidge::scale(double factor) {
  // theta = V^-1 b is unchanged.
  for (RidgeRegression& block : blocks_) block.scale(factor);
}

void BlockDiagonalRidge::weigh(double factor, double regulariserShare) {
  for (RidgeRegression& block : blocks_) {
    if (factor == 0.0) {
      block.restart(lambda_, Vector::Zero(blockDim_));
      continue;
    }
    Matrix gram = block.gramMatrix();
    gram *= factor;
    gram.diagonal().array() += (1.0 - factor * regulariserShare) * lambda_;
    block.reset(gram, factor * block.responses());
  }
  refreshTheta();
}

void BlockDiagonalRidge::downdate(const Vector& x, double reward) {
  const Eigen::Index start = blockOf(x) * blockDim_;
  RidgeRegression& ridge = blocks_[static_cast<std::size_t>(start / blockDim_)];
  ridge.downdate(x.segment(start, blockDim_), reward);
  theta_.segment(start, blockDim_) = ridge.theta();
}

void BlockDiagonalRidge::refit(const std::deque<Observation>& observations) {
  std::vector<Matrix> grams(blocks_.size(), lambda_ * Matrix::Identity(blockDim_, blockDim_));
  std::vector<Vector> responses(blocks_.size(), Vector::Zero(blockDim_));
  for (const Observation& observation : observations) {
    const Eigen::Index block = blockOf(observation.x);
    const Vector x = observation.x.segment(block * blockDim_, blockDim_);
    grams[static_cast<std::size_t>(block)].noalias() += observation.weight * x * x.transpose();
    responses[static_cast<std::size_t>(block)] += (observation.weight * observation.reward) * x;
  }
  for (std::size_t b = 0; b < blocks_.size(); ++b) blocks_[b].reset(grams[b], responses[b]);
  refreshTheta();
}

void BlockDiagonalRidge::save(StateWriter& out) const {
  out.u64(static_cast<std::uint64_t>(observations_));
  out.u32(static_cast<std::uint32_t>(blocks_.size()));
  for (const RidgeRegression& block : blocks_) block.save(out);
  out.vector(theta_);
}

void BlockDiagonalRidge::load(StateReader& in) {
  const std::uint64_t observations = in.u64();
  in.check(in.u32() == blocks_.size(), "ridge state has another block count");
  // Into the blocks and theta themselves (a regression is loaded only when new, and a failed load
  // leaves no object): copies beside them would double a large model's memory.
  for (RidgeRegression& block : blocks_) block.load(in);
  in.vector(theta_, theta_.size());
  in.check(theta_.allFinite(), "ridge state has a non-finite entry");
  observations_ = static_cast<long>(observations);
}

}  // namespace sublinear
