#include "sublinear/linear/sub_ts.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"

namespace sublinear {

namespace {
const double kSqrtTwo = std::sqrt(2.0);

int modelDimension(int dim, const Json& options) {
  return readBoolOption(option_groups::thompson(), options, "negativeRewardTransform") ? dim + 1 : dim;
}
}  // namespace

SubTS::SubTS(std::string type, const std::string& defaultIndex, int dim, const Json& options)
    : RidgePolicy(dim, options, modelDimension(dim, options)),
      type_(std::move(type)),
      transform_(readBoolOption(option_groups::thompson(), options, "negativeRewardTransform")),
      inflation_(readOption(option_groups::thompson(), options, "inflation")),
      shortlist_(static_cast<std::size_t>(readIntegerOption(option_groups::thompson(), options, "shortlist"))),
      auditBudget_(readOption(option_groups::thompson(), options, "auditBudget")),
      targetMissRate_(readOption(option_groups::thompson(), options, "targetMissRate")),
      maxShortlist_(static_cast<std::size_t>(readIntegerOption(option_groups::thompson(), options, "maxShortlist",
                                                               static_cast<long long>(std::min<std::size_t>(64 * shortlist_, 100000))))),
      auditRandom_(readSeedOption(option_groups::ridge(), options) ^ 0xA0D17A0D17ULL) {
  require(maxShortlist_ >= shortlist_, ErrorCode::InvalidArgument, "option 'maxShortlist' must be at least 'shortlist'");
  // Construction effort 16 instead of HnswIndex's 200: the graph is built with what its searches
  // save (the incremental build), so its cost decides when Sub-TS overtakes Linear TS in total
  // time. The shortlist is ranked exactly, and with M 16 the coarser graph kept Linear TS's regret
  // over 5 seeds on Gaussian and unit-norm arms at 10^5; M 8 (half the building) did not: one seed
  // in five stuck on a worse arm.
  const PolicyIndexSpec spec(options, defaultIndex, Json{{"efConstruction", 16}});
  index_ = spec.make(static_cast<std::size_t>(ridge_.dim()));
}

Vector SubTS::modelFeatures(const double* features) const {
  const Eigen::Map<const Vector> x(features, arms_.dim());
  if (!transform_) return x;
  Vector lifted(arms_.dim() + 1);
  lifted.head(arms_.dim()) = x / kSqrtTwo;
  lifted[arms_.dim()] = kSqrtTwo / 2.0;
  return lifted;
}

double SubTS::modelReward(double reward) const { return transform_ ? reward / 2.0 + 0.5 : reward; }

Vector SubTS::theta() const {
  if (!transform_) return ridge_.theta();
  return kSqrtTwo * ridge_.theta().head(arms_.dim());
}

void SubTS::onAddArms(const Id* ids, std::size_t count) {
  const auto modelDim = static_cast<std::size_t>(ridge_.dim());
  std::vector<float> vectors(count * modelDim);
  for (std::size_t i = 0; i < count; ++i) {
    const Vector x = modelFeatures(arms_.featuresOf(ids[i]));
    for (std::size_t j = 0; j < modelDim; ++j) vectors[i * modelDim + j] = static_cast<float>(x[static_cast<Eigen::Index>(j)]);
  }
  index_->add(ids, count, vectors.data(), vectors.size());
}

void SubTS::onRemoveArms(const Id* ids, std::size_t count) { index_->remove(ids, count); }

Id SubTS::chooseArm() {
  lastScale_ = inflation_ * (theoreticalRadius() ? adaptiveRadius(delta() / (4.0 * static_cast<double>(horizon())))
                                                  : practicalRadius(1.0));
  const Vector sampled = ridge_.sampleTheta(random_, lastScale_);
  std::vector<float> query(static_cast<std::size_t>(sampled.size()));
  for (Eigen::Index j = 0; j < sampled.size(); ++j) query[static_cast<std::size_t>(j)] = static_cast<float>(sampled[j]);
  SearchOptions searchOptions;
  searchOptions.shortlist = shortlist_;
  const std::uint64_t workBefore = index_->innerProducts();
  const SearchResult result = index_->search(query.data(), query.size(), 1, searchOptions);
  // Audit with probability auditBudget * (this search's work) / (a scan's work): on average the
  // audits cost auditBudget of the searches.
  if (auditBudget_ > 0.0 && index_->type() != "exact" && index_->size() > 0) {
    const double searchWork = static_cast<double>(index_->innerProducts() - workBefore);
    const double probability = auditBudget_ * searchWork / static_cast<double>(index_->size());
    if (auditRandom_.uniform() < probability) audit(query, result);
  }
  if (!result.ids.empty()) return result.ids.front();
  ++emptyQueries_;
  return arms_.idAt(static_cast<std::size_t>(random_.uniformInt(arms_.size())));
}

void SubTS::audit(const std::vector<float>& query, const SearchResult& answer) {
  const std::uint64_t workBefore = index_->innerProducts();
  const SearchResult exact = index_->searchExactly(query.data(), query.size(), 1);
  auditInnerProducts_ += index_->innerProducts() - workBefore;
  if (exact.ids.empty()) return;
  ++audits_;
  ++windowAudits_;
  const double found = answer.ids.empty() ? -INFINITY : answer.scores.front();
  const double best = exact.scores.front();
  // Scores are float inner products computed by the same kernel: equal unless another arm won.
  if (best > found) {
    ++misses_;
    ++windowMisses_;
    gapSum_ += std::isfinite(found) ? best - found : std::fabs(best);
  }
  if (shortlist_ >= maxShortlist_ || windowAudits_ < 5) return;
  // Raise the effort only when the misses are clearly above the target: the lower end of a
  // one-sided 95% Wilson interval of the miss rate of the audits since the last change.
  const double n = static_cast<double>(windowAudits_);
  const double rate = static_cast<double>(windowMisses_) / n;
  const double z = 1.645;
  const double lower = (rate + z * z / (2 * n) - z * std::sqrt(rate * (1 - rate) / n + z * z / (4 * n * n))) / (1 + z * z / n);
  if (lower > targetMissRate_) {
    shortlist_ = std::min(maxShortlist_, 2 * shortlist_);
    ++effortRaises_;
    windowAudits_ = 0;
    windowMisses_ = 0;
  }
}

void SubTS::saveFields(StateWriter& out) const {
  out.f64(lastScale_);
  out.u64(emptyQueries_);
  out.u64(shortlist_);
  out.random(auditRandom_);
  out.u64(audits_);
  out.u64(misses_);
  out.f64(gapSum_);
  out.u64(windowAudits_);
  out.u64(windowMisses_);
  out.u64(effortRaises_);
  out.u64(auditInnerProducts_);
  index_->save(out);
}

void SubTS::loadFields(StateReader& in) {
  lastScale_ = in.f64();
  in.check(std::isfinite(lastScale_) && lastScale_ >= 0.0, "sampling scale is not a finite non-negative number");
  emptyQueries_ = in.u64();
  const std::uint64_t shortlist = in.u64();
  // The shortlist only grows, from the option's value (what the constructor set) up to maxShortlist.
  in.check(shortlist >= shortlist_ && shortlist <= maxShortlist_, "shortlist is out of range");
  shortlist_ = static_cast<std::size_t>(shortlist);
  in.random(auditRandom_);
  audits_ = in.u64();
  misses_ = in.u64();
  gapSum_ = in.f64();
  windowAudits_ = in.u64();
  windowMisses_ = in.u64();
  effortRaises_ = in.u64();
  auditInnerProducts_ = in.u64();
  in.check(misses_ <= audits_ && windowMisses_ <= windowAudits_ && windowAudits_ <= audits_, "audit counters are inconsistent");
  in.check(std::isfinite(gapSum_) && gapSum_ >= 0.0, "audit gap sum is not a finite non-negative number");
  index_->load(in);
  // The index holds exactly the arms, each as the model sees it (onAddArms).
  in.check(index_->size() == arms_.size(), "the index does not hold the arms");
  for (std::size_t row = 0; row < arms_.size(); ++row) {
    const Id id = arms_.idAt(row);
    in.check(index_->contains(id), "arm " + std::to_string(id) + " is missing from the index");
    const Vector x = modelFeatures(arms_.rowData(row));
    const float* stored = index_->items().vectorOf(id);
    for (Eigen::Index j = 0; j < x.size(); ++j) {
      in.check(stored[j] == static_cast<float>(x[j]), "the index holds another vector for arm " + std::to_string(id));
    }
  }
}

Json SubTS::approximationStats() const {
  const double audits = static_cast<double>(audits_);
  const double missRate = audits_ == 0 ? 0.0 : static_cast<double>(misses_) / audits;
  const double meanGap = audits_ == 0 ? 0.0 : gapSum_ / audits;
  return Json{{"audited", auditBudget_ > 0.0 && index_->type() != "exact"},
              {"audits", audits_},
              {"misses", misses_},
              {"missRate", missRate},
              {"meanGap", meanGap},
              {"regretRisk", meanGap * static_cast<double>(selections())},
              {"effortRaises", effortRaises_},
              {"auditInnerProducts", auditInnerProducts_}};
}

Json SubTS::extraStats() const {
  Json index = index_->stats();
  return Json{{"index", index},
              {"searches", index.value("searches", 0)},
              {"scale", lastScale_},
              {"shortlist", shortlist_},
              {"emptyQueries", emptyQueries_},
              {"approximation", approximationStats()}};
}

}  // namespace sublinear
