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
double readLambda(const Json& options) { return readOption(option_groups::ridge(), options, "lambda"); }

// readStringOption refuses anything but the table's choices, "practical" and "theoretical".
bool readTheoretical(const Json& options) { return readStringOption(option_groups::ridge(), options, "radius") == "theoretical"; }

// Pseudo-observations of the prior variance in noiseEstimate().
constexpr double kPriorWeight = 2.0;

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
      ridge_(modelDim, readLambda(options), form),
      random_(readSeedOption(option_groups::ridge(), options)),
      delta_(readOption(option_groups::ridge(), options, "delta")),
      theoretical_(readTheoretical(options)),
      noiseGiven_(isGiven(options, "noise")),
      noise_(readOption(option_groups::ridge(), options, "noise")),
      bound_(readOption(option_groups::ridge(), options, "bound")),
      horizon_(readIntegerOption(option_groups::ridge(), options, "horizon")),
      fixedBeta_(isGiven(options, "beta")),
      beta_(readOption(option_groups::ridge(), options, "beta")),
      explore_(readOption(option_groups::decisions(), options, "explore")),
      propensityDraws_(static_cast<std::size_t>(readIntegerOption(option_groups::decisions(), options, "propensityDraws"))),
      ledger_(static_cast<std::size_t>(readIntegerOption(option_groups::decisions(), options, "maxPending")), arms_.dim()),
      forgetting_(options) {
  startFromPrior(options);
}

void RidgePolicy::startFromPrior(const Json& options) {
  if (!isGiven(options, "prior")) return;
  const Json& prior = options["prior"];
  require(prior.is_object() && prior.contains("theta") && prior.contains("weight"), ErrorCode::InvalidArgument,
          "option 'prior' must be an object { theta, weight }");
  optionTable("nested", "policy.prior").check(prior);
  const Json& theta = prior["theta"];
  // The model's dimension: a Sub-TS that transforms its features works in d + 1 dimensions, whose
  // last coordinate a population estimate in the arms' space does not describe.
  require(ridge_.dim() == arms_.dim(), ErrorCode::InvalidArgument,
          "option 'prior' cannot be combined with negativeRewardTransform (the model is not in the arms' space)");
  if (!theta.is_array() || theta.size() != static_cast<std::size_t>(arms_.dim())) {
    fail(ErrorCode::DimensionMismatch, "option 'prior.theta' must hold " + std::to_string(arms_.dim()) + " numbers (the dimension)");
  }
  Vector mean(arms_.dim());
  for (int j = 0; j < arms_.dim(); ++j) {
    const Json& value = theta[static_cast<std::size_t>(j)];
    require(value.is_number(), ErrorCode::InvalidArgument, "option 'prior.theta' must hold numbers only");
    mean[j] = value.get<double>();
    // As for features (ArmSet::kMaxMagnitude): b = weight theta must stay finite through updates.
    require(std::isfinite(mean[j]) && std::fabs(mean[j]) <= ArmSet::kMaxMagnitude, ErrorCode::NonFinite,
            "option 'prior.theta' must hold finite numbers of magnitude at most 1e15");
  }
  const double weight = readOption(option_groups::ridgePriorSpec(), prior, "weight");
  priorWeight_ = weight;
  priorMean_ = std::move(mean);
  ridge_.startFromPrior(priorMean_, priorWeight_);
}

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
  if (subspaceVersion_ != 0 && ridge_.observations() != 0) {
    Matrix gram = ridge_.gramMatrix();
    Vector responses = ridge_.responses();
    moveToCurrentVersion(gram, responses);
    ridge_.reset(gram, responses);
    for (std::uint64_t v = subspaceVersion_ + 1; v <= current; ++v) moveWindow(catalogue_->subspaceTransition(v));
  }
  subspaceVersion_ = current;
  onModelMoved();
}

void RidgePolicy::syncProjectedSubspace() {
  if (!catalogueSubspace_) return;
  catalogue_->projectedArmsCurrent();
  syncSubspace();
}

void RidgePolicy::moveToCurrentVersion(Matrix& gram, Vector& responses) const {
  for (std::uint64_t v = subspaceVersion_ + 1; v <= catalogue_->subspaceVersion(); ++v) {
    moveModel(gram, responses, catalogue_->subspaceTransition(v), priorScale_ * startPrecision());
  }
}

void RidgePolicy::moveModel(Matrix& gram, Vector& responses, const Matrix& change, double lambda) {
  const Eigen::Index r = gram.rows();
  const Matrix identity = Matrix::Identity(r, r);
  Matrix moved = lambda * identity + change * (gram - lambda * identity) * change.transpose();
  gram = (moved + moved.transpose()) / 2.0;
  responses = change * responses;
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

void RidgePolicy::moveModelBy(const Matrix& change) {
  if (ridge_.observations() == 0) return;
  Matrix gram = ridge_.gramMatrix();
  Vector responses = ridge_.responses();
  moveModel(gram, responses, change, priorScale_ * startPrecision());
  ridge_.reset(gram, responses);
  moveWindow(change);
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
  Matrix gram = ridge_.gramMatrix();
  Vector responses = ridge_.responses();
  moveToCurrentVersion(gram, responses);
  return current->lift(gram.llt().solve(responses));
}

void RidgePolicy::addArms(const Id* ids, std::size_t count, const double* features, std::size_t featureLength,
                          const Label* labels, std::size_t labelCount) {
  require(ownArms_ != nullptr, ErrorCode::InvalidArgument,
          "addArms: this policy reads its arms from a catalogue; add them with catalogue.add()");
  ownArms_->checkAdd(ids, count, features, featureLength, labels, labelCount);
  ownArms_->add(ids, count, features, labels);
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
  return chooseEligible(1, filter, arms_.eligibility(filter), false).front();
}

std::vector<Id> RidgePolicy::selectSlate(std::size_t k, const ArmFilter& filter) {
  checkChoice(k, true, "selectSlate");
  return chooseEligible(k, filter, arms_.eligibility(filter), true);
}

std::vector<Id> RidgePolicy::chooseEligible(std::size_t k, const ArmFilter& filter, const Eligibility& eligible,
                                            bool slate) {
  require(eligible.count() > 0, ErrorCode::Empty, "no arm is eligible: every arm is excluded or has a label not asked for");
  refitProjectionIfDue();
  prepareChoice();
  // Unfiltered single choices keep chooseArm(), the algorithm as it always ran (and its random draws).
  std::vector<Id> chosen = !slate && filter.empty() ? std::vector<Id>{chooseArm()}
                                                    : chooseArms(slate ? std::min(k, eligible.count()) : 1, filter, eligible);
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
  const double modelled = modelReward(reward);
  const Vector x = modelFeatures(features);
  if (forgetting_.kind() == Forgetting::Kind::Discount) discountPast(forgetting_.discount());
  ridge_.update(x, modelled);
  afterObservation();
  rewardSum_ += modelled;
  squaredRewardSum_ += modelled * modelled;
  effectiveObservations_ += 1.0;
  ++updates_;
  if (forgetting_.kind() == Forgetting::Kind::Window) {
    window_.push_back({x, modelled, 1.0});
    slideWindow();
  }
  if (forgetting_.kind() == Forgetting::Kind::Auto) detectChange(x, modelled);
}

Vector RidgePolicy::priorResponses() const {
  return priorWeight_ > 0.0 ? Vector(priorWeight_ * priorMean_) : Vector::Zero(ridge_.dim());
}

void RidgePolicy::discountPast(double factor) {
  ridge_.scale(factor);
  rewardSum_ *= factor;
  squaredRewardSum_ *= factor;
  effectiveObservations_ *= factor;
  priorScale_ *= factor;
  onModelScaled(factor);
  // Below half its regulariser V could lose its conditioning in directions no arm fills; the top-up
  // is exact (V + (1 - c) P I) and O(d^3), once every log(2) / (1 - g) observations. The elimination
  // policies restart their stages then (periodic restarts, Zhao et al. 2020).
  if (priorScale_ < 0.5) weighPast(1.0);
}

void RidgePolicy::slideWindow() {
  while (window_.size() > forgetting_.window()) {
    const WindowRow& oldest = window_.front();
    const double root = std::sqrt(oldest.weight);
    ridge_.downdate(root * oldest.x, root * oldest.reward);
    rewardSum_ -= oldest.weight * oldest.reward;
    squaredRewardSum_ = std::max(0.0, squaredRewardSum_ - oldest.weight * oldest.reward * oldest.reward);
    effectiveObservations_ = std::max(0.0, effectiveObservations_ - oldest.weight);
    window_.pop_front();
    onForget(false);
  }
  // The downdates' rounding is wiped out once a window, at O(window d^2 + d^3): O(d^2 + d^3 / window)
  // an observation; the elimination policies restart their stages then.
  if (++sinceRefactor_ >= forgetting_.window()) refactorWindow();
}

void RidgePolicy::refactorWindow() {
  Matrix gram = startPrecision() * Matrix::Identity(ridge_.dim(), ridge_.dim());
  Vector responses = priorResponses();
  double rewards = 0.0, squares = 0.0, weight = 0.0;
  for (const WindowRow& row : window_) {
    gram.noalias() += row.weight * row.x * row.x.transpose();
    responses += (row.weight * row.reward) * row.x;
    rewards += row.weight * row.reward;
    squares += row.weight * row.reward * row.reward;
    weight += row.weight;
  }
  ridge_.reset(gram, responses);
  rewardSum_ = rewards;
  squaredRewardSum_ = squares;
  effectiveObservations_ = weight;
  sinceRefactor_ = 0;
  onForget(true);
}

void RidgePolicy::detectChange(const Vector& x, double reward) {
  if (effectiveObservations_ < std::max(Forgetting::kWarmUp, forgetting_.warmUpPerDimension() * ridge_.dim())) return;
  // The error of the prediction made before this observation, from the model after it: with
  // u = V^-1 x and D = 1 + x^T u (V before), r - x^T theta_new = (r - x^T theta_old) / D, and the
  // predictive variance of r - x^T theta_old is sigma^2 D. O(d).
  const double denominator = ridge_.lastDenominator();
  const double error = denominator * (reward - x.dot(ridge_.theta()));
  const double sigma = noiseEstimate();
  // The policy chose the arm for a high estimate: its prediction is too high by up to about its
  // width sigma ||x||_{V^-1} without any change (the winner's curse), so that much is not evidence.
  const double width = std::sqrt(std::max(0.0, denominator - 1.0));
  const double z = (error + forgetting_.margin() * sigma * width) / (sigma * std::sqrt(denominator));
  if (!forgetting_.detect(z)) {
    // The observations since the statistic last stood at 0 are the evidence of a change, and the
    // new world's first observations if it completes one: kept (the latest kRecentRows) while it
    // rises. Where nothing changes the statistic is mostly 0 and they are few.
    if (forgetting_.rising()) {
      window_.push_back({x, reward, 1.0});
      if (window_.size() > Forgetting::kRecentRows) window_.pop_front();
    } else {
      window_.clear();
    }
    return;
  }
  // Start over from the prior with what the new evidence says: the model of the observations since
  // the change began (the estimated change point, Page 1954), not an empty one.
  std::deque<WindowRow> recent = std::move(window_);
  recent.push_back({x, reward, 1.0});
  if (recent.size() > Forgetting::kRecentRows) recent.pop_front();
  weighPast(0.0);
  for (const WindowRow& row : recent) {
    ridge_.update(row.x, row.reward);
    rewardSum_ += row.reward;
    squaredRewardSum_ += row.reward * row.reward;
    effectiveObservations_ += 1.0;
  }
  forgetting_.recordChange(updates_, true);
}

void RidgePolicy::weighPast(double factor) {
  const Vector prior = priorResponses();
  if (factor == 0.0) {
    ridge_.restart(startPrecision(), prior);
  } else {
    // f (V - c P I) + P I and f (b - c b_0) + b_0.
    Matrix gram = ridge_.gramMatrix();
    gram *= factor;
    gram.diagonal().array() += (1.0 - factor * priorScale_) * startPrecision();
    const Vector responses = factor * ridge_.responses() + (1.0 - factor * priorScale_) * prior;
    ridge_.reset(gram, responses);
  }
  priorScale_ = 1.0;
  rewardSum_ *= factor;
  squaredRewardSum_ *= factor;
  effectiveObservations_ *= factor;
  // A window's rows keep their share; 'auto''s evidence of a change is forgotten with the detector.
  if (factor == 0.0 || forgetting_.kind() == Forgetting::Kind::Auto) {
    window_.clear();
  } else {
    for (WindowRow& row : window_) row.weight *= factor;
  }
  onForget(true);
}

void RidgePolicy::forget(double factor) {
  require(std::isfinite(factor) && factor >= 0.0 && factor <= 1.0, ErrorCode::InvalidArgument,
          "forget: factor must be a number in [0, 1]");
  if (factor == 1.0) return;
  // In the catalogue's current basis first, as an observation would be.
  beforeObservation();
  weighPast(factor);
  forgetting_.recordChange(updates_, false);
}

void RidgePolicy::moveWindow(const Matrix& change) {
  for (WindowRow& row : window_) row.x = change * row.x;
}

Decision RidgePolicy::decide(std::size_t k, const ArmFilter& filter, bool slate) {
  checkChoice(k, slate, "select");
  const Eligibility eligible = arms_.eligibility(filter);
  const std::vector<Id> chosen = chooseEligible(k, filter, eligible, slate);
  Decision decision;
  decision.arms = chosen;
  // The coin is tossed only when exploring is asked for: without it, decide() draws exactly the
  // random numbers select() does.
  const bool explored = explore_ > 0.0 && random_.uniform() < explore_;
  if (explored) decision.arms = uniformEligible(chosen.size(), filter, eligible);
  const std::size_t n = decision.arms.size();
  std::vector<double> p(n, 0.0);
  std::vector<double> se(n, 0.0);
  if (randomisedChoice()) {
    estimateChoiceProbabilities(decision.arms, !explored, filter, eligible, propensityDraws_, p, se);
  } else {
    for (std::size_t j = 0; j < n; ++j) p[j] = decision.arms[j] == chosen[j] ? 1.0 : 0.0;
  }
  // Exploration shows a uniformly random ordered n-subset of the E eligible arms: any eligible arm
  // sits at a given position with probability 1 / E.
  const double uniform = 1.0 / static_cast<double>(eligible.count());
  decision.propensities.resize(n);
  decision.propensityErrors.resize(n);
  for (std::size_t j = 0; j < n; ++j) {
    decision.propensities[j] = explore_ * uniform + (1.0 - explore_) * p[j];
    decision.propensityErrors[j] = (1.0 - explore_) * se[j];
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

std::vector<std::pair<Id, double>> RidgePolicy::choiceDistribution(std::size_t position, const ArmFilter& filter,
                                                                    std::size_t /*draws*/) {
  const Eligibility eligible = arms_.eligibility(filter);
  if (eligible.count() <= position) return {};
  return {{chooseEligible(position + 1, filter, eligible, position > 0)[position], 1.0}};
}

std::vector<Id> RidgePolicy::uniformEligible(std::size_t n, const ArmFilter& filter, const Eligibility& eligible) {
  std::vector<Label> allowed = filter.labels;
  std::sort(allowed.begin(), allowed.end());
  allowed.erase(std::unique(allowed.begin(), allowed.end()), allowed.end());
  // The arms a draw picks from before the exclusions: all of them, or the allowed labels' rows.
  const std::size_t base = allowed.empty() ? arms_.size() : eligible.labelledCount();
  std::vector<Id> picked;
  picked.reserve(n);
  if (2 * n > eligible.count() || 2 * eligible.count() < base) {
    // Few eligible arms, or a slate of most of them: rejection would draw many times. Enumerate.
    std::vector<Id> candidates;
    candidates.reserve(eligible.count());
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
  // Rejection: a uniform row of the base, kept when eligible and not yet picked. Labels are drawn in
  // proportion to their counts, then a row of the label uniformly: a uniform row of the base.
  const ItemLabels& labels = arms_.labels();
  while (picked.size() < n) {
    std::size_t row = 0;
    if (allowed.empty()) {
      row = static_cast<std::size_t>(random_.uniformInt(arms_.size()));
    } else {
      std::size_t r = static_cast<std::size_t>(random_.uniformInt(base));
      for (const Label label : allowed) {
        const std::size_t count = labels.count(label);
        if (r < count) {
          row = labels.rowsOf(label)[r];
          break;
        }
        r -= count;
      }
    }
    if (!arms_.admits(eligible, row)) continue;
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
  result["updates"] = updates_;
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
  result["noise"] = theoretical_ && !noiseGiven_ ? noise_ : noiseEstimate();
  result["forgetting"] = forgetting_.stats(effectiveObservations_);
  return result;
}

double RidgePolicy::adaptiveRadius(double failure) const {
  if (fixedBeta_) return beta_;
  const double logDetRatio = ridge_.logDetGram() - ridge_.dim() * deterministic::log(startPrecision());
  const double radicand = 2.0 * deterministic::log(1.0 / failure) + std::max(0.0, logDetRatio);
  return noise_ * std::sqrt(radicand) + std::sqrt(startPrecision()) * bound_;
}

double RidgePolicy::horizonRadius(double failure, double featureBound) const {
  if (fixedBeta_) return beta_;
  const double d = ridge_.dim();
  const double growth = static_cast<double>(horizon_) * featureBound * featureBound / (startPrecision() * d);
  const double radicand = 2.0 * deterministic::log(1.0 / failure) + d * deterministic::log(1.0 + growth);
  return noise_ * std::sqrt(radicand) + std::sqrt(startPrecision()) * bound_;
}

}  // namespace sublinear

namespace sublinear {

double RidgePolicy::noiseEstimate() const {
  if (noiseGiven_) return noise_;
  const double n = effectiveObservations_;
  if (n < 2.0) return 1.0;
  const double priorVariance = std::max(0.0, squaredRewardSum_ - rewardSum_ * rewardSum_ / n) / (n - 1.0);
  // Every reward so far the same (up to rounding), as on a page that rewards clicks before its first
  // click: no evidence of the noise's scale yet, so the prior's, as before two observations. An
  // estimate of 0 shrank every confidence width to the bias alone: Sub-Elim moved all its arms to its
  // last stage in one call, and the UCB policies played greedily.
  if (priorVariance <= 1e-12 * squaredRewardSum_ / n) return 1.0;
  const Vector& theta = ridge_.theta();
  // sum (r - x^T theta^)^2 = sum r^2 - 2 theta^T b + theta^T (V - lambda I) theta^, and V theta^ = b.
  // With a prior (V_1 = (lambda + w) I, b_1 = w theta0) the observations' part of b is b - w theta0
  // and of V is V - (lambda + w) I: sum r^2 - theta^T b + 2 w theta^T theta0 - (lambda + w) |theta^|^2.
  // Under a discount the regulariser and the prior hold the share c = priorScale_ of their weight.
  const double residuals =
      priorWeight_ > 0.0
          ? std::max(0.0, squaredRewardSum_ - theta.dot(ridge_.responses()) + 2.0 * priorScale_ * priorWeight_ * theta.dot(priorMean_) -
                              priorScale_ * startPrecision() * theta.squaredNorm())
          : std::max(0.0, squaredRewardSum_ - theta.dot(ridge_.responses()) - priorScale_ * ridge_.lambda() * theta.squaredNorm());
  // The prior's pseudo-observations are no degrees of freedom spent on the data.
  const double effectiveDim = ridge_.dim() - priorScale_ * startPrecision() * ridge_.inverseGram().trace();
  const double freedom = std::max(0.0, n - effectiveDim);
  return std::sqrt((residuals + kPriorWeight * priorVariance) / (freedom + kPriorWeight));
}

double RidgePolicy::confidenceMultiplier() const { return std::sqrt(2.0 * deterministic::log(1.0 / delta_)); }

double RidgePolicy::practicalRadius(double multiplier) const {
  if (fixedBeta_) return beta_;
  // With a prior the pull towards its centre is not counted as bias: it is the prior itself, whose
  // uncertainty V = (lambda + w) I + ... already carries. Counting it (|V^-1 (lambda theta^ + w
  // (theta^ - theta0))|) made Thompson sampling over-explore: more regret than no prior when users
  // shared nothing (bench/results/design-measurements.md).
  const double bias = priorScale_ * ridge_.lambda() * ridge_.thetaInverseNorm();
  return multiplier * noiseEstimate() + bias;
}


void RidgePolicy::save(StateWriter& out) const {
  if (ownArms_) saveArmSet(arms_, out);
  ridge_.save(out);
  out.random(random_);
  out.u64(innerProducts_);
  out.u64(selections_);
  out.u64(updates_);
  out.f64(rewardSum_);
  out.f64(squaredRewardSum_);
  out.f64(effectiveObservations_);
  out.f64(priorScale_);
  forgetting_.save(out);
  out.u64(window_.size());
  for (const WindowRow& row : window_) {
    out.vector(row.x);
    out.f64(row.reward);
    out.f64(row.weight);
  }
  out.u64(sinceRefactor_);
  ledger_.save(out);
  // Over own arms in their subspace the basis (the projected rows are made again from it).
  if (projected_) projected_->save(out);
  saveFields(out);
}

void RidgePolicy::load(StateReader& in) {
  in.check(updates_ == 0 && selections_ == 0, "a policy can only be restored into a new one");
  if (ownArms_) loadArms(in);
  ridge_.load(in);
  // V = lambda I + sum x x^T adds the same products in the same order on both sides of the diagonal,
  // so it is symmetric bit for bit. The factored form's V^-1 is not checked beyond being finite:
  // Sherman-Morrison keeps it symmetric only up to rounding, and with ill-conditioned features (|x|
  // near 1e8 and above) its triangles differ by a tenth of its largest entry and its diagonal can
  // turn negative -- states this library writes. Every use tolerates that: norms clamp at zero,
  // Sub-Elim averages the triangles. (The InverseOnly form keeps no V; its V^-1 is checked for
  // symmetry, which its downdates keep bit for bit, in RidgeRegression::load.)
  if (ridge_.form() == RidgeRegression::Form::Factored) {
    const Matrix& gram = ridge_.gram();
    in.check((gram.diagonal().array() > 0.0).all() && gram == gram.transpose(), "ridge state's V is not symmetric with a positive diagonal");
  }
  in.random(random_);
  innerProducts_ = in.u64();
  selections_ = in.u64();
  updates_ = in.u64();
  rewardSum_ = in.f64();
  squaredRewardSum_ = in.f64();
  // A detected change replays the observations since its statistic rose (at most kRecentRows each
  // time) into the new model: the regression may have taken those twice.
  in.check(ridge_.observations() >= 0 && static_cast<std::uint64_t>(ridge_.observations()) >= updates_, "update count does not match the regression's");
  in.check(std::isfinite(rewardSum_) && std::isfinite(squaredRewardSum_) && squaredRewardSum_ >= 0.0,
           "reward sums are not finite");
  effectiveObservations_ = in.f64();
  priorScale_ = in.f64();
  in.check(std::isfinite(effectiveObservations_) && effectiveObservations_ >= 0.0 &&
               effectiveObservations_ <= static_cast<double>(updates_),
           "the effective number of observations is out of range");
  in.check(priorScale_ >= 0.5 && priorScale_ <= 1.0 && (priorScale_ == 1.0 || forgetting_.kind() == Forgetting::Kind::Discount),
           "the regulariser's share is out of range");
  forgetting_.load(in);
  in.check(static_cast<std::uint64_t>(ridge_.observations()) - updates_ <= Forgetting::kRecentRows * forgetting_.changes(),
           "update count does not match the regression's");
  const std::uint64_t rows = in.u64();
  const std::uint64_t kept = forgetting_.kind() == Forgetting::Kind::Window ? forgetting_.window()
                             : forgetting_.kind() == Forgetting::Kind::Auto  ? Forgetting::kRecentRows
                                                                              : 0;
  in.check(rows <= kept, "the window holds more observations than it keeps");
  for (std::uint64_t i = 0; i < rows; ++i) {
    Vector x = in.vector(ridge_.dim());
    const double reward = in.f64();
    const double weight = in.f64();
    in.check(x.allFinite() && std::isfinite(reward) && std::isfinite(weight) && weight > 0.0 && weight <= 1.0,
             "a window row is not finite");
    window_.push_back({std::move(x), reward, weight});
  }
  sinceRefactor_ = in.u64();
  in.check(forgetting_.kind() != Forgetting::Kind::Window || sinceRefactor_ < forgetting_.window(),
           "the window's refactoring count is out of range");
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
