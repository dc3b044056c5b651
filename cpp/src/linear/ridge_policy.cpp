#include "sublinear/linear/ridge_policy.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sublinear/core/deterministic_math.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/linear/linear_option_tables.hpp"
#include "sublinear/linear/saved_arms.hpp"

namespace sublinear {

namespace {
// readStringOption refuses anything but the table's choices, "practical" and "theoretical".
bool readTheoretical(const Json& options) { return readStringOption(option_groups::ridge(), options, "radius") == "theoretical"; }

// Refuses what makes no sense over a catalogue; returns it (non-null).
std::shared_ptr<Catalogue> checkedCatalogue(std::shared_ptr<Catalogue> catalogue, const Json& options) {
  require(catalogue != nullptr, ErrorCode::InvalidArgument, "option 'catalogue' must be a Catalogue");
  require(!(options.is_object() && options.contains("dim")), ErrorCode::InvalidArgument,
          "option 'dim' is the catalogue's over a catalogue: leave it out");
  return catalogue;
}
}  // namespace

RidgePolicy::RidgePolicy(std::shared_ptr<Catalogue> catalogue, const Json& options, int modelDim, RidgeRegression::Form form)
    : RidgePolicy(nullptr, checkedCatalogue(std::move(catalogue), options), options, modelDim, form) {}

RidgePolicy::RidgePolicy(int dim, const Json& options, int modelDim, RidgeRegression::Form form)
    : RidgePolicy(std::make_unique<ArmSet>(dim), nullptr, options, modelDim, form) {}

RidgePolicy::RidgePolicy(std::unique_ptr<ArmSet> ownArms, std::shared_ptr<Catalogue> catalogue, const Json& options,
                         int modelDim, RidgeRegression::Form form)
    : ownArms_(std::move(ownArms)),
      catalogue_(std::move(catalogue)),
      arms_(ownArms_ != nullptr ? *ownArms_ : catalogue_->arms()),
      random_(readSeedOption(option_groups::ridge(), options)),
      delta_(readOption(option_groups::ridge(), options, "delta")),
      theoretical_(readTheoretical(options)),
      noise_(readOption(option_groups::ridge(), options, "noise")),
      bound_(readOption(option_groups::ridge(), options, "bound")),
      horizon_(readIntegerOption(option_groups::ridge(), options, "horizon")),
      fixedBeta_(isGiven(options, "beta")),
      beta_(readOption(option_groups::ridge(), options, "beta")),
      explore_(readOption(option_groups::decisions(), options, "explore")),
      propensityDraws_(static_cast<std::size_t>(readIntegerOption(option_groups::decisions(), options, "propensityDraws"))),
      ledger_(static_cast<std::size_t>(readIntegerOption(option_groups::decisions(), options, "maxPending")), arms_.dim()),
      model_(modelDim, arms_.dim(), options, form, *this),
      ridge_(model_.regression()) {}

Vector RidgePolicy::modelFeatures(const double* features) const {
  if (catalogueSubspace_) return catalogueProjection(features);
  // The projection that made the arm's projected row: an update sees the bits its row has.
  if (projected_) return projected_->project(features);
  return Eigen::Map<const Vector>(features, arms_.dim());
}

Vector RidgePolicy::catalogueProjection(const double* features) const {
  Vector z(catalogue_->subspaceModelDim());
  catalogue_->project(features, z.data());
  return z;
}

bool RidgePolicy::usesSubspaceOver(const Catalogue& catalogue, const Json& options) {
  // One basis serves every user: a user may repeat the catalogue's choice, not make another.
  if (isGiven(options, "modelDim")) {
    const long long asked = std::min<long long>(readIntegerOption(option_groups::armSubspace(), options, "modelDim"), catalogue.dim());
    if (asked != catalogue.subspaceModelDim()) {
      fail(ErrorCode::InvalidArgument, "option 'modelDim': over a catalogue the subspace is the catalogue's (modelDim " +
                                           std::to_string(catalogue.subspaceModelDim()) + "); give modelDim to the Catalogue");
    }
  }
  if (isGiven(options, "subspaceEnergy")) {
    if (readOption(option_groups::armSubspace(), options, "subspaceEnergy") != catalogue.subspaceEnergy()) {
      fail(ErrorCode::InvalidArgument, "option 'subspaceEnergy': over a catalogue the subspace is the catalogue's (subspaceEnergy " +
                                           Json(catalogue.subspaceEnergy()).dump() + "); give subspaceEnergy to the Catalogue");
    }
  }
  // The own-arms rule, where modelDim or subspaceEnergy given to the catalogue count as given to the
  // user ('auto' without a prior).
  if (usesSubspaceOverOwnArms(catalogue.dim(), options)) return true;
  return catalogue.subspaceOptionsGiven() && readStringOption(option_groups::armSubspace(), options, "subspace") == "auto" &&
         !isGiven(options, "prior");
}

const ArmSet& RidgePolicy::scannedArms(const Json& options) const {
  return catalogue_ && usesSubspaceOver(*catalogue_, options) ? catalogue_->projectedArms() : arms_;
}

const Json& RidgePolicy::refuseSubspaceOverOwnArms(const Json& options) {
  const bool asked = readStringOption(option_groups::armSubspace(), options, "subspace") == "arms" || isGiven(options, "modelDim") ||
                     isGiven(options, "subspaceEnergy");
  require(!asked, ErrorCode::InvalidArgument,
          "options 'subspace', 'modelDim' and 'subspaceEnergy': this policy learns in a subspace only over a catalogue (over its own arms its model is in all d dimensions)");
  return options;
}

bool RidgePolicy::usesSubspaceOverOwnArms(int dim, const Json& options) {
  const std::string mode = readStringOption(option_groups::armSubspace(), options, "subspace");
  if (mode == "none") return false;
  const bool prior = isGiven(options, "prior");
  if (mode == "arms") {
    require(!prior, ErrorCode::InvalidArgument, "option 'subspace': 'arms' cannot be combined with 'prior' (it is in d dimensions)");
    return true;
  }
  // 'auto': modelDim or subspaceEnergy ask for a subspace at any d.
  if (prior) return false;
  return dim > kFullModelMaxDimension || isGiven(options, "modelDim") || isGiven(options, "subspaceEnergy");
}

int RidgePolicy::modelDimensionOverOwnArms(int dim, const Json& options) {
  if (!usesSubspaceOverOwnArms(dim, options)) return dim;
  // A model as large as the arms' dimension is the largest there is: modelDim above d means d.
  const long long modelDim = readIntegerOption(option_groups::armSubspace(), options, "modelDim", kDefaultModelDim);
  return static_cast<int>(std::min<long long>(modelDim, dim));
}

int RidgePolicy::modelDimensionOver(const Catalogue* catalogue, const Json& options) {
  if (catalogue == nullptr) return 1;
  return usesSubspaceOver(*catalogue, options) ? catalogue->subspaceModelDim() : catalogue->dim();
}

void RidgePolicy::syncSubspace() {
  if (!catalogueSubspace_) return;
  catalogue_->armSubspace();
  const std::uint64_t current = catalogue_->subspaceVersion();
  if (subspaceVersion_ == current) return;
  // A model that has seen nothing has nothing to move; one with observations has a version (an
  // observation needs the basis, so it synced first).
  if (subspaceVersion_ != 0) model_.move(transitionsSinceModelVersion());
  subspaceVersion_ = current;
  onModelMoved();
}

void RidgePolicy::syncProjectedSubspace() {
  if (!catalogueSubspace_) return;
  catalogue_->projectedArmsCurrent();
  syncSubspace();
}

std::vector<const Matrix*> RidgePolicy::transitionsSinceModelVersion() const {
  std::vector<const Matrix*> changes;
  for (std::uint64_t v = subspaceVersion_ + 1; v <= catalogue_->subspaceVersion(); ++v) {
    changes.push_back(&catalogue_->subspaceTransition(v));
  }
  return changes;
}

const ArmSet& RidgePolicy::scannedOwnArms(int dim, const Json& options, bool floatRows, const OptionGroup& subspaceOptions) {
  if (!usesSubspaceOverOwnArms(dim, options)) return arms_;
  projected_ = std::make_unique<ProjectedArms>(dim, ridge_.dim(), readOption(subspaceOptions, options, "subspaceEnergy"),
                                               readSeedOption(option_groups::ridge(), options), floatRows);
  return projected_->rows();
}

void RidgePolicy::refitProjectionIfDue() {
  if (!projected_ || !projected_->due(arms_.size())) return;
  moveModelBy(projected_->refit(arms_));
  onModelMoved();
}

bool RidgePolicy::catalogueSubspaceLineage(std::uint64_t& version, std::uint64_t& fingerprint) const {
  if (!catalogueSubspace_) return false;
  version = subspaceVersion_;
  fingerprint = catalogue_->subspaceFingerprint(subspaceVersion_);
  return true;
}

void RidgePolicy::saveSubspaceLineage(StateWriter& out) const {
  if (!catalogueSubspace_) return;
  out.u64(subspaceVersion_);
  out.u64(catalogue_->subspaceFingerprint(subspaceVersion_));
}

void RidgePolicy::loadSubspaceLineage(StateReader& in) {
  if (!catalogueSubspace_) return;
  const std::uint64_t version = in.u64();
  const std::uint64_t fingerprint = in.u64();
  // The head's lineage was compared with the catalogue's before (checkContext): these are the same.
  in.check(version <= catalogue_->subspaceVersion() && fingerprint == catalogue_->subspaceFingerprint(version),
           "the model's subspace version does not match the state's head");
  in.check(version > 0 || ridge_.observations() == 0, "a model with observations has no subspace version");
  subspaceVersion_ = version;
}

Vector RidgePolicy::theta() const {
  if (projected_) return projected_->basis().fitted() ? projected_->lift(ridge_.theta()) : Vector::Zero(arms_.dim());
  if (!catalogueSubspace_) return ridge_.theta();
  const ArmSubspace* current = catalogue_->fittedSubspace();
  if (current == nullptr || ridge_.observations() == 0) return Vector::Zero(arms_.dim());
  if (subspaceVersion_ == catalogue_->subspaceVersion()) return current->lift(ridge_.theta());
  // Another user's call refitted the basis since this model last moved: the estimate the model
  // will hold once it moves at its next call, without moving it here.
  return current->lift(model_.thetaMovedThrough(transitionsSinceModelVersion()));
}

void RidgePolicy::addArms(const Id* ids, std::size_t count, const DoubleSource& features, const ItemAttributes* attributes) {
  require(ownArms_ != nullptr, ErrorCode::InvalidArgument,
          "addArms: this policy reads its arms from a catalogue; add them with catalogue.add()");
  ownArms_->checkAdd(ids, count, features, attributes);
  ownArms_->add(ids, count, features, attributes);
  try {
    if (projected_) {
      // The first batch fits the basis before any update can project onto it.
      if (projected_->due(arms_.size())) {
        refitProjectionIfDue();
      } else {
        projected_->append(arms_, count);
      }
    }
    onAddArms(ids, count);
  } catch (...) {
    if (projected_ && projected_->rows().size() == arms_.size()) projected_->remove(ids, count);
    ownArms_->remove(ids, count);
    throw;
  }
}

void RidgePolicy::removeArms(const Id* ids, std::size_t count) {
  require(ownArms_ != nullptr, ErrorCode::InvalidArgument,
          "removeArms: this policy reads its arms from a catalogue; remove them with catalogue.remove()");
  ownArms_->checkRemove(ids, count);
  onRemoveArms(ids, count);
  // After the hook (whose state follows the rows still in place); refitted at the next choice when
  // the arms have lost half.
  if (projected_) projected_->remove(ids, count);
  ownArms_->remove(ids, count);
}

void RidgePolicy::checkChoice(std::size_t k, bool slate, const char* call) const {
  require(!slate || k >= 1, ErrorCode::InvalidArgument, "selectSlate: k must be a positive integer");
  if (arms_.size() == 0) fail(ErrorCode::Empty, std::string("the policy has no arms: add arms before ") + call + "()");
}

Id RidgePolicy::select(const ArmFilter& filter) {
  checkChoice(1, false, "select");
  if (filter.empty()) {
    refitProjectionIfDue();
    prepareChoice();
    const Id arm = chooseArm();
    ++selections_;
    return arm;
  }
  return chooseEligible(1, filter, eligibilityFor(filter), false).front();
}

Eligibility RidgePolicy::eligibilityFor(const ArmFilter& filter) const {
  filter.check();
  Eligibility::checkValueNames(arms_.attributes(), filter);
  return arms_.eligibility(filter);
}

std::vector<Id> RidgePolicy::selectSlate(std::size_t k, const ArmFilter& filter) {
  checkChoice(k, true, "selectSlate");
  return chooseEligible(k, filter, eligibilityFor(filter), true);
}

std::vector<Id> RidgePolicy::chooseEligible(std::size_t k, const ArmFilter& filter, const Eligibility& eligible,
                                            bool slate) {
  require(eligible.count() > 0, ErrorCode::Empty, "no arm is eligible: every arm is excluded or fails the filter");
  refitProjectionIfDue();
  prepareChoice();
  // A slate of about the eligible count needs that count exactly (an estimate is some hundreds or more).
  const std::size_t available = slate && 2 * k >= eligible.count() ? eligible.exactCount() : eligible.count();
  // Unfiltered single choices keep chooseArm(), the algorithm as it always ran (and its random draws).
  std::vector<Id> chosen = !slate && filter.empty() ? std::vector<Id>{chooseArm()}
                                                    : chooseArms(slate ? std::min(k, available) : 1, filter, eligible);
  ++selections_;
  return chosen;
}

namespace {
void checkReward(double reward) {
  require(std::isfinite(reward), ErrorCode::NonFinite, "reward must be a finite number");
  // Like features (ArmSet::kMaxMagnitude): larger rewards would overflow b = sum r x, and the policy
  // could then no longer select.
  require(std::fabs(reward) <= ArmSet::kMaxMagnitude, ErrorCode::InvalidArgument, "reward must be at most 1e15 in magnitude");
}
}  // namespace

void RidgePolicy::update(Id arm, double reward) {
  if (!arms_.contains(arm)) fail(ErrorCode::UnknownId, "arm " + std::to_string(arm) + " is not in the set");
  checkReward(reward);
  observe(arms_.featuresOf(arm), reward);
}

void RidgePolicy::observe(const double* features, double reward) {
  beforeObservation();
  model_.observe(modelFeatures(features), modelReward(reward));
}

void RidgePolicy::forget(double factor) {
  if (!Forgetting::forgets(factor)) return;
  // In the catalogue's current basis first, as an observation would be.
  beforeObservation();
  model_.forget(factor);
}

Decision RidgePolicy::decide(std::size_t k, const ArmFilter& filter, bool slate) {
  checkChoice(k, slate, "select");
  const Eligibility eligible = eligibilityFor(filter);
  struct Deciding {
    bool& flag;
    explicit Deciding(bool& slot) : flag(slot) { flag = true; }
    ~Deciding() { flag = false; }
    Deciding(const Deciding&) = delete;
    Deciding& operator=(const Deciding&) = delete;
  };
  const Deciding scope(deciding_);
  const std::vector<Id> chosen = chooseEligible(k, filter, eligible, slate);
  Decision decision;
  decision.arms = chosen;
  decision.policyArms = chosen;
  // The coin is tossed only when exploring is asked for: without it, decide() draws exactly the
  // random numbers select() does.
  const bool explores = explore_ > 0.0;
  const bool explored = explores && random_.uniform() < explore_;
  if (explored) decision.arms = uniformEligible(chosen.size(), filter, eligible);
  const std::size_t n = decision.arms.size();
  std::vector<double> p(n, 0.0);
  std::vector<double> se(n, 0.0);
  std::vector<double> prefix(n, 0.0);
  if (randomisedChoice()) {
    estimateChoiceProbabilities(decision.arms, !explored, filter, eligible, propensityDraws_, p, se, prefix);
  } else {
    bool samePrefix = true;
    for (std::size_t j = 0; j < n; ++j) {
      p[j] = decision.arms[j] == chosen[j] ? 1.0 : 0.0;
      samePrefix = samePrefix && decision.arms[j] == chosen[j];
      prefix[j] = samePrefix ? 1.0 : 0.0;
    }
  }
  // Exploration shows a uniformly random ordered n-subset of the E eligible arms: any eligible arm
  // sits at a given position with probability 1 / E, a given prefix of j + 1 arms with probability
  // 1 / (E (E - 1) ... (E - j)).
  // Counted only when exploring is asked for: over a filtered catalogue the count walks every
  // candidate row, the larger part of a decision's time at 10^6 items.
  const double eligibleArms = explores ? static_cast<double>(eligible.exactCount()) : 0.0;
  const double uniform = explores ? 1.0 / eligibleArms : 0.0;
  decision.propensities.resize(n);
  decision.propensityErrors.resize(n);
  decision.prefixPropensities.resize(n);
  double uniformPrefix = explores ? 1.0 : 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    decision.propensities[j] = explore_ * uniform + (1.0 - explore_) * p[j];
    decision.propensityErrors[j] = (1.0 - explore_) * se[j];
    if (explores) uniformPrefix /= eligibleArms - static_cast<double>(j);
    decision.prefixPropensities[j] = explore_ * uniformPrefix + (1.0 - explore_) * prefix[j];
  }
  const auto d = static_cast<std::size_t>(arms_.dim());
  std::vector<double> features(n * d);
  for (std::size_t j = 0; j < n; ++j) std::copy_n(arms_.featuresOf(decision.arms[j]), d, features.data() + j * d);
  decision.eventId = ledger_.record(decision.arms, std::move(features));
  return decision;
}

void RidgePolicy::reward(std::uint64_t eventId, const double* rewards, std::size_t count) {
  const DecisionLedger::Pending& decision = ledger_.pending(eventId, count);
  for (std::size_t j = 0; j < count; ++j) checkReward(rewards[j]);
  const auto d = static_cast<std::size_t>(arms_.dim());
  for (std::size_t j = 0; j < count; ++j) observe(decision.features.data() + j * d, rewards[j]);
  ledger_.take(eventId);
}

std::size_t RidgePolicy::eligibleCount(const ArmFilter& filter) const { return eligibilityFor(filter).exactCount(); }

std::vector<std::pair<Id, double>> RidgePolicy::choiceDistribution(std::size_t position, const ArmFilter& filter,
                                                                    std::size_t /*draws*/) {
  const Eligibility eligible = eligibilityFor(filter);
  if (eligible.exactCount() <= position) return {};
  return {{chooseEligible(position + 1, filter, eligible, position > 0)[position], 1.0}};
}

std::vector<Id> RidgePolicy::uniformEligible(std::size_t n, const ArmFilter& /*filter*/, const Eligibility& eligible) {
  // The arms a draw picks from before the other conditions and the exclusions: all of them, or the
  // filter's posting lists (an arm in several of them is kept only under one: postedUnder).
  const std::size_t base = eligible.walksPostings() ? eligible.postedRows() : arms_.size();
  const std::size_t available = eligible.exactCount();
  std::vector<Id> picked;
  picked.reserve(n);
  if (2 * n > available || 2 * available < base) {
    // Few eligible arms, or a slate of most of them: rejection would draw many times. Enumerate.
    std::vector<Id> candidates;
    candidates.reserve(available);
    for (std::size_t row = 0; row < arms_.size(); ++row) {
      if (arms_.admits(eligible, row)) candidates.push_back(arms_.idAt(row));
    }
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t i = j + static_cast<std::size_t>(random_.uniformInt(candidates.size() - j));
      std::swap(candidates[j], candidates[i]);
      picked.push_back(candidates[j]);
    }
    return picked;
  }
  // Rejection: a uniform entry of the base, kept when eligible and not yet picked. Lists are drawn in
  // proportion to their sizes, then an entry of the list uniformly: a uniform entry of the base. At
  // least half the base is eligible (above), so few draws are lost.
  const ItemAttributes& attributes = arms_.attributes();
  while (picked.size() < n) {
    std::size_t row = 0;
    if (!eligible.walksPostings()) {
      row = static_cast<std::size_t>(random_.uniformInt(arms_.size()));
      if (!arms_.admits(eligible, row)) continue;
    } else {
      std::size_t r = static_cast<std::size_t>(random_.uniformInt(base));
      bool kept = false;
      for (const Label label : eligible.postingLabels()) {
        const std::size_t count = attributes.count(label);
        if (r < count) {
          row = attributes.rowsOf(label)[r];
          kept = eligible.postedUnder(row, label) && !eligible.excludesRow(row);
          break;
        }
        r -= count;
      }
      if (!kept) continue;
    }
    const Id id = arms_.idAt(row);
    if (std::find(picked.begin(), picked.end(), id) == picked.end()) picked.push_back(id);
  }
  return picked;
}

Json RidgePolicy::stats() const {
  Json result = extraStats();
  result["type"] = type();
  result["innerProducts"] = innerProducts_ + indexInnerProducts();
  result["policyInnerProducts"] = innerProducts_;
  result["indexInnerProducts"] = indexInnerProducts();
  result["selections"] = selections_;
  result["updates"] = model_.updates();
  result["arms"] = arms_.size();
  if (catalogue_) result["catalogue"] = catalogue_->identityText();
  if (projected_) result["subspace"] = projected_->stats();
  if (catalogueSubspace_) {
    // The catalogue's basis (shared, counted in its stats) and the version this model is in.
    result["subspace"] = catalogue_->fittedSubspace() ? catalogue_->fittedSubspace()->stats() : Json{{"modelDim", ridge_.dim()}, {"fits", 0}};
    result["subspace"]["shared"] = true;
    result["subspace"]["version"] = subspaceVersion_;
  }
  result["decisions"] = ledger_.stats();
  result["radiusRule"] = fixedBeta_ ? "fixed" : theoretical_ ? "theoretical" : "practical";
  // R under the theoretical rule (1 unless given), otherwise the estimate (the given noise if any).
  result["noise"] = theoretical_ ? noise_ : model_.noiseEstimate();
  result["forgetting"] = model_.forgettingStats();
  return result;
}

double RidgePolicy::adaptiveRadius(double failure) const {
  if (fixedBeta_) return beta_;
  const double logDetRatio = ridge_.logDetGram() - ridge_.dim() * deterministic::log(model_.startPrecision());
  const double radicand = 2.0 * deterministic::log(1.0 / failure) + std::max(0.0, logDetRatio);
  return noise_ * std::sqrt(radicand) + std::sqrt(model_.startPrecision()) * bound_;
}

double RidgePolicy::horizonRadius(double failure, double featureBound) const {
  if (fixedBeta_) return beta_;
  const double d = ridge_.dim();
  const double growth = static_cast<double>(horizon_) * featureBound * featureBound / (model_.startPrecision() * d);
  const double radicand = 2.0 * deterministic::log(1.0 / failure) + d * deterministic::log(1.0 + growth);
  return noise_ * std::sqrt(radicand) + std::sqrt(model_.startPrecision()) * bound_;
}

double RidgePolicy::confidenceMultiplier() const { return std::sqrt(2.0 * deterministic::log(1.0 / delta_)); }

double RidgePolicy::practicalRadius(double multiplier) const {
  if (fixedBeta_) return beta_;
  // With a prior the pull towards its centre is not counted as bias: it is the prior itself, whose
  // uncertainty V = (lambda + w) I + ... already carries. Counting it (|V^-1 (lambda theta^ + w
  // (theta^ - theta0))|) made Thompson sampling over-explore: more regret than no prior when users
  // shared nothing (bench/results/design-measurements.md).
  const double bias = model_.priorScale() * ridge_.lambda() * ridge_.thetaInverseNorm();
  return multiplier * model_.noiseEstimate() + bias;
}

void RidgePolicy::save(StateWriter& out) const {
  if (ownArms_) saveArmSet(arms_, out);
  model_.saveRegression(out);
  out.random(random_);
  out.u64(innerProducts_);
  out.u64(selections_);
  model_.saveMemory(out);
  ledger_.save(out);
  // Over own arms in their subspace the basis (the projected rows are made again from it).
  if (projected_) projected_->save(out);
  saveFields(out);
}

void RidgePolicy::load(StateReader& in) {
  in.check(model_.updates() == 0 && selections_ == 0, "a policy can only be restored into a new one");
  if (ownArms_) loadArms(in);
  model_.loadRegression(in);
  in.random(random_);
  innerProducts_ = in.u64();
  selections_ = in.u64();
  model_.loadMemory(in);
  ledger_.load(in);
  if (projected_) projected_->load(in, arms_);
  loadFields(in);
}

void RidgePolicy::loadArms(StateReader& in) {
  in.check(ownArms_->size() == 0, "a policy can only be restored into a new one");
  const auto d = static_cast<std::size_t>(ownArms_->dim());
  loadArmSet(*ownArms_, in, sizeof(Id) + d * sizeof(double));
}

}  // namespace sublinear
