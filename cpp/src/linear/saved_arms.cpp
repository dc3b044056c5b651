#include "sublinear/linear/saved_arms.hpp"

#include <string>
#include <vector>

#include "sublinear/core/id.hpp"

namespace sublinear {

namespace {
// The rows of a saved arm set decoded as ArmSet::add reads them (in order, whole rows, each once),
// straight into the set: a decoded copy of all the rows beside the set would be as large as the
// set. Each row's id goes into `ids` as it is read (add reads it after its piece), and each piece
// passes checkAdd's checks before the set takes it: entries finite and within kMaxMagnitude (by
// their position in the batch), no id twice (the set is empty before, so an id already in it
// appeared earlier in the batch).
class SavedRows final : public DoubleSource {
 public:
  SavedRows(StateReader& in, const ArmSet& arms, std::vector<Id>& ids)
      : in_(in), arms_(arms), ids_(ids), length_(ids.size() * static_cast<std::size_t>(arms.dim())) {}
  std::size_t length() const override { return length_; }
  void read(std::size_t first, std::size_t count, double* piece) const override {
    const auto d = static_cast<std::size_t>(arms_.dim());
    const std::size_t firstRow = first / d;
    const std::size_t rows = count / d;
    for (std::size_t row = 0; row < rows; ++row) {
      ids_[firstRow + row] = in_.u32();
      for (std::size_t j = 0; j < d; ++j) piece[row * d + j] = in_.f64();
    }
    ArmSet::checkFeatureEntries(piece, count, first);
    const Id* ids = ids_.data() + firstRow;
    const std::size_t repeat = firstRepeatedId(ids, rows);
    for (std::size_t row = 0; row < rows; ++row) {
      if (arms_.contains(ids[row]) || row == repeat) {
        fail(ErrorCode::DuplicateId, "arm " + std::to_string(ids[row]) + " appears twice in the batch");
      }
    }
  }

 private:
  StateReader& in_;
  const ArmSet& arms_;
  std::vector<Id>& ids_;
  std::size_t length_;
};
}  // namespace

void saveArmSet(const ArmSet& arms, StateWriter& out) {
  out.u64(arms.size());
  for (std::size_t row = 0; row < arms.size(); ++row) {
    out.u32(arms.idAt(row));
    const double* x = arms.rowData(row);
    for (int j = 0; j < arms.dim(); ++j) out.f64(x[j]);
  }
  arms.attributes().save(out);
}

void loadArmSet(ArmSet& arms, StateReader& in, std::size_t leastBytesPerArm) {
  const std::size_t count = in.count(leastBytesPerArm);
  std::vector<Id> ids(count);
  // Its errors become CORRUPT_STATE when the state is loaded (a state that fails leaves no object).
  arms.add(ids.data(), count, SavedRows(in, arms, ids), nullptr);
  ItemAttributes attributes;
  attributes.load(in, count);
  if (attributes.size() != count) {
    fail(ErrorCode::InvalidArgument, "labels: expected one per arm (" + std::to_string(count) + "), got " + std::to_string(attributes.size()));
  }
  // The rows' attributes as an add of the whole batch appends them to an empty set (the rows took
  // label 0 while their attributes were still ahead in the state).
  ItemAttributes& held = arms.mutableAttributes();
  held = ItemAttributes();
  held.checkColumns(attributes);
  held.appendRows(attributes, 0, count);
}

}  // namespace sublinear
