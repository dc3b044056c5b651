#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <Eigen/Dense>

#include "sublinear/core/piece_source.hpp"
#include "sublinear/core/row_store.hpp"
#include "sublinear/linear/linear_policy.hpp"
#include "sublinear/mips/eligibility.hpp"
#include "sublinear/mips/item_attributes.hpp"

namespace sublinear {

// The arms a linear policy currently holds: caller-chosen ids and their d-dimensional double
// features and a label each (a category, 0 unless given), stored as dense rows in RowStore's blocks (removal moves the last row into the hole, so iteration order
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
  std::size_t size() const { return rows_.size(); }
  bool contains(Id id) const { return rows_.contains(id); }
  // Row of a stored id (precondition: contains(id)).
  std::size_t rowOf(Id id) const { return rows_.rowOf(id); }
  Id idAt(std::size_t row) const { return rows_.idAt(row); }
  // The ids in row order (valid until the next add or remove).
  const std::vector<Id>& ids() const { return rows_.ids(); }
  const double* rowData(std::size_t row) const { return rows_.rowData(row); }
  // A float copy of every row, 4 bytes a feature more, for the scans that read every arm at every
  // step (the kept widths' corrections and means): half the bytes of the doubles to stream. Off
  // until a policy asks for it (asking copies the rows already there); it follows add and remove.
  void keepFloatRows();
  bool hasFloatRows() const { return keepsFloats_; }
  const float* floatRowData(std::size_t row) const {
    return floatBlocks_[row / RowStore<double>::kBlockRows].data() + (row % RowStore<double>::kBlockRows) * static_cast<std::size_t>(dim_);
  }
  // How many rows from `row` on lie contiguously after rowData(row) and floatRowData(row) (the float
  // copy keeps the same blocks): to the block's end or the last row.
  std::size_t contiguousRows(std::size_t row) const { return rows_.contiguousRows(row); }
  const double* featuresOf(Id id) const { return rows_.vectorOf(id); }
  // Every row's attributes (labels with the per-label posting lists, which make a filter's eligible
  // count and a walk over only the eligible arms cheap; values), and the label of a stored id that
  // has exactly one.
  const ItemAttributes& attributes() const { return attributes_; }
  Label labelOf(Id id) const { return attributes_.singleLabel(rows_.rowOf(id)); }
  // The attributes of `count` rows from `first` on, as a batch for another store of the same arms.
  ItemAttributes attributesOfRows(std::size_t first, std::size_t count) const;
  // Which arms a filtered selection may return (exclude: ids, any; the attribute conditions).
  Eligibility eligibility(const ArmFilter& filter) const { return Eligibility(rows_, attributes_, filter.exclude, filter); }
  // Whether a row passes `eligible` (made by eligibility()).
  bool admits(const Eligibility& eligible, std::size_t row) const { return eligible.admitsRow(row); }
  Eigen::Map<const Vector> feature(Id id) const { return Eigen::Map<const Vector>(featuresOf(id), dim_); }
  // `count` rows from `first` on as a matrix (valid until the next add or remove), for rows that
  // lie in one of RowStore's blocks (precondition: count <= rows_.contiguousRows(first)).
  Eigen::Map<const RowMatrix> rows(std::size_t first, std::size_t count) const {
    return Eigen::Map<const RowMatrix>(rowData(first), static_cast<Eigen::Index>(count), dim_);
  }

  // Throw DIMENSION_MISMATCH / NON_FINITE / DUPLICATE_ID / INVALID_ARGUMENT (attributes given, but
  // not one row per arm, or too many value names) (resp. UNKNOWN_ID / DUPLICATE_ID) and change
  // nothing; add/remove/setLabels/setValues assume their batch passed the check.
  void checkAdd(const Id* ids, std::size_t count, const double* features, std::size_t featureLength,
                const ItemAttributes* attributes = nullptr) const {
    checkAdd(ids, count, DoublesInMemory(features, featureLength), attributes);
  }
  // The same with the features read a piece at a time (a JS array beside the wasm heap), the values
  // checked in a pass over the pieces: the same errors, never a whole copy of the batch in memory.
  void checkAdd(const Id* ids, std::size_t count, const DoubleSource& features, const ItemAttributes* attributes = nullptr) const;
  // NON_FINITE or INVALID_ARGUMENT (beyond kMaxMagnitude) for an entry of a batch's features, as
  // checkAdd finds it, `first` being the position of features[0] in the batch (a piece of it).
  static void checkFeatureEntries(const double* features, std::size_t length, std::size_t first);
  void checkRemove(const Id* ids, std::size_t count) const;
  void checkChanges(const Id* ids, std::size_t count, const ItemAttributes& batch) const;
  // UNKNOWN_ID / DUPLICATE_ID / DIMENSION_MISMATCH / NON_FINITE / INVALID_ARGUMENT (beyond
  // kMaxMagnitude), nothing changed; setFeatures assumes its batch passed.
  void checkFeatures(const Id* ids, std::size_t count, const double* features, std::size_t featureLength) const;
  // attributes: null (every label 0, no values) or one row per arm.
  void add(const Id* ids, std::size_t count, const double* features, const ItemAttributes* attributes = nullptr) {
    add(ids, count, DoublesInMemory(features, count * static_cast<std::size_t>(dim_)), attributes);
  }
  // The same from features read a piece at a time (checkAdd's source, passed).
  void add(const Id* ids, std::size_t count, const DoubleSource& features, const ItemAttributes* attributes = nullptr);
  void remove(const Id* ids, std::size_t count);
  // Row i of the batch for ids[i]: its labels, or the values it holds (others stay).
  void setLabels(const Id* ids, std::size_t count, const ItemAttributes& labels);
  void setValues(const Id* ids, std::size_t count, const ItemAttributes& values);
  // New features for stored arms, in place: each keeps its row (its float copy follows), stamped
  // with a new revision (precondition: hasStamps()).
  void setFeatures(const Id* ids, std::size_t count, const double* features);

  // Stamps: a number per row that moves with the row, kept once asked for (keepStamps; a policy's
  // own arms hold none unless the policy asks). Every add and setFeatures is a new revision() and
  // stamps the rows it writes with it. The users that keep something per row (kept widths, stages)
  // treat a row stamped after the revision they last saw as a new arm, also when its id is one
  // they knew (removed and added again, or given other features, between two of their calls).
  void keepStamps();
  std::uint64_t revision() const { return revision_; }
  std::uint64_t stampOf(std::size_t row) const { return keepsStamps_ ? stamps_[row] : 0; }
  bool hasStamps() const { return keepsStamps_; }
  // The stamps and revision of another set with the same rows in the same order (a catalogue's
  // projected rows, made afresh from its arms).
  void copyStamps(const ArmSet& aligned);
  // Saved-state access (catalogue.cpp): the stamps in row order and the revision.
  const std::vector<std::uint64_t>& stamps() const { return stamps_; }
  void restoreStamps(std::vector<std::uint64_t> stamps, std::uint64_t revision);
  // Saved-state access (saved_arms.cpp).
  ItemAttributes& mutableAttributes() { return attributes_; }

 private:
  // UNKNOWN_ID / DUPLICATE_ID unless every id is stored once in the batch.
  void checkStored(const Id* ids, std::size_t count) const;
  // Appends a row's float copy (rows in RowStore's blocks of kBlockRows).
  void appendFloatRow(const double* features);

  int dim_;
  RowStore<double> rows_;
  bool keepsFloats_ = false;
  std::vector<std::vector<float>> floatBlocks_;
  // The attributes of each row, moved with it.
  ItemAttributes attributes_;
  // One stamp per row when kept, moved with it (stampOf), and the last revision.
  bool keepsStamps_ = false;
  std::vector<std::uint64_t> stamps_;
  std::uint64_t revision_ = 0;
};

}  // namespace sublinear
