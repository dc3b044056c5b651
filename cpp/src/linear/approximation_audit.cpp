#include "sublinear/linear/approximation_audit.hpp"

#include <algorithm>
#include <cmath>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/linear/linear_option_tables.hpp"
#include "sublinear/mips/top_k.hpp"

namespace sublinear {

namespace {
// The audited search's exclusions and attribute conditions (its shortlist and recalled arms do not
// change what the exact answer is).
void saveAuditedFilters(const SearchOptions& filters, StateWriter& out) {
  out.u32s(filters.exclude.data(), filters.exclude.size());
  static_cast<const AttributeFilter&>(filters).save(out);
}

SearchOptions loadAuditedFilters(StateReader& in) {
  SearchOptions filters;
  filters.exclude = in.u32s();
  static_cast<AttributeFilter&>(filters) = AttributeFilter::load(in);
  return filters;
}
}  // namespace

ApproximationAudit::ApproximationAudit(const Json& options, std::size_t shortlist, std::uint64_t seed)
    : budget_(readOption(option_groups::approximationAudit(), options, "auditBudget")),
      targetMissRate_(readOption(option_groups::approximationAudit(), options, "targetMissRate")),
      maxShortlist_(static_cast<std::size_t>(readIntegerOption(option_groups::approximationAudit(), options, "maxShortlist",
                                                               static_cast<long long>(std::min<std::size_t>(64 * shortlist, 100000))))),
      slice_(readOption(option_groups::approximationAudit(), options, "auditSlice")),
      random_(seed ^ 0xA0D17A0D17ULL) {
  require(maxShortlist_ >= shortlist, ErrorCode::InvalidArgument, "option 'maxShortlist' must be at least 'shortlist'");
}

bool ApproximationAudit::due(const MipsIndex& index, std::uint64_t approximateWorkBefore) {
  if (!active(index) || !index.approximates() || index.size() == 0) return false;
  // Probability budget x (this search's approximate work) / (an exact answer's work): on average
  // the audits cost `budget` of the work that can miss. An HnswIndex still building scans its
  // waiting items exactly; counting that scan made every step pay a tenth of a scan for audits of
  // answers mostly exact, and kept Sub-TS behind Linear TS at 10^6 arms
  // (bench/results/design-measurements.md).
  const double searchWork = static_cast<double>(index.approximateInnerProducts() - approximateWorkBefore);
  // The slices' measure: a mean that follows the index as it grows (saved, so that a loaded policy
  // slices as the saved one would).
  meanSearchWork_ = meanSearchWork_ == 0.0 ? searchWork : meanSearchWork_ + (searchWork - meanSearchWork_) / kWorkMemory;
  double probability = budget_ * searchWork / static_cast<double>(index.size());
  // A floor whatever the budget allows: at high d and K a search's work is a small fraction of a
  // scan's, and Sub-TS over 60,000 Fashion-MNIST images (d = 784) made 3 audits in 4,000 steps, too
  // few to estimate a miss rate, and none once its sampled directions had concentrated where the
  // graph missed. The first kEarlyAudits come at kEarlyAuditRate, audit a + 1 after that at
  // kEarlyAuditRate kEarlyAudits / a = 1 / (8 a): a run of n searches gets about sqrt(n / 4) audits
  // (32 in 4,000, 500 in 10^6), and they never cost more than 1/64 of an exact scan a step.
  probability = std::max(probability, floorRate());
  return random_.uniform() < probability;
}

double ApproximationAudit::floorRate() const {
  if (audits_ < kEarlyAudits) return kEarlyAuditRate;
  return kEarlyAuditRate * static_cast<double>(kEarlyAudits) / static_cast<double>(audits_);
}

std::size_t ApproximationAudit::record(double found, double best, std::uint64_t work, std::size_t shortlist) {
  innerProducts_ += work;
  ++audits_;
  ++windowAudits_;
  // Scores are float inner products computed by the same kernel: equal unless another item won.
  if (best > found) {
    ++misses_;
    ++windowMisses_;
    gapSum_ += std::isfinite(found) ? best - found : std::fabs(best);
  }
  if (shortlist >= maxShortlist_ || windowMisses_ < 2) return shortlist;
  // Raise the effort when the misses are clearly above the target, however few the audits: the lower
  // end of a one-sided 95% Wilson interval of the miss rate of the audits since the last change
  // (3 misses in 3 audits: 0.53), from a second miss on (1 in 1 reads 0.27, a single event).
  const double n = static_cast<double>(windowAudits_);
  const double rate = static_cast<double>(windowMisses_) / n;
  const double z = 1.645;
  const double lower = (rate + z * z / (2 * n) - z * std::sqrt(rate * (1 - rate) / n + z * z / (4 * n * n))) / (1 + z * z / n);
  if (lower <= targetMissRate_) return shortlist;
  ++effortRaises_;
  windowAudits_ = 0;
  windowMisses_ = 0;
  return std::min(maxShortlist_, 2 * shortlist);
}

std::size_t ApproximationAudit::sliceRows(const MipsIndex& index) const {
  const std::size_t floor = (kMinimumSliceFloats + index.dim() - 1) / index.dim();
  const double rows = std::ceil(slice_ * meanSearchWork_);
  // A slice beyond the store is the whole store (and keeps the conversion in range).
  if (rows >= static_cast<double>(index.size())) return std::max<std::size_t>(index.size(), 1);
  return std::max(floor, static_cast<std::size_t>(rows));
}

void ApproximationAudit::offer(const MipsIndex& index, bool drawn, const std::vector<float>& query, const SearchOptions& filters,
                               float found, std::uint32_t source) {
  if (pending_) {
    if (drawn) owed_ = std::min(owed_ + 1, kMostOwedAudits);
    return;
  }
  if (!drawn) {
    // An owed audit goes to a search that could miss, as a drawn one does (due()'s conditions).
    if (owed_ == 0 || !active(index) || !index.approximates() || index.size() == 0) return;
    --owed_;
  }
  Pending audit;
  audit.query = query;
  audit.filters.exclude = filters.exclude;
  static_cast<AttributeFilter&>(audit.filters) = filters;
  audit.found = found;
  audit.source = source;
  audit.rowsAhead = index.size();
  pending_ = std::move(audit);
}

std::optional<Id> ApproximationAudit::advance(MipsIndex& index, std::size_t& shortlist) {
  if (!pending_) return std::nullopt;
  Pending& audit = *pending_;
  // From the last row down: removal moves only the last row, into a hole below it, so an item held
  // throughout is never moved past the scan (see the header).
  const std::size_t last = static_cast<std::size_t>(std::min<std::uint64_t>(audit.rowsAhead, index.size()));
  const std::size_t first = last - std::min(last, sliceRows(index));
  const std::uint64_t workBefore = index.innerProducts();
  const SearchResult part = index.searchRowsExactly(audit.query.data(), audit.query.size(), 1, first, last, audit.filters);
  audit.work += index.innerProducts() - workBefore;
  if (!part.ids.empty() && (!audit.hasBest || TopK::better(part.scores.front(), part.ids.front(), audit.best, audit.bestId))) {
    audit.hasBest = true;
    audit.best = part.scores.front();
    audit.bestId = part.ids.front();
  }
  audit.rowsAhead = first;
  if (first > 0) return std::nullopt;
  const Pending done = std::move(audit);
  pending_.reset();
  // Nothing eligible left to compare with: no audit, as when one call's exact search finds nothing.
  if (!done.hasBest) return std::nullopt;
  shortlist = record(done.found, done.best, done.work, shortlist);
  if (done.best > done.found) return done.bestId;
  return std::nullopt;
}

Json ApproximationAudit::stats(bool audited, std::uint64_t selections) const {
  const double audits = static_cast<double>(audits_);
  const double missRate = audits_ == 0 ? 0.0 : static_cast<double>(misses_) / audits;
  const double meanGap = audits_ == 0 ? 0.0 : gapSum_ / audits;
  return Json{{"audited", audited},
              {"audits", audits_},
              {"misses", misses_},
              {"missRate", missRate},
              {"meanGap", meanGap},
              {"regretRisk", meanGap * static_cast<double>(selections)},
              {"effortRaises", effortRaises_},
              {"auditInnerProducts", innerProducts_},
              {"auditPending", pending_.has_value()}};
}

void ApproximationAudit::save(StateWriter& out) const {
  out.random(random_);
  out.u64(audits_);
  out.u64(misses_);
  out.f64(gapSum_);
  out.u64(windowAudits_);
  out.u64(windowMisses_);
  out.u64(effortRaises_);
  out.u64(innerProducts_);
  out.f64(meanSearchWork_);
  out.u64(owed_);
  out.u8(pending_ ? 1 : 0);
  if (!pending_) return;
  const Pending& audit = *pending_;
  out.f32s(audit.query.data(), audit.query.size());
  saveAuditedFilters(audit.filters, out);
  out.f32(audit.found);
  out.u32(audit.source);
  out.u64(audit.rowsAhead);
  out.u8(audit.hasBest ? 1 : 0);
  out.f32(audit.best);
  out.u32(audit.bestId);
  out.u64(audit.work);
}

void ApproximationAudit::load(StateReader& in, std::size_t queryDim) {
  in.random(random_);
  audits_ = in.u64();
  misses_ = in.u64();
  gapSum_ = in.f64();
  windowAudits_ = in.u64();
  windowMisses_ = in.u64();
  effortRaises_ = in.u64();
  innerProducts_ = in.u64();
  in.check(misses_ <= audits_ && windowMisses_ <= windowAudits_ && windowAudits_ <= audits_, "audit counters are inconsistent");
  in.check(std::isfinite(gapSum_) && gapSum_ >= 0.0, "audit gap sum is not a finite non-negative number");
  meanSearchWork_ = in.f64();
  in.check(std::isfinite(meanSearchWork_) && meanSearchWork_ >= 0.0, "audit search work is not a finite non-negative number");
  owed_ = in.u64();
  in.check(owed_ <= kMostOwedAudits, "too many owed audits");
  const std::uint8_t pending = in.u8();
  in.check(pending <= 1, "bad pending audit flag");
  pending_.reset();
  if (pending == 0) return;
  in.check(sliced(), "a pending audit of a policy that audits in one call");
  Pending audit;
  audit.query = in.f32s();
  in.check(audit.query.size() == queryDim, "a pending audit's query has another dimension than the index");
  for (const float value : audit.query) in.check(std::isfinite(value), "a pending audit's query is not finite");
  audit.filters = loadAuditedFilters(in);
  audit.found = in.f32();
  in.check(!std::isnan(audit.found) && audit.found != INFINITY, "a pending audit's answer score is not a score");
  audit.source = in.u32();
  audit.rowsAhead = in.u64();
  const std::uint8_t hasBest = in.u8();
  in.check(hasBest <= 1, "bad pending audit best flag");
  audit.hasBest = hasBest == 1;
  audit.best = in.f32();
  in.check(std::isfinite(audit.best), "a pending audit's best score is not finite");
  audit.bestId = in.u32();
  audit.work = in.u64();
  pending_ = std::move(audit);
}

}  // namespace sublinear
