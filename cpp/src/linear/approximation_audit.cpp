#include "sublinear/linear/approximation_audit.hpp"

#include <algorithm>
#include <cmath>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/linear/linear_option_tables.hpp"

namespace sublinear {

ApproximationAudit::ApproximationAudit(const Json& options, std::size_t shortlist, std::uint64_t seed)
    : budget_(readOption(option_groups::approximationAudit(), options, "auditBudget")),
      targetMissRate_(readOption(option_groups::approximationAudit(), options, "targetMissRate")),
      maxShortlist_(static_cast<std::size_t>(readIntegerOption(option_groups::approximationAudit(), options, "maxShortlist",
                                                               static_cast<long long>(std::min<std::size_t>(64 * shortlist, 100000))))),
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
              {"auditInnerProducts", innerProducts_}};
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
}

void ApproximationAudit::load(StateReader& in) {
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
}

}  // namespace sublinear
