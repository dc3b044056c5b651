#include "sublinear/linear/scan_elim.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <unordered_set>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/linear/elimination_stages.hpp"
#include "sublinear/linear/linear_option_tables.hpp"

namespace sublinear {

namespace {
// Rows are scored in blocks; a block never straddles two of the arm set's pieces.
constexpr std::size_t kScanBlock = 512;
static_assert(RowStore<double>::kBlockRows % kScanBlock == 0, "a block of rows must lie in one piece of the arm set");

// Over a catalogue there is no stage index to configure: the widths replace it.
const Json& eliminationOptionsOverCatalogue(const Json& options) {
  require(!(options.is_object() && options.contains("index")), ErrorCode::InvalidArgument,
          "option 'index': the elimination policies over a catalogue search no index (they keep every arm's width)");
  return options;
}

// Stage bytes: -1 for an eliminated arm.
constexpr std::int8_t kEliminated = -1;

// 2^-(s + 1) for every stage s a policy can have (at most 60, elimination_stages::maxStage).
const std::array<double, 64> kStageEdges = [] {
  std::array<double, 64> edges{};
  for (std::size_t s = 0; s < edges.size(); ++s) edges[s] = std::ldexp(1.0, -static_cast<int>(s + 1));
  return edges;
}();
}  // namespace

ScanElim::ScanElim(std::string type, int dim, const Json& options)
    : RidgePolicy(dim, options, modelDimensionOverOwnArms(dim, options), RidgeRegression::Form::InverseOnly),
      scanned_(scannedOwnArms(dim, options, true, option_groups::optimisticSubspace())),
      type_(std::move(type)),
      eta_(elimination_stages::eta(options)),
      featureBound_(readOption(option_groups::elimination(), options, "featureBound")),
      maxStage_(elimination_stages::maxStage(eta_)),
      widths_(ridge_.dim()) {
  beta_ = eliminationRadius(featureBound_);
  // The scan reads every arm in play at every select: from the float copy, half the bytes.
  if (!projected_) ownArms_->keepFloatRows();
}

ScanElim::ScanElim(std::string type, std::shared_ptr<Catalogue> catalogue, const Json& options)
    : RidgePolicy(catalogue, eliminationOptionsOverCatalogue(options), modelDimensionOver(catalogue.get(), options),
                  RidgeRegression::Form::InverseOnly),
      scanned_(scannedArms(options)),
      type_(std::move(type)),
      eta_(elimination_stages::eta(options)),
      featureBound_(readOption(option_groups::elimination(), options, "featureBound")),
      maxStage_(elimination_stages::maxStage(eta_)),
      widths_(ridge_.dim()) {
  catalogueSubspace_ = usesSubspaceOver(*catalogue_, options);
  beta_ = eliminationRadius(featureBound_);
}

void ScanElim::onForget(bool restart) {
  if (restart) {
    onModelMoved();
  } else {
    widths_.invalidate();
  }
}

void ScanElim::onModelMoved() {
  widths_.invalidate();
  bool readmitted = false;
  for (std::int8_t& stage : stages_) {
    readmitted = readmitted || stage == kEliminated;
    stage = 0;
  }
  if (readmitted) ++readmissions_;
  threshold_ = -INFINITY;
  hasWitness_ = false;
}

int ScanElim::stageOf(Id id) const {
  const std::size_t row = scanned_.rowOf(id);
  return row < rowIds_.size() && rowIds_[row] == id ? stages_[row] : -2;
}

std::size_t ScanElim::perArmBytes() const {
  return rowIds_.capacity() * sizeof(Id) + stages_.capacity() * sizeof(std::int8_t) + widths_.bytes();
}

void ScanElim::synchronise() {
  const std::vector<Id>& ids = scanned_.ids();
  const std::uint64_t revision = scanned_.revision();
  if (ids == rowIds_ && revision == seenRevision_ && arrived_.empty()) return;
  std::vector<std::size_t> source(ids.size(), KeptWidths::kNew);
  // Arms that arrive start in Psi_0 and rise to their stage in the pass that follows.
  std::vector<std::int8_t> stages(ids.size(), 0);
  for (std::size_t old = 0; old < rowIds_.size(); ++old) {
    const Id id = rowIds_[old];
    if (!scanned_.contains(id)) {
      ++departures_;
      continue;
    }
    const std::size_t row = scanned_.rowOf(id);
    source[row] = old;
    stages[row] = stages_[old];
  }
  // Arms the catalogue stamped since (added, or given other features) and own arms added since
  // come back as new ones, also under an id the policy knew at the same row: their stage and width
  // were learned about other features.
  KeptWidths::renewChangedRows(scanned_, seenRevision_, source);
  for (const Id id : arrived_) {
    if (scanned_.contains(id)) source[scanned_.rowOf(id)] = KeptWidths::kNew;
  }
  arrived_.clear();
  for (std::size_t row = 0; row < source.size(); ++row) {
    if (source[row] == KeptWidths::kNew) stages[row] = 0;
  }
  const bool witnessChanged = hasWitness_ && scanned_.contains(witness_) && source[scanned_.rowOf(witness_)] == KeptWidths::kNew;
  for (const std::size_t old : source) arrivals_ += old == KeptWidths::kNew ? 1 : 0;
  rowIds_ = ids;
  seenRevision_ = revision;
  stages_ = std::move(stages);
  widths_.remap(scanned_, ridge_, source, rowsInPlay());
  if (hasWitness_ && (!scanned_.contains(witness_) || witnessChanged)) {
    // Arms were eliminated because their upper bound fell below the witness's lower bound; without
    // the witness (gone, or with other features) that comparison no longer holds: every eliminated arm comes back (its width, left
    // stale while it was out, computed afresh), and the threshold is derived afresh.
    ++readmissions_;
    std::vector<std::uint32_t> readmitted;
    for (std::size_t row = 0; row < stages_.size(); ++row) {
      if (stages_[row] == kEliminated) stages_[row] = 0, readmitted.push_back(static_cast<std::uint32_t>(row));
    }
    if (widths_.valid()) widths_.compute(scanned_, ridge_, readmitted);
    threshold_ = -INFINITY;
    hasWitness_ = false;
  }
}

std::vector<std::uint32_t> ScanElim::rowsInPlay() const {
  // Without a branch per arm: every row is written, and the count moves past those in play.
  std::vector<std::uint32_t> rows(stages_.size());
  std::size_t count = 0;
  for (std::size_t row = 0; row < stages_.size(); ++row) {
    rows[count] = static_cast<std::uint32_t>(row);
    count += stages_[row] != kEliminated ? 1 : 0;
  }
  rows.resize(count);
  return rows;
}

ScanElim::Pass ScanElim::prepare() {
  synchronise();
  Pass pass;
  pass.rows = rowsInPlay();
  const std::size_t count = pass.rows.size();
  pass.means.reset(new double[count]);
  pass.uncertainties.reset(new double[count]);
  widths_.bringUpToDate(scanned_, ridge_, pass.rows, ridge_.theta(), pass.means.get());
  beta_ = eliminationRadius(featureBound_);
  double bestLower = -INFINITY;
  std::size_t best = count;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t row = pass.rows[i];
    const double mean = pass.means[i];
    const double u = beta_ * std::sqrt(std::max(0.0, widths_[row]));
    pass.means[i] = mean;
    pass.uncertainties[i] = u;
    // Stages only rise: an arm leaves a stage when its uncertainty falls below the stage's width.
    // Its stage s rises only when u <= 2^-(s + 1), a comparison, before stageFor is asked which.
    std::int8_t& stage = stages_[row];
    if (stage < maxStage_ && u <= kStageEdges[static_cast<std::size_t>(stage)]) {
      stage = static_cast<std::int8_t>(std::max<int>(stage, elimination_stages::stageFor(u, maxStage_)));
    }
    if (mean - u > bestLower) bestLower = mean - u, best = i;
  }
  countInnerProducts(count);
  if (best < count && bestLower > threshold_) {
    threshold_ = bestLower;
    hasWitness_ = true;
    witness_ = rowIds_[pass.rows[best]];
  }
  pass.first = maxStage_ + 1;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t row = pass.rows[i];
    if (pass.means[i] + pass.uncertainties[i] < threshold_ && !(hasWitness_ && rowIds_[row] == witness_)) {
      stages_[row] = kEliminated;
      ++eliminated_;
    } else {
      pass.first = std::min<int>(pass.first, stages_[row]);
    }
  }
  return pass;
}

Id ScanElim::chooseArm() {
  const Pass pass = prepare();
  // In the window of kStageWindow stages from the first stage in play, the arm of largest upper
  // bound (ties to the smaller id); and the size of the first stage.
  const int first = pass.first;
  std::size_t members = 0;
  std::size_t best = pass.rows.size();
  double bestUpper = -INFINITY;
  for (std::size_t i = 0; i < pass.rows.size(); ++i) {
    const std::size_t row = pass.rows[i];
    const int stage = stages_[row];
    if (stage == kEliminated || stage >= first + kStageWindow) continue;
    members += stage == first ? 1 : 0;
    const double upper = pass.means[i] + pass.uncertainties[i];
    if (best == pass.rows.size() || upper > bestUpper || (upper == bestUpper && rowIds_[row] < rowIds_[pass.rows[best]])) best = i, bestUpper = upper;
  }
  if (first > maxStage_) {
    // Unreachable: the witness is never eliminated, so some arm is in play; kept as a guard.
    ++randomPlays_;
    return scanned_.idAt(static_cast<std::size_t>(random_.uniformInt(scanned_.size())));
  }
  if (first == maxStage_) {
    // Algorithm 3's last stage: its arms are all within 2^-smax, any of them will do.
    ++randomPlays_;
    auto pick = static_cast<std::size_t>(random_.uniformInt(members));
    for (const std::uint32_t row : pass.rows) {
      if (stages_[row] == first && pick-- == 0) return rowIds_[row];
    }
  }
  return rowIds_[pass.rows[best]];
}

std::vector<Id> ScanElim::chooseArms(std::size_t count, const ArmFilter& /*filter*/, const Eligibility& eligible) {
  const Pass pass = prepare();
  // Arms in play as one arm at a time would take them: those of the window of kStageWindow stages
  // from the first eligible stage, then each later stage; within each by upper bound (largest
  // first), then id. Then, when they do not fill
  // the slate, eliminated eligible arms by upper bound, computed directly for them (O(K d^2) at worst,
  // only for such a call; stats().eliminatedPlays).
  struct Candidate {
    int stage;
    double value;
    Id id;
  };
  const auto order = [](const Candidate& a, const Candidate& b) {
    if (a.stage != b.stage) return a.stage < b.stage;
    if (a.value != b.value) return a.value > b.value;
    return a.id < b.id;
  };
  std::vector<Candidate> candidates;
  for (std::size_t i = 0; i < pass.rows.size(); ++i) {
    const std::size_t row = pass.rows[i];
    if (stages_[row] != kEliminated && scanned_.admits(eligible, row)) {
      candidates.push_back({stages_[row], pass.means[i] + pass.uncertainties[i], rowIds_[row]});
    }
  }
  int first = maxStage_ + 1;
  for (const Candidate& candidate : candidates) first = std::min(first, candidate.stage);
  for (Candidate& candidate : candidates) candidate.stage = std::max(candidate.stage, first + kStageWindow - 1);
  std::size_t taken = std::min(count, candidates.size());
  std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(taken), candidates.end(), order);
  std::vector<Id> chosen(taken);
  for (std::size_t i = 0; i < taken; ++i) chosen[i] = candidates[i].id;
  if (chosen.size() == count) return chosen;
  candidates.clear();
  const Vector& theta = ridge_.theta();
  for (std::size_t row = 0; row < stages_.size(); ++row) {
    if (stages_[row] != kEliminated || !scanned_.admits(eligible, row)) continue;
    const Eigen::Map<const Vector> x(scanned_.rowData(row), scanned_.dim());
    candidates.push_back({0, x.dot(theta) + beta_ * ridge_.inverseNorm(x), rowIds_[row]});
  }
  countInnerProducts(candidates.size());
  taken = std::min(count - chosen.size(), candidates.size());
  std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(taken), candidates.end(), order);
  for (std::size_t i = 0; i < taken; ++i) chosen.push_back(candidates[i].id);
  eliminatedPlays_ += taken;
  return chosen;
}

Json ScanElim::extraStats() const {
  std::vector<std::size_t> sizes(static_cast<std::size_t>(maxStage_) + 1, 0);
  std::size_t inPlay = 0;
  for (const std::int8_t stage : stages_) {
    if (stage == kEliminated) continue;
    ++sizes[static_cast<std::size_t>(stage)];
    ++inPlay;
  }
  return Json{{"search", "widths"},
              {"stageSizes", sizes},
              {"inPlay", inPlay},
              {"maxStage", maxStage_},
              {"radius", beta_},
              {"eta", eta_},
              {"threshold", std::isfinite(threshold_) ? Json(threshold_) : Json(nullptr)},
              {"eliminated", eliminated_},
              {"readmissions", readmissions_},
              {"randomPlays", randomPlays_},
              {"eliminatedPlays", eliminatedPlays_},
              {"arrivals", arrivals_},
              {"departures", departures_},
              {"perArmBytes", perArmBytes()}};
}

void ScanElim::saveFields(StateWriter& out) const {
  saveSubspaceLineage(out);
  out.f64(beta_);
  out.f64(threshold_);
  out.u8(hasWitness_ ? 1 : 0);
  out.u32(witness_);
  for (const std::uint64_t counter : {eliminated_, readmissions_, randomPlays_, eliminatedPlays_, arrivals_, departures_}) out.u64(counter);
  out.u32s(rowIds_.data(), rowIds_.size());
  for (const std::int8_t stage : stages_) out.u8(static_cast<std::uint8_t>(stage));
  out.u64(seenRevision_);
  out.u32s(arrived_.data(), arrived_.size());
  widths_.save(out);
}

void ScanElim::loadFields(StateReader& in) {
  loadSubspaceLineage(in);
  beta_ = in.f64();
  threshold_ = in.f64();
  const std::uint8_t hasWitness = in.u8();
  witness_ = in.u32();
  for (std::uint64_t* counter : {&eliminated_, &readmissions_, &randomPlays_, &eliminatedPlays_, &arrivals_, &departures_}) *counter = in.u64();
  in.check(std::isfinite(beta_) && beta_ >= 0.0, "radius is not a finite non-negative number");
  in.check(hasWitness <= 1, "bad witness flag");
  hasWitness_ = hasWitness == 1;
  in.check(hasWitness_ ? std::isfinite(threshold_) : threshold_ == -INFINITY, "threshold does not match its witness");
  // The row order the policy last saw: over a catalogue it may differ from the catalogue's now
  // (arms added or removed since), which the next call reconciles; ids must be unique for that.
  rowIds_ = in.u32s();
  in.check(std::unordered_set<Id>(rowIds_.begin(), rowIds_.end()).size() == rowIds_.size(), "an arm appears twice in the row order");
  in.check(in.remaining() >= rowIds_.size(), "the state holds fewer stages than arms");
  stages_.resize(rowIds_.size());
  bool witnessInPlay = false;
  for (std::size_t row = 0; row < rowIds_.size(); ++row) {
    const auto stage = static_cast<std::int8_t>(in.u8());
    in.check(stage >= kEliminated && stage <= maxStage_, "a stage is out of range");
    stages_[row] = stage;
    witnessInPlay = witnessInPlay || (rowIds_[row] == witness_ && stage != kEliminated);
  }
  in.check(!hasWitness_ || witnessInPlay, "the threshold's witness is not an arm in play");
  seenRevision_ = in.u64();
  in.check(catalogue_ || seenRevision_ == 0, "a policy over its own arms saw no catalogue's changes");
  arrived_ = in.u32s();
  in.check(!catalogue_ || arrived_.empty(), "a user over a catalogue is told of no arrivals");
  widths_.load(in, rowIds_.size());
  // Restored over a catalogue saved before changes the policy had seen (see LinUCB::loadFields):
  // the widths afresh, and every arm back in play with the threshold derived again.
  if (catalogue_ && seenRevision_ > catalogue_->revision()) {
    widths_.invalidate();
    std::fill(stages_.begin(), stages_.end(), std::int8_t{0});
    threshold_ = -INFINITY;
    hasWitness_ = false;
    seenRevision_ = 0;
  }
}

}  // namespace sublinear
