#pragma once

#include <functional>
#include <memory>

#include "sublinear/linear/approximation_audit.hpp"
#include "sublinear/linear/arm_subspace.hpp"
#include "sublinear/linear/policy_index.hpp"
#include "sublinear/linear/ridge_policy.hpp"

namespace sublinear {

// Linear Thompson sampling over a MIPS index: Sub-TS (Yang et al., arXiv:2103.02729, Algorithm 4
// with the shortlist construction of section 7) over an approximate index, Linear TS (Abeille and
// Lazaric 2017) over an exact scan (SubTS and LinTS name the two). Each step:
// draw theta~ = theta^ + v V^-1/2 xi (Abeille and Lazaric 2017, xi ~ N(0, I)), ask the MIPS index for
// `shortlist` candidates of largest x^T theta~ and play the best of them by exact inner product.
// Arms are added to and deleted from the index as the set changes; nothing per step is O(K)
// beyond what the index does. A slate of k is one draw's top k (searched with a shortlist k - 1
// longer); filters go to the index's search, which returns only eligible arms.
//
// Options (besides RidgePolicy's lambda, delta, noise, bound, horizon, beta, seed):
//   inflation (1)    v = inflation * beta_t(delta / (4 T)), beta_t as in LinUCB (or v = inflation * beta)
//   shortlist (30)   p, the candidates retrieved from the index and ranked exactly   (integer >= 1)
//   index     any makeMipsIndex spec; an hnsw spec without M or efConstruction gets graphDefaults
//             (below). The default index is the option table's (Sub-TS: an hnsw graph, LinTS: an
//             exact scan; cpp/src/linear/linear_option_tables.cpp)
//   negativeRewardTransform (false)  the paper's extension for a negative best reward (section 6):
//            the model sees x' = [x / sqrt 2, sqrt 2 / 2] and r' = r / 2 + 1 / 2, so that the best
//            expected reward is positive; theta() still reports the estimate in the original
//            coordinates (sqrt 2 times the first d entries of theta'^).
// If the index returns no candidate (an approximate index may), a uniformly random arm is played
// and counted in stats().emptyQueries.
//
// The approximation is measured online (any index but "exact", see ApproximationAudit): on a
// random fraction of steps the index's answer for theta~ is checked against an exact scan.
// stats().approximation reports the audits, the misses (the scan found a better arm), the miss
// rate, the mean score gap <x*, theta~> - <x, theta~> over audits, and regretRisk = meanGap *
// selections (meanGap averages over all audits, so missRate is already in it), the sampled-score
// loss the approximation is estimated to have cost so far. When misses are too frequent the
// shortlist doubles: more candidates means more search effort for every index type. An audit's
// exact scan runs a slice per later step (ApproximationAudit, option auditSlice), so an audited
// step plays the index's answer (with auditSlice 0 the scan runs at once and the step plays the
// exact answer); when the scan completes, the arms that audits found beating the index's answer (the
// last kRecalled of them) are ranked with every later search's candidates (SearchOptions::alsoRank):
// Thompson sampling's queries concentrate as the posterior does, so a graph that misses the best
// arm for one query misses it for the next thousands, and audits, which cost a budgeted fraction of
// the searches' work, come rarely once the graph is complete (thousands of steps apart at 10^5
// arms). Recalling the winner ends such a run of misses at the first audit that sees it.
//   auditBudget (0.1), targetMissRate (0.05), maxShortlist (64 x shortlist, at most 100,000), auditSlice (8)
//
// With their own arms, Linear TS and Sub-TS may learn in the arms' principal subspace (ArmSubspace):
// the model is theta_r in modelDim dimensions over z = B^T x, the index keeps the arms as they are
// and is queried with B theta~_r, theta() reports B theta^_r. The basis is fitted to the first batch
// of arms and again whenever the arms doubled or lost half since (the model moves with it).
//   subspace ("auto": "arms" above 64 dimensions or when modelDim or subspaceEnergy is given, "none"
//            otherwise and with prior or negativeRewardTransform, which are in d dimensions)
//   modelDim (min(d, 256)), subspaceEnergy (0.6): see ArmSubspace; stats().subspace when in use.
//
// Over a catalogue the subspace is the catalogue's (Catalogue::armSubspace): one basis of its arms
// for every user, fitted at the first need of a user that learns in it and refitted by the same
// rule, so modelDim and subspaceEnergy are the catalogue's options. A user gives `subspace` ('auto':
// 'arms' above 64 dimensions or when the catalogue names modelDim or subspaceEnergy, 'none' with a
// prior); a user's modelDim or subspaceEnergy other than the catalogue's is INVALID_ARGUMENT (one
// basis cannot be fitted to two choices, and a user silently learning in another dimension than it
// asked for would be worse). The user's model records the basis version it is in and, at its next
// call after a refit, moves through the catalogue's transitions M_v = B_v^T B_{v-1} as a policy
// over its own arms moves at its refit; its sampled theta is lifted by the catalogue's basis to
// query the catalogue's index. Per user: the model's 3 modelDim^2 doubles, whatever d and K.
class ThompsonSampling : public RidgePolicy {
 public:
  // How many arms that beat an audited answer are recalled (stats().approximation.recalledArms).
  static constexpr std::size_t kRecalled = 8;
  // Sub-TS's graph: an hnsw index whose spec leaves them out gets M kCoarseGraphLinks up to
  // kCoarseGraphMaxDimension model dimensions, kGraphLinks above, and efConstruction
  // kGraphConstruction (see the constructor for why). The one source of these defaults: the option
  // tables' text (graphDefaultsText) is made from them.
  static constexpr int kCoarseGraphLinks = 8;
  static constexpr int kGraphLinks = 16;
  static constexpr int kCoarseGraphMaxDimension = 32;
  static constexpr int kGraphConstruction = 16;
  // The incremental graph's build credit (HnswIndex's buildCredit, in scans per search). HnswIndex
  // overcounts a visit to a cached graph, so with credit 1 Sub-TS's steps stayed well under the 2x
  // bound and its graph was complete late; 1.25 kept the bound in every run of bench/horizon.mjs at
  // K = 10^5 and completes the graph sooner (bench/results/design-measurements.md).
  static constexpr double kBuildCredit = 1.25;
  // Whether `options` ask for a model in the arms' subspace (INVALID_ARGUMENT for contradictions),
  // and the dimension of the model they make (d + 1 with negativeRewardTransform, modelDim with a
  // subspace, else d): the ridge state a saved policy holds.
  static bool usesSubspace(int dim, const Json& options);
  static int modelDimension(int dim, const Json& options);
  // Over a catalogue: RidgePolicy::usesSubspaceOver and modelDimensionOver (the rule above, with the
  // catalogue's modelDim or subspaceEnergy counting as given).

  // The options an "hnsw" index takes from Sub-TS when its spec leaves them out, for a model of
  // `modelDim` dimensions: the catalogue's index takes them too.
  static Json graphDefaults(int modelDim);
  // The default index those make, as the option tables describe it (Sub-TS's and the catalogue's
  // `index`): "{ type: 'hnsw', M: 8 (16 above 32 dimensions), efConstruction: 16 }".
  static const char* graphDefaultsText();
  std::string type() const override { return type_; }
  Vector theta() const override;

  // Over a catalogue Sub-TS builds the catalogue's index (the work is shared by every user), and
  // Linear TS, which scans, has nothing to build.
  std::size_t buildIndex(std::size_t maxItems) override { return scanCatalogue_ ? 0 : index().build(maxItems); }
 protected:
  // With its own arms and an index of type `defaultIndex` unless the options name one.
  ThompsonSampling(std::string type, const std::string& defaultIndex, int dim, const Json& options);
  // A user over a catalogue: it searches the catalogue's index with its own theta~ (recalled arms
  // and audits as with its own index), or scans the catalogue's rows exactly (scanCatalogue: Linear
  // TS, whatever index the catalogue keeps). The index's vectors are the catalogue's features, so
  // negativeRewardTransform, which would change them, is refused (INVALID_ARGUMENT), as is `index`.
  ThompsonSampling(std::string type, std::shared_ptr<Catalogue> catalogue, bool scanCatalogue, const Json& options);

  void onAddArms(const Id* ids, std::size_t count) override;
  void onRemoveArms(const Id* ids, std::size_t count) override;
  Id chooseArm() override;
  std::vector<Id> chooseArms(std::size_t count, const ArmFilter& filter, const Eligibility& eligible) override;
  // The propensity of decide() (thompson_propensity.cpp): the probability that a draw shows an arm,
  // estimated by drawing `draws` scores of the candidates that can win from the posterior.
  bool randomisedChoice() const override { return true; }
  void prepareChoice() override { choiceEligibility_.reset(); }
  std::vector<std::pair<Id, double>> choiceDistribution(std::size_t position, const ArmFilter& filter,
                                                        std::size_t draws) override;
  void estimateChoiceProbabilities(const std::vector<Id>& shown, bool shownByPolicy, const ArmFilter& filter,
                                   const Eligibility& eligible, std::size_t draws, std::vector<double>& p,
                                   std::vector<double>& se, std::vector<double>& prefix) override;
  Json extraStats() const override;
  std::uint64_t indexInnerProducts() const override;
  Vector modelFeatures(const double* features) const override;
  double modelReward(double reward) const override;
  // The last scale, the raised shortlist, the audits' random stream and counters, then the index.
  void saveFields(StateWriter& out) const override;
  void loadFields(StateReader& in) override;

 private:
  // The arm's model features as the index stores them (float), written to out (ridge_.dim() floats).
  void indexVector(const double* features, float* out) const;
  // An audit in one call (auditSlice 0): checks the index's answer against an exact scan (of the
  // top k under the same filters), records the outcome of the top arm, and raises the shortlist when
  // misses are too frequent; returns the exact answer.
  SearchResult audit(const std::vector<float>& query, const SearchResult& answer, std::size_t k, const SearchOptions& filters);
  // An arm that beat an audited answer joins the recalled ones (latest first, at most kRecalled).
  void recall(Id winner);
  // Fits the subspace to the arms and moves the model to the new basis.
  void fitSubspace();
  // The basis the model is in: the policy's own, the catalogue's (current once syncSubspace ran), or null.
  const ArmSubspace* basis() const;
  // theta~ for this step as the index's query (its scale in lastScale_, the query in lastQuery_).
  std::vector<float> drawQuery();
  // The arms a propensity estimate ranks (thompson_propensity.cpp).
  // `indexEligible`: the index's eligibility under `filter` kept by the choice just made, or null.
  std::vector<Id> propensityCandidates(const std::vector<Id>& shown, std::size_t slateSize, const ArmFilter& filter,
                                       const Eligibility& eligible, std::optional<Eligibility>* indexEligible);
  // Draws the scores of `candidates` `draws` times from the posterior at the last draw's scale and
  // calls visit(order) with the candidates' indices whose first n are that draw's top n, best first.
  // The draws come from a stream derived from the policy's engine, which they leave as it was.
  void rankDraws(const std::vector<Id>& candidates, std::size_t n, std::size_t draws,
                 const std::function<void(const std::vector<Eigen::Index>&)>& visit);

  // The index searched: index_, or the catalogue's.
  MipsIndex& index() { return index_ ? *index_ : catalogue_->index(); }
  const MipsIndex& index() const { return index_ ? *index_ : catalogue_->index(); }
  // The search of one step: the index's shortlist (and recalled arms), or, for Linear TS over a
  // catalogue, the exact scan of the catalogue's rows whatever its index.
  // A slate of k searches for k with a shortlist k - 1 longer; the filters go to the index.
  // `indexEligible`: where the index keeps the filter's eligibility for later searches, or null.
  SearchResult search(const std::vector<float>& query, std::size_t k, const ArmFilter& filter,
                      std::optional<Eligibility>* indexEligible = nullptr);

  std::string type_;
  bool transform_;
  double inflation_;
  std::size_t shortlist_;
  // The policy's own index; null over a catalogue.
  std::unique_ptr<MipsIndex> index_;
  // Linear TS over a catalogue: the baseline scans every arm exactly instead of searching the index.
  bool scanCatalogue_ = false;
  // Over a catalogue: the work of this user's searches of the shared index (the index's own
  // counters add up every user's).
  std::uint64_t catalogueInnerProducts_ = 0;
  double lastScale_ = 0.0;
  // The last draw: a propensity estimate searches the arms it ranks first (not saved: decide() uses
  // it right after the selection that drew it).
  std::vector<float> lastQuery_;
  // A decision's filter as the index sees it, kept by its choice for its propensities' candidates
  // (the same page filter: its eligible rows walked once); emptied before every choice and after
  // the estimate, so it never outlives the decision or meets a changed index.
  std::optional<Eligibility> choiceEligibility_;
  std::uint64_t emptyQueries_ = 0;
  ApproximationAudit audit_;
  // The arms' principal subspace the model learns in; null when it learns in all d dimensions.
  std::unique_ptr<ArmSubspace> subspace_;
  std::vector<Id> recalled_;  // arms that beat an audited answer, latest first (at most kRecalled)
};

}  // namespace sublinear
