#include "sublinear/linear/projected_arms.hpp"

#include <algorithm>
#include <vector>

namespace sublinear {

ProjectedArms::ProjectedArms(int dim, int modelDim, double energy, std::uint64_t seed, bool floatRows)
    : subspace_(dim, modelDim, energy, seed), rows_(modelDim), floatRows_(floatRows) {
  if (floatRows_) rows_.keepFloatRows();
}

namespace {
// The projections of `count` stored rows from `first` on, computed a piece at a time as ArmSet::add
// reads them: never all of them in memory beside the rows they are appended to.
class ProjectedRows final : public DoubleSource {
 public:
  ProjectedRows(const ArmSubspace& basis, const ArmSet& arms, std::size_t first, std::size_t count)
      : basis_(basis), arms_(arms), first_(first), length_(count * static_cast<std::size_t>(basis.modelDim())) {}
  std::size_t length() const override { return length_; }
  void read(std::size_t first, std::size_t count, double* piece) const override {
    const auto m = static_cast<std::size_t>(basis_.modelDim());
    for (std::size_t at = first; at < first + count;) {
      const Vector z = basis_.project(arms_.rowData(first_ + at / m));
      const std::size_t column = at % m;
      const std::size_t take = std::min(m - column, first + count - at);
      std::copy_n(z.data() + column, take, piece + (at - first));
      at += take;
    }
  }

 private:
  const ArmSubspace& basis_;
  const ArmSet& arms_;
  std::size_t first_;
  std::size_t length_;
};
}  // namespace

void ProjectedArms::appendProjections(const ArmSubspace& basis, const ArmSet& arms, std::size_t first, std::size_t count, ArmSet& into) {
  const ItemAttributes attributes = arms.attributesOfRows(first, count);
  into.add(arms.ids().data() + first, count, ProjectedRows(basis, arms, first, count), &attributes);
}

Matrix ProjectedArms::refit(const ArmSet& arms) {
  const Matrix change = subspace_.fit(arms);
  ArmSet fresh(subspace_.modelDim());
  if (floatRows_) fresh.keepFloatRows();
  appendProjections(subspace_, arms, 0, arms.size(), fresh);
  // The same object: the policy reads its rows through a reference.
  rows_ = std::move(fresh);
  return change;
}

void ProjectedArms::append(const ArmSet& arms, std::size_t count) { appendProjections(subspace_, arms, arms.size() - count, count, rows_); }

void ProjectedArms::remove(const Id* ids, std::size_t count) {
  rows_.remove(ids, count);
  subspace_.noteRemoved(count);
}

Json ProjectedArms::stats() const {
  Json stats = subspace_.stats();
  stats["projectedBytes"] = rows_.size() * (static_cast<std::size_t>(subspace_.modelDim()) * (sizeof(double) + (floatRows_ ? sizeof(float) : 0)) +
                                            sizeof(Id) + sizeof(Label));
  return stats;
}

void ProjectedArms::load(StateReader& in, const ArmSet& arms) {
  subspace_.load(in);
  in.check(subspace_.fitted() || arms.size() == 0, "the arms have no subspace basis");
  ArmSet fresh(subspace_.modelDim());
  if (floatRows_) fresh.keepFloatRows();
  if (subspace_.fitted()) appendProjections(subspace_, arms, 0, arms.size(), fresh);
  rows_ = std::move(fresh);
}

}  // namespace sublinear
