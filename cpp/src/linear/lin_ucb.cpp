#include "sublinear/linear/lin_ucb.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <queue>
#include <unordered_set>
#include <utility>
#include <vector>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/linear/linear_option_tables.hpp"

namespace sublinear {

namespace {
bool readKeptWidths(const Json& options) { return readStringOption(option_groups::linUcb(), options, "widths") != "direct"; }
}  // namespace

LinUCB::LinUCB(int dim, const Json& options)
    : RidgePolicy(dim, options, modelDimension(dim, options), RidgeRegression::Form::InverseOnly),
      scanned_(scannedOwnArms(dim, options, readKeptWidths(options), option_groups::optimisticSubspace())),
      keptWidths_(readKeptWidths(options)),
      widths_(ridge_.dim()) {
  // The kept widths' scan reads every arm at every select: from the float copy, half the bytes.
  if (keptWidths_ && !projected_) ownArms_->keepFloatRows();
}

LinUCB::LinUCB(std::shared_ptr<Catalogue> catalogue, const Json& options)
    : RidgePolicy(catalogue, options, modelDimensionOver(catalogue.get(), options), RidgeRegression::Form::InverseOnly),
      scanned_(scannedArms(options)),
      keptWidths_(readKeptWidths(options)),
      widths_(ridge_.dim()) {
  catalogueSubspace_ = usesSubspaceOver(*catalogue_, options);
}

Id LinUCB::chooseArm() { return chooseArms(1, ArmFilter{}, Eligibility()).front(); }

namespace {
// Rows are scored in blocks; a block never straddles two of the arm set's pieces (kBlock divides
// RowStore::kBlockRows).
constexpr std::size_t kBlock = 512;
static_assert(RowStore<double>::kBlockRows % kBlock == 0, "a block of rows must lie in one piece of the arm set");

// Whether mean + sqrt(squaredBonus) falls below `kept` by a margin that no rounding can close, so
// that the arm's index need not be computed (a square root an arm, most of the selection's pass at
// d = 32): the bonus must be below the gap by a millionth of it, and the gap above a billionth of
// the values, a thousand times the rounding of the sum. Arms that pass are scored exactly as before,
// so the choice has the same bits.
bool clearlyBelow(double mean, double squaredBonus, double kept) {
  const double gap = kept - mean;
  return gap > 1e-9 * (std::abs(kept) + std::abs(mean)) && squaredBonus < gap * gap * (1.0 - 2e-6);
}
}  // namespace

void LinUCB::afterObservation() {
  if (keptWidths_) widths_.observe(ridge_);
}

void LinUCB::synchronise() {
  const std::vector<Id>& ids = scanned_.ids();
  const std::uint64_t revision = scanned_.revision();
  if (ids == rowIds_ && revision == seenRevision_) return;
  std::vector<std::size_t> source(ids.size(), KeptWidths::kNew);
  for (std::size_t old = 0; old < rowIds_.size(); ++old) {
    if (scanned_.contains(rowIds_[old])) source[scanned_.rowOf(rowIds_[old])] = old;
  }
  KeptWidths::renewChangedRows(scanned_, seenRevision_, source);
  rowIds_ = ids;
  seenRevision_ = revision;
  if (!widths_.valid()) return;
  std::vector<std::uint32_t> every(ids.size());
  for (std::size_t row = 0; row < every.size(); ++row) every[row] = static_cast<std::uint32_t>(row);
  widths_.remap(scanned_, ridge_, source, every);
}

void LinUCB::onAddArms(const Id* /*ids*/, std::size_t count) {
  if (keepsWidths()) widths_.appendRows(scanned_, ridge_, count);
}

void LinUCB::onRemoveArms(const Id* ids, std::size_t count) {
  if (keepsWidths()) widths_.followRemoval(scanned_, ids, count);
}

std::vector<Id> LinUCB::chooseArms(std::size_t count, const ArmFilter& /*filter*/, const Eligibility& eligible) {
  const double radius = theoreticalRadius() ? adaptiveRadius(delta()) : practicalRadius(confidenceMultiplier());
  lastRadius_ = radius;
  // With kept widths the means come with the widths' corrections, in one read of the arms.
  // Not zero-filled: bringUpToDateEvery writes every entry (K doubles, zeroing them cost a tenth of
  // the step at d = 32).
  std::unique_ptr<double[]> keptMeans;
  if (keptWidths_) {
    if (catalogue_) synchronise();
    keptMeans.reset(new double[scanned_.size()]);
    widths_.bringUpToDateEvery(scanned_, ridge_, ridge_.theta(), keptMeans.get());
  }
  // The `count` largest indices, ties to the smaller id; the heap's top is the worst one kept.
  using Scored = std::pair<double, Id>;
  const auto better = [](const Scored& a, const Scored& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); };
  std::priority_queue<Scored, std::vector<Scored>, decltype(better)> kept(better);
  // One pass in blocks of rows; without kept widths it computes the means X theta and the widths
  // diag(X V^-1 X^T) (without a K x K product).
  const Matrix& inverseGram = ridge_.inverseGram();
  const Vector& theta = ridge_.theta();
  Vector blockMeans;
  Vector direct;
  for (std::size_t start = 0; start < scanned_.size(); start += kBlock) {
    const auto rows = static_cast<Eigen::Index>(std::min(kBlock, scanned_.size() - start));
    const auto block = scanned_.rows(start, static_cast<std::size_t>(rows));
    if (!keptWidths_) blockMeans = block * theta;
    if (!keptWidths_) {
      const Matrix transformed = block * inverseGram;
      direct = transformed.cwiseProduct(block).rowwise().sum();
    }
    const double* means = keptWidths_ ? keptMeans.get() + start : blockMeans.data();
    const double* widths = keptWidths_ ? widths_.data() + start : direct.data();
    for (Eigen::Index i = 0; i < rows; ++i) {
      const std::size_t row = start + static_cast<std::size_t>(i);
      if (!scanned_.admits(eligible, row)) continue;
      const double width = std::max(0.0, widths[i]);
      if (kept.size() == count && clearlyBelow(means[i], radius * radius * width, kept.top().first)) continue;
      const Scored scored{means[i] + radius * std::sqrt(width), scanned_.idAt(row)};
      if (kept.size() < count) {
        kept.push(scored);
      } else if (better(scored, kept.top())) {
        kept.pop();
        kept.push(scored);
      }
    }
  }
  countInnerProducts(scanned_.size());
  std::vector<Id> chosen(kept.size());
  for (std::size_t i = chosen.size(); i-- > 0; kept.pop()) chosen[i] = kept.top().second;
  return chosen;
}

double LinUCB::width(Id id) const {
  require(keptWidths_ && widths_.valid() && scanned_.contains(id), ErrorCode::InvalidArgument, "width: no kept width for this arm");
  const std::size_t row = scanned_.rowOf(id);
  require(catalogue_ == nullptr || (row < rowIds_.size() && rowIds_[row] == id), ErrorCode::InvalidArgument,
          "width: the arm arrived after the last select");
  return widths_[row];
}

double LinUCB::directWidth(Id id) const {
  require(scanned_.contains(id), ErrorCode::UnknownId, "directWidth: unknown arm");
  const double norm = ridge_.inverseNorm(Eigen::Map<const Vector>(scanned_.featuresOf(id), scanned_.dim()));
  return norm * norm;
}

Json LinUCB::extraStats() const {
  Json stats{{"radius", lastRadius_}, {"widths", keptWidths_ ? "kept" : "direct"}};
  // What the kept widths add to a user over a catalogue (its row order and widths).
  if (keptWidths_ && catalogue_) stats["perArmBytes"] = rowIds_.capacity() * sizeof(Id) + widths_.perArmBytes();
  return stats;
}

void LinUCB::saveFields(StateWriter& out) const {
  saveSubspaceLineage(out);
  out.f64(lastRadius_);
  if (catalogue_) {
    out.u32s(rowIds_.data(), rowIds_.size());
    out.u64(seenRevision_);
  }
  widths_.save(out);
}

void LinUCB::loadFields(StateReader& in) {
  loadSubspaceLineage(in);
  lastRadius_ = in.f64();
  in.check(std::isfinite(lastRadius_) && lastRadius_ >= 0.0, "radius is not a finite non-negative number");
  if (catalogue_) {
    // The row order the user last saw: the catalogue may have changed since (the next call catches
    // up), so it is checked for distinct ids only.
    rowIds_ = in.u32s();
    in.check(std::unordered_set<Id>(rowIds_.begin(), rowIds_.end()).size() == rowIds_.size(), "an arm appears twice in the row order");
    in.check(keptWidths_ || rowIds_.empty(), "a row order is kept only with kept widths");
    seenRevision_ = in.u64();
  }
  widths_.load(in, catalogue_ ? rowIds_.size() : scanned_.size());
  in.check(!widths_.valid() || keptWidths_, "widths are kept only with option widths 'kept' or 'auto'");
  // Restored over a catalogue saved before changes the user had seen: which rows changed since is
  // unknown, so every width is computed afresh at the next call. (The catalogue's own revision: its
  // projected rows, made again at their first use after a load, take it then.)
  if (catalogue_ && seenRevision_ > catalogue_->revision()) {
    widths_.invalidate();
    seenRevision_ = 0;
  }
}

}  // namespace sublinear
