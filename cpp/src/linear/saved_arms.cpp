#include "sublinear/linear/saved_arms.hpp"

#include <vector>

namespace sublinear {

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
  const auto d = static_cast<std::size_t>(arms.dim());
  const std::size_t count = in.count(leastBytesPerArm);
  std::vector<Id> ids(count);
  std::vector<double> features(count * d);
  for (std::size_t row = 0; row < count; ++row) {
    ids[row] = in.u32();
    for (std::size_t j = 0; j < d; ++j) features[row * d + j] = in.f64();
  }
  ItemAttributes attributes;
  attributes.load(in, count);
  // Its errors become CORRUPT_STATE when the state is loaded.
  arms.checkAdd(ids.data(), count, features.data(), features.size(), &attributes);
  arms.add(ids.data(), count, features.data(), &attributes);
}

}  // namespace sublinear
