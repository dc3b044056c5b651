#include "sublinear/mips/pca_tree_index.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "sublinear/core/option_table.hpp"
#include "sublinear/mips/mips_option_tables.hpp"

namespace sublinear {

namespace {
// Modified Gram-Schmidt on the `columns` columns of a row-major rows x columns matrix.
void orthonormalizeColumns(std::vector<double>& matrix, std::size_t rows, std::size_t columns) {
  for (std::size_t c = 0; c < columns; ++c) {
    for (std::size_t previous = 0; previous < c; ++previous) {
      double dot = 0;
      for (std::size_t r = 0; r < rows; ++r) dot += matrix[r * columns + c] * matrix[r * columns + previous];
      for (std::size_t r = 0; r < rows; ++r) matrix[r * columns + c] -= dot * matrix[r * columns + previous];
    }
    double norm = 0;
    for (std::size_t r = 0; r < rows; ++r) norm += matrix[r * columns + c] * matrix[r * columns + c];
    norm = std::sqrt(norm);
    for (std::size_t r = 0; r < rows; ++r) matrix[r * columns + c] = norm > 1e-300 ? matrix[r * columns + c] / norm : 0.0;
  }
}
}  // namespace

PcaTreeIndex::PcaTreeIndex(std::size_t dim, const Json& options)
    : MipsIndex(dim),
      fixedDepth_(optionGiven(options, "depth")),
      depth_(static_cast<std::size_t>(readIntegerOption(option_groups::pcaTree(), options, "depth", 0))),
      random_(readSeedOption(option_groups::pcaTree(), options)) {}

std::size_t PcaTreeIndex::defaultDepth(std::size_t size) {
  std::size_t depth = 0;
  while (depth < kMaxDepth && (size >> (depth + 1)) >= kLeafTarget) ++depth;
  return depth;
}

void PcaTreeIndex::transform(const float* vector, double* out) const {
  // (x, sqrt(M^2 - |x|^2)); the max() absorbs rounding for the longest items.
  double norm2 = 0;
  for (std::size_t j = 0; j < dim(); ++j) {
    out[j] = vector[j];
    norm2 += static_cast<double>(vector[j]) * vector[j];
  }
  out[dim()] = std::sqrt(std::max(0.0, maxNorm_ * maxNorm_ - norm2));
}

std::size_t PcaTreeIndex::leafOf(const double* transformed) const {
  const std::size_t width = dim() + 1;
  std::size_t node = 0;
  for (std::size_t level = 0; level < depth_; ++level) {
    const double* direction = directions_.data() + level * width;
    double projection = 0;
    for (std::size_t j = 0; j < width; ++j) projection += direction[j] * transformed[j];
    node = 2 * node + (projection < thresholds_[node] ? 1 : 2);
  }
  return node - ((std::size_t{1} << depth_) - 1);
}

void PcaTreeIndex::computeDirections(const std::vector<double>& mean, std::size_t n) {
  const std::size_t width = dim() + 1;
  std::vector<double> row(width);
  // Row i of the centered transformed data, into `row`.
  const auto centeredRow = [&](std::size_t i) {
    transform(items_.rowData(i), row.data());
    for (std::size_t j = 0; j < width; ++j) row[j] -= mean[j];
  };
  Eigen::MatrixXd basis;  // width x r, orthonormal columns spanning the candidate directions
  Eigen::MatrixXd small;  // r x r covariance in that basis
  if (width <= kDirectCovarianceLimit) {
    basis = Eigen::MatrixXd::Identity(static_cast<Eigen::Index>(width), static_cast<Eigen::Index>(width));
    small = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(width), static_cast<Eigen::Index>(width));
    for (std::size_t i = 0; i < n; ++i) {
      centeredRow(i);
      for (std::size_t a = 0; a < width; ++a) {
        for (std::size_t b = 0; b <= a; ++b) small(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b)) += row[a] * row[b];
      }
    }
  } else {
    // Randomized subspace iteration on X^T X without forming it.
    const std::size_t p = std::min(width, depth_ + 10);
    std::vector<double> omega(width * p), y(n * p);
    for (auto& value : omega) value = random_.normal();
    orthonormalizeColumns(omega, width, p);
    const auto multiply = [&]() {  // y = X omega
      std::fill(y.begin(), y.end(), 0.0);
      for (std::size_t i = 0; i < n; ++i) {
        centeredRow(i);
        double* out = y.data() + i * p;
        for (std::size_t j = 0; j < width; ++j) {
          const double value = row[j];
          const double* w = omega.data() + j * p;
          for (std::size_t c = 0; c < p; ++c) out[c] += value * w[c];
        }
      }
    };
    for (int pass = 0; pass < 3; ++pass) {
      multiply();
      orthonormalizeColumns(y, n, p);
      std::fill(omega.begin(), omega.end(), 0.0);  // omega = X^T y
      for (std::size_t i = 0; i < n; ++i) {
        centeredRow(i);
        const double* in = y.data() + i * p;
        for (std::size_t j = 0; j < width; ++j) {
          double* w = omega.data() + j * p;
          for (std::size_t c = 0; c < p; ++c) w[c] += row[j] * in[c];
        }
      }
      orthonormalizeColumns(omega, width, p);
    }
    multiply();  // Rayleigh-Ritz: the covariance of the data projected on omega
    basis.resize(static_cast<Eigen::Index>(width), static_cast<Eigen::Index>(p));
    for (std::size_t j = 0; j < width; ++j) {
      for (std::size_t c = 0; c < p; ++c) basis(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(c)) = omega[j * p + c];
    }
    small = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(p), static_cast<Eigen::Index>(p));
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t a = 0; a < p; ++a) {
        for (std::size_t b = 0; b <= a; ++b) small(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b)) += y[i * p + a] * y[i * p + b];
      }
    }
  }
  // Only the lower triangle was filled, which is what the solver reads.
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(small);
  const Eigen::MatrixXd vectors = basis * solver.eigenvectors();  // ascending eigenvalues
  const std::size_t available = static_cast<std::size_t>(vectors.cols());
  directions_.assign(depth_ * width, 0.0);
  for (std::size_t level = 0; level < depth_; ++level) {
    const auto column = static_cast<Eigen::Index>(available - 1 - level % available);
    for (std::size_t j = 0; j < width; ++j) directions_[level * width + j] = vectors(static_cast<Eigen::Index>(j), column);
  }
}

void PcaTreeIndex::rebuild() {
  const std::size_t n = size();
  const std::size_t width = dim() + 1;
  if (!fixedDepth_) depth_ = defaultDepth(n);
  maxNorm_ = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const float* x = items_.rowData(i);
    double norm2 = 0;
    for (std::size_t j = 0; j < dim(); ++j) norm2 += static_cast<double>(x[j]) * x[j];
    maxNorm_ = std::max(maxNorm_, std::sqrt(norm2));
  }
  std::vector<double> mean(width, 0.0), row(width);
  for (std::size_t i = 0; i < n; ++i) {
    transform(items_.rowData(i), row.data());
    for (std::size_t j = 0; j < width; ++j) mean[j] += row[j];
  }
  for (auto& value : mean) value /= static_cast<double>(std::max<std::size_t>(n, 1));
  mean_ = mean;
  if (depth_ > 0) computeDirections(mean, n);

  // Projections of every item on every level's direction.
  std::vector<double> projection(n * depth_);
  for (std::size_t i = 0; i < n; ++i) {
    transform(items_.rowData(i), row.data());
    for (std::size_t j = 0; j < width; ++j) row[j] -= mean[j];
    for (std::size_t level = 0; level < depth_; ++level) {
      double sum = 0;
      for (std::size_t j = 0; j < width; ++j) sum += directions_[level * width + j] * row[j];
      projection[i * depth_ + level] = sum;
    }
  }
  const std::size_t leafCount = std::size_t{1} << depth_;
  thresholds_.assign(leafCount - 1, 0.0);
  subtreeCount_.assign(2 * leafCount - 1, 0);
  leaves_.assign(leafCount, {});
  leafOfItem_.clear();
  leafOfItem_.reserve(n);
  std::vector<std::uint32_t> rows(n);
  std::iota(rows.begin(), rows.end(), 0u);
  // Median splits, level by level; ties in projection go by id so that the split is deterministic.
  const auto split = [&](auto&& self, std::size_t node, std::size_t level, std::size_t begin, std::size_t end) -> void {
    subtreeCount_[node] = static_cast<std::uint32_t>(end - begin);
    if (level == depth_) {
      const std::size_t leaf = node - (leafCount - 1);
      for (std::size_t r = begin; r < end; ++r) {
        leaves_[leaf].push_back(items_.idAt(rows[r]));
        leafOfItem_[items_.idAt(rows[r])] = static_cast<std::uint32_t>(leaf);
      }
      return;
    }
    const std::size_t middle = begin + (end - begin) / 2;
    if (begin < end) {
      const auto key = [&](std::uint32_t r) { return std::make_pair(projection[r * depth_ + level], items_.idAt(r)); };
      std::nth_element(rows.begin() + static_cast<std::ptrdiff_t>(begin), rows.begin() + static_cast<std::ptrdiff_t>(middle),
                       rows.begin() + static_cast<std::ptrdiff_t>(end), [&](std::uint32_t a, std::uint32_t b) { return key(a) < key(b); });
      thresholds_[node] = middle < end ? projection[rows[middle] * depth_ + level] : 0.0;
    }
    self(self, 2 * node + 1, level + 1, begin, middle);
    self(self, 2 * node + 2, level + 1, middle, end);
  };
  split(split, 0, 0, 0, n);
  built_ = true;
  stale_ = false;
  sizeAtBuild_ = n;
  changesSinceBuild_ = 0;
  ++builds_;
}

void PcaTreeIndex::centeredTransform(const float* vector, double* out) const {
  transform(vector, out);
  for (std::size_t j = 0; j <= dim(); ++j) out[j] -= mean_[j];
}

void PcaTreeIndex::onAdd(const Id* ids, std::size_t count) {
  changesSinceBuild_ += count;
  if (!built_ || stale_) return;
  // Stale until the additions are in their leaves, so a failure midway leads to a rebuild.
  stale_ = true;
  std::vector<double> row(dim() + 1);
  const std::size_t leafBase = (std::size_t{1} << depth_) - 1;
  for (std::size_t i = 0; i < count; ++i) {
    const float* x = items_.vectorOf(ids[i]);
    double norm2 = 0;
    for (std::size_t j = 0; j < dim(); ++j) norm2 += static_cast<double>(x[j]) * x[j];
    if (std::sqrt(norm2) > maxNorm_) return;  // the transform needs a larger M: rebuild
    centeredTransform(x, row.data());
    const std::size_t leaf = leafOf(row.data());
    leaves_[leaf].push_back(ids[i]);
    leafOfItem_[ids[i]] = static_cast<std::uint32_t>(leaf);
    for (std::size_t node = leafBase + leaf;; node = (node - 1) / 2) {
      ++subtreeCount_[node];
      if (node == 0) break;
    }
  }
  stale_ = 2 * changesSinceBuild_ > sizeAtBuild_ + 16;
}

void PcaTreeIndex::onRemove(const Id* ids, std::size_t count) {
  changesSinceBuild_ += count;
  if (!built_ || stale_) return;
  const std::size_t leafBase = (std::size_t{1} << depth_) - 1;
  for (std::size_t i = 0; i < count; ++i) {
    const auto it = leafOfItem_.find(ids[i]);
    const std::size_t leaf = it->second;
    leafOfItem_.erase(it);
    auto& members = leaves_[leaf];
    const auto position = std::find(members.begin(), members.end(), ids[i]);
    *position = members.back();
    members.pop_back();
    for (std::size_t node = leafBase + leaf;; node = (node - 1) / 2) {
      --subtreeCount_[node];
      if (node == 0) break;
    }
  }
  stale_ = 2 * changesSinceBuild_ > sizeAtBuild_ + 16;
}

void PcaTreeIndex::collectLeaves(std::size_t node, std::vector<Id>& out) const {
  const std::size_t leafBase = (std::size_t{1} << depth_) - 1;
  if (subtreeCount_[node] == 0) return;
  if (node >= leafBase) {
    const auto& members = leaves_[node - leafBase];
    out.insert(out.end(), members.begin(), members.end());
    return;
  }
  collectLeaves(2 * node + 1, out);
  collectLeaves(2 * node + 2, out);
}

void PcaTreeIndex::prepareConcurrentSearches() {
  if (size() > 0 && (!built_ || stale_)) rebuild();
}

std::vector<Id> PcaTreeIndex::candidates(const float* paddedQuery, std::size_t count) {
  if (!built_ || stale_) rebuild();
  std::vector<double> query(dim() + 1, 0.0);
  double norm2 = 0;
  for (std::size_t j = 0; j < dim(); ++j) norm2 += static_cast<double>(paddedQuery[j]) * paddedQuery[j];
  const double scale = norm2 > 0 ? maxNorm_ / std::sqrt(norm2) : 0.0;
  for (std::size_t j = 0; j < dim(); ++j) query[j] = paddedQuery[j] * scale - mean_[j];
  query[dim()] = -mean_[dim()];
  const std::size_t leafBase = (std::size_t{1} << depth_) - 1;
  std::size_t node = leafBase + leafOf(query.data());
  while (node > 0 && subtreeCount_[node] < count) node = (node - 1) / 2;
  widened_ += node < leafBase ? 1 : 0;
  // Descending the tree costs `depth` projections of dim + 1 entries.
  countInnerProducts(static_cast<double>(depth_));
  std::vector<Id> ids;
  ids.reserve(subtreeCount_[node]);
  collectLeaves(node, ids);
  return ids;
}

// The tree only while it is current (built and not stale): a stale tree is never read again, as
// the next search rebuilds it and additions and removals skip it. subtreeCount_ and leafOfItem_
// follow from the leaves.
void PcaTreeIndex::saveStructure(StateWriter& out) const {
  out.u64(depth_);
  out.random(random_);
  out.u64(builds_);
  out.u64(widened_.load());
  out.u8(built_ ? 1 : 0);
  out.u8(stale_ ? 1 : 0);
  if (!built_ || stale_) return;
  out.f64(maxNorm_);
  out.u64(sizeAtBuild_);
  out.u64(changesSinceBuild_);
  out.f64s(mean_.data(), mean_.size());
  out.f64s(directions_.data(), directions_.size());
  out.f64s(thresholds_.data(), thresholds_.size());
  for (const auto& members : leaves_) out.u32s(members.data(), members.size());
}

void PcaTreeIndex::loadStructure(StateReader& in) {
  const std::uint64_t depth = in.u64();
  in.check(depth <= kMaxDepth && (!fixedDepth_ || depth == depth_), "pca-tree: the depth is out of range or not the one in the options");
  depth_ = static_cast<std::size_t>(depth);
  in.random(random_);
  builds_ = in.u64();
  widened_ = in.u64();
  const std::uint8_t built = in.u8(), stale = in.u8();
  in.check(built <= 1 && stale <= 1 && (built == 1 || stale == 1), "pca-tree: bad build flags");
  built_ = built == 1;
  stale_ = stale == 1;
  if (!built_ || stale_) return;

  maxNorm_ = in.f64();
  in.check(std::isfinite(maxNorm_) && maxNorm_ >= 0, "pca-tree: the largest norm is not a finite non-negative number");
  for (std::size_t row = 0; row < size(); ++row) {
    const float* x = items_.rowData(row);
    double norm2 = 0;
    for (std::size_t j = 0; j < dim(); ++j) norm2 += static_cast<double>(x[j]) * x[j];
    in.check(std::sqrt(norm2) <= maxNorm_, "pca-tree: an item is longer than the largest norm of the tree");
  }
  sizeAtBuild_ = in.u64();
  changesSinceBuild_ = in.u64();
  // Ids are 32 bits, so no set was ever larger; this also keeps the staleness test below exact.
  in.check(sizeAtBuild_ <= std::numeric_limits<std::uint32_t>::max(), "pca-tree: the size at the last build is out of range");
  in.check(changesSinceBuild_ <= (sizeAtBuild_ + 16) / 2, "pca-tree: the tree is current but has seen enough changes to be stale");
  in.check(fixedDepth_ || depth_ == defaultDepth(sizeAtBuild_), "pca-tree: the depth is not the default for the size at the last build");
  const std::size_t width = dim() + 1;
  const auto finite = [](const std::vector<double>& values) {
    return std::all_of(values.begin(), values.end(), [](double value) { return std::isfinite(value); });
  };
  mean_ = in.f64s();
  in.check(mean_.size() == width && finite(mean_), "pca-tree: the mean has the wrong length or a non-finite entry");
  directions_ = in.f64s();
  in.check(directions_.size() == depth_ * width && finite(directions_), "pca-tree: the directions have the wrong shape or a non-finite entry");
  thresholds_ = in.f64s();
  const std::size_t leafCount = std::size_t{1} << depth_;
  in.check(thresholds_.size() == leafCount - 1 && finite(thresholds_), "pca-tree: the thresholds have the wrong length or a non-finite entry");

  // Each leaf's count takes 8 bytes, so the leaves allocated here are bounded by the input.
  in.check(leafCount <= in.remaining() / sizeof(std::uint64_t), "pca-tree: fewer leaves stored than the depth needs");
  leaves_.assign(leafCount, {});
  subtreeCount_.assign(2 * leafCount - 1, 0);
  leafOfItem_.reserve(size());
  for (std::size_t leaf = 0; leaf < leafCount; ++leaf) {
    leaves_[leaf] = in.u32s();
    for (const Id id : leaves_[leaf]) {
      in.check(items_.contains(id), "pca-tree: a leaf holds item " + std::to_string(id) + ", which is not stored");
      in.check(leafOfItem_.emplace(id, static_cast<std::uint32_t>(leaf)).second, "pca-tree: item " + std::to_string(id) + " is in two leaves");
    }
    subtreeCount_[leafCount - 1 + leaf] = static_cast<std::uint32_t>(leaves_[leaf].size());
  }
  in.check(leafOfItem_.size() == size(), "pca-tree: a stored item is in no leaf");
  for (std::size_t node = leafCount - 1; node-- > 0;) subtreeCount_[node] = subtreeCount_[2 * node + 1] + subtreeCount_[2 * node + 2];
}

Json PcaTreeIndex::stats() const {
  Json stats = MipsIndex::stats();
  stats["depth"] = depth_;
  stats["builds"] = builds_;
  stats["widenedSearches"] = widened_.load();
  return stats;
}

}  // namespace sublinear
