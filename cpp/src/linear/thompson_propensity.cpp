// Choice probabilities of Thompson sampling (Linear TS and Sub-TS), for decide()'s propensities and
// off-policy evaluation: the probability that one posterior draw theta~ ranks an arm at a position
// has no closed form, so it is estimated by drawing. Only the scores of a few candidates are drawn,
// not theta~ against every arm: an arm wins a draw only if it ranks near the top, and the arms near
// the top are found by two searches of the index, one with the posterior mean and one with a draw.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "sublinear/linear/thompson_sampling.hpp"

namespace sublinear {

namespace {
// Up to this many eligible arms the estimate ranks all of them: it is then limited by its draws only.
constexpr std::size_t kEnumeratedCandidates = 256;
// Up to this many eligible arms the candidates come from an exact scan of them for both queries at
// once: a filtered page's few thousand eligible items (a category in stock in a price range) cost
// less so than two searches that each walk and read them.
constexpr std::size_t kScannedCandidates = 32768;
// The stream of the estimate's draws, derived from the policy's engine without advancing it, so that
// a decision draws what a selection would (the estimate's draws are not the next choice's).
constexpr std::uint64_t kPropensityStream = 0x70726f70656e7369;  // "propensi"
}  // namespace

std::vector<Id> ThompsonSampling::propensityCandidates(const std::vector<Id>& shown, std::size_t slateSize, const ArmFilter& filter,
                                            const Eligibility& eligible, std::optional<Eligibility>* indexEligible) {
  std::vector<Id> candidates = shown;
  if (eligible.count() <= kEnumeratedCandidates) {
    for (std::size_t row = 0; row < arms_.size(); ++row) {
      if (arms_.admits(eligible, row)) candidates.push_back(arms_.idAt(row));
    }
  } else {
    // The searches' width: the shortlist Sub-TS ranks exactly each step, widened by the slate.
    const std::size_t width = shortlist_ + slateSize;
    SearchOptions filters;
    filters.exclude = filter.exclude;
    static_cast<AttributeFilter&>(filters) = filter;
    filters.keptEligibility = indexEligible;
    // The posterior mean as the index's query: in the arms' coordinates when the model is in their subspace.
    const Vector mean = basis() ? basis()->lift(ridge_.theta()) : ridge_.theta();
    std::vector<float> meanQuery(static_cast<std::size_t>(mean.size()));
    for (Eigen::Index j = 0; j < mean.size(); ++j) meanQuery[static_cast<std::size_t>(j)] = static_cast<float>(mean[j]);
    MipsIndex& searched = index();
    const std::uint64_t workBefore = searched.innerProducts();
    std::vector<SearchResult> found;
    if (scanCatalogue_ || (eligible.filters() && eligible.count() <= kScannedCandidates)) {
      // Both queries in one exact pass: the eligible rows are walked and read once, not twice.
      found = searched.searchExactlyEach({meanQuery.data(), lastQuery_.data()}, meanQuery.size(), width, filters);
    } else {
      for (const std::vector<float>* query : {&meanQuery, &lastQuery_}) found.push_back(searched.search(query->data(), query->size(), width, filters));
    }
    for (const SearchResult& result : found) candidates.insert(candidates.end(), result.ids.begin(), result.ids.end());
    if (catalogue_) catalogueInnerProducts_ += searched.innerProducts() - workBefore;
  }
  // The shown arms first (their positions are looked up by index), each arm once.
  std::vector<Id> unique;
  unique.reserve(candidates.size());
  std::unordered_set<Id> seen;
  seen.reserve(candidates.size());
  for (const Id id : candidates) {
    if (seen.insert(id).second) unique.push_back(id);
  }
  return unique;
}

void ThompsonSampling::rankDraws(const std::vector<Id>& candidates, std::size_t n, std::size_t draws,
                      const std::function<void(const std::vector<Eigen::Index>&)>& visit) {
  const auto c = static_cast<Eigen::Index>(candidates.size());
  const int modelDim = ridge_.dim();
  Matrix rows(c, modelDim);
  for (Eigen::Index i = 0; i < c; ++i) rows.row(i) = modelFeatures(arms_.featuresOf(candidates[static_cast<std::size_t>(i)])).transpose();
  const Vector mean = rows * ridge_.theta();
  // The scale of the last draw (lastScale_), as the selection used.
  const Matrix whitened = lastScale_ * ridge_.whitenRows(rows);
  countInnerProducts(static_cast<std::uint64_t>(c) * (1 + draws));
  std::vector<Eigen::Index> order(static_cast<std::size_t>(c));
  const auto top = static_cast<std::ptrdiff_t>(std::min(n, candidates.size()));
  // Draws in blocks: one matrix product scores a block (far faster than a product per draw), and a
  // block's normals stay small at large d.
  constexpr std::size_t kBlock = 64;
  Matrix xi;
  Matrix scores;
  Random random = random_.derived(kPropensityStream);
  for (std::size_t first = 0; first < draws; first += kBlock) {
    const auto block = static_cast<Eigen::Index>(std::min(kBlock, draws - first));
    xi.resize(modelDim, block);
    random.fillNormal(xi.data(), static_cast<std::size_t>(xi.size()));
    scores.noalias() = whitened * xi;
    scores.colwise() += mean;
    for (Eigen::Index draw = 0; draw < block; ++draw) {
      const auto score = scores.col(draw);
      if (top == 1) {
        // The common case, one arm: its best candidate (the first of equal ones), without a sort.
        Eigen::Index best = 0;
        for (Eigen::Index i = 1; i < c; ++i) {
          if (score[i] > score[best]) best = i;
        }
        order[0] = best;
      } else {
        std::iota(order.begin(), order.end(), Eigen::Index{0});
        // Ties (equal arms) are broken by the candidates' order.
        std::partial_sort(order.begin(), order.begin() + top, order.end(),
                          [&](Eigen::Index a, Eigen::Index b) { return score[a] > score[b] || (score[a] == score[b] && a < b); });
      }
      visit(order);
    }
  }
}

void ThompsonSampling::estimateChoiceProbabilities(const std::vector<Id>& shown, bool shownByPolicy, const ArmFilter& filter,
                                        const Eligibility& eligible, std::size_t draws, std::vector<double>& p,
                                        std::vector<double>& se, std::vector<double>& prefix) {
  const std::size_t n = shown.size();
  std::vector<std::size_t> hits(n, 0);
  // prefixHits[j]: the draws that showed shown[0..j] at positions 0 to j.
  std::vector<std::size_t> prefixHits(n, 0);
  // The choice just made kept the index's eligibility under this filter (choiceEligibility_): the
  // candidates' searches walk none of it again. Emptied after: the decision ends here.
  const std::vector<Id> candidates = propensityCandidates(shown, n, filter, eligible, &choiceEligibility_);
  choiceEligibility_.reset();
  rankDraws(candidates, n, draws, [&](const std::vector<Eigen::Index>& order) {
    bool samePrefix = true;
    for (std::size_t j = 0; j < n; ++j) {
      const bool same = order[j] == static_cast<Eigen::Index>(j);
      if (same) ++hits[j];
      samePrefix = samePrefix && same;
      if (samePrefix) ++prefixHits[j];
    }
  });
  // When the policy itself drew `shown`, its draw is one more sample, and one that showed it: the
  // estimate is then never 0 for an arm it chose, whose propensity IPS divides by.
  const double extra = shownByPolicy ? 1.0 : 0.0;
  const double samples = static_cast<double>(draws) + extra;
  for (std::size_t j = 0; j < n; ++j) {
    p[j] = (static_cast<double>(hits[j]) + extra) / samples;
    se[j] = std::sqrt(p[j] * (1.0 - p[j]) / samples);
    prefix[j] = (static_cast<double>(prefixHits[j]) + extra) / samples;
  }
}

std::vector<std::pair<Id, double>> ThompsonSampling::choiceDistribution(std::size_t position, const ArmFilter& filter, std::size_t draws) {
  const Eligibility eligible = arms_.eligibility(filter);
  if (eligible.count() <= position) return {};
  drawQuery();  // the scale and the draw whose top arms join the candidates
  const std::vector<Id> candidates = propensityCandidates({}, position + 1, filter, eligible, nullptr);
  std::unordered_map<Eigen::Index, std::size_t> wins;
  rankDraws(candidates, position + 1, draws, [&](const std::vector<Eigen::Index>& order) { ++wins[order[position]]; });
  std::vector<std::pair<Id, double>> distribution;
  distribution.reserve(wins.size());
  for (const auto& [index, count] : wins) {
    distribution.emplace_back(candidates[static_cast<std::size_t>(index)], static_cast<double>(count) / static_cast<double>(draws));
  }
  // In arm order: the distribution does not depend on the hash map's iteration order.
  std::sort(distribution.begin(), distribution.end());
  return distribution;
}

}  // namespace sublinear
