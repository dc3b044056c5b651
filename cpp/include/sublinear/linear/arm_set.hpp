#pragma once

#include <cstddef>
#include <unordered_map>
#include <vector>

#include <Eigen/Dense>

#include "sublinear/linear/linear_policy.hpp"

namespace sublinear {

// The arms a linear policy currently holds: caller-chosen ids and their d-dimensional double
// features, stored as dense rows (removal moves the last row into the hole, so iteration order
// depends only on the sequence of calls, never on hashing). Every policy keeps its arms here; the
// MIPS indexes hold float copies (or lifts) of the same rows.
class ArmSet {
 public:
  using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

  // Largest accepted |feature|: keeps products of two features (Sub-Elim's lift x x^T / d)
  // finite in float32, where the indexes live.
  static constexpr double kMaxMagnitude = 1e15;

  explicit ArmSet(int dim);

  int dim() const { return dim_; }
  std::size_t size() const { return ids_.size(); }
  bool contains(Id id) const { return rowOf_.count(id) != 0; }
  // Row of a stored id (precondition: contains(id)).
  std::size_t rowOf(Id id) const { return rowOf_.at(id); }
  Id idAt(std::size_t row) const { return ids_[row]; }
  // The ids in row order (valid until the next add or remove).
  const std::vector<Id>& ids() const { return ids_; }
  const double* rowData(std::size_t row) const { return features_.data() + row * static_cast<std::size_t>(dim_); }
  const double* featuresOf(Id id) const { return rowData(rowOf(id)); }
  Eigen::Map<const Vector> feature(Id id) const { return Eigen::Map<const Vector>(featuresOf(id), dim_); }
  // All rows as a size() x dim() matrix (valid until the next add or remove).
  Eigen::Map<const RowMatrix> matrix() const {
    return Eigen::Map<const RowMatrix>(features_.data(), static_cast<Eigen::Index>(size()), dim_);
  }

  // Throw DIMENSION_MISMATCH / NON_FINITE / DUPLICATE_ID (resp. UNKNOWN_ID / DUPLICATE_ID) and
  // change nothing; add/remove assume their batch passed the check.
  void checkAdd(const Id* ids, std::size_t count, const double* features, std::size_t featureLength) const;
  void checkRemove(const Id* ids, std::size_t count) const;
  void add(const Id* ids, std::size_t count, const double* features);
  void remove(const Id* ids, std::size_t count);

 private:
  int dim_;
  std::vector<double> features_;
  std::vector<Id> ids_;
  std::unordered_map<Id, std::size_t> rowOf_;
};

}  // namespace sublinear
