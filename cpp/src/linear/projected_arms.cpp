#include "sublinear/linear/projected_arms.hpp"

#include <algorithm>
#include <vector>

namespace sublinear {

ProjectedArms::ProjectedArms(int dim, int modelDim, double energy, std::uint64_t seed, bool floatRows)
    : subspace_(dim, modelDim, energy, seed), rows_(modelDim), floatRows_(floatRows) {
  if (floatRows_) rows_.keepFloatRows();
}

void ProjectedArms::appendProjections(const ArmSubspace& basis, const ArmSet& arms, std::size_t first, std::size_t count, ArmSet& into) {
  const auto m = static_cast<std::size_t>(basis.modelDim());
  std::vector<double> rows(count * m);
  std::vector<Id> ids(count);
  for (std::size_t i = 0; i < count; ++i) {
    const Vector z = basis.project(arms.rowData(first + i));
    std::copy(z.data(), z.data() + m, rows.data() + i * m);
    ids[i] = arms.idAt(first + i);
  }
  const ItemAttributes attributes = arms.attributesOfRows(first, count);
  into.add(ids.data(), count, rows.data(), &attributes);
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
