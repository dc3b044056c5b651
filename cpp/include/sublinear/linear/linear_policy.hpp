#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sublinear/core/error.hpp"
#include "sublinear/core/id.hpp"
#include "sublinear/core/options.hpp"
#include "sublinear/core/piece_source.hpp"
#include "sublinear/core/state_codec.hpp"
#include "sublinear/core/ridge_regression.hpp"
#include "sublinear/mips/item_attributes.hpp"
#include "sublinear/mips/vector_store.hpp"

namespace sublinear {

// Which arms a selection may return (the filters of API v2), combined with AND: never an arm whose id
// is in `exclude` (ids not in the set are ignored: a page's shown items may have left it), and with
// `labels` non-empty only an arm whose label is listed.
struct ArmFilter : AttributeFilter {
  std::vector<Id> exclude;
  bool empty() const { return exclude.empty() && AttributeFilter::empty(); }
};

// A decision (API v2 decide / decideSlate): the arms shown, best first, the event id their rewards
// are given back with (reward()), and per position the probability that the policy, in the state it
// decided in and under the same filters, shows that arm at that position: 1 or 0 for a deterministic
// policy, mixed with the uniform exploration of the `explore` option, and a Monte Carlo estimate for
// Thompson sampling (propensityErrors: its standard errors; 0 where the propensity is exact).
// prefixPropensities[j]: the probability that the policy shows the whole prefix arms[0..j] (a
// cascade estimator's logger probability): (1 - explore) [the prefix is its own] + explore /
// (E (E - 1) ... (E - j)) over E eligible arms for a deterministic policy, Thompson sampling's
// estimated from the same draws as its propensities. prefixPropensities[0] is propensities[0].
// policyArms: the policy's own slate, what it would have shown had it not explored (arms itself
// when it did not): the page the exploration mix draws around, which a pseudo-inverse estimator of
// the mix's pages needs ('page-pi'). For Thompson sampling, the draw the exploration replaced.
struct Decision {
  std::uint64_t eventId = 0;
  std::vector<Id> arms;
  std::vector<double> propensities;
  std::vector<double> propensityErrors;
  std::vector<double> prefixPropensities;
  std::vector<Id> policyArms;
};

// A linear bandit policy over a changing set of arms (one arm per step). Arms are identified by
// caller-chosen ids and carry d-dimensional features; select() returns an arm in the current set.
// Every method validates before it mutates: after an Error the policy is unchanged.
// Build one with makeLinearPolicy (policy_factory.hpp), which lists every type, option and default;
// the implementations share RidgePolicy (ridge_policy.hpp) and the ArmSet store (arm_set.hpp).
class LinearPolicy {
 public:
  virtual ~LinearPolicy() = default;

  // Kebab-case type name, as in `policy: { type }` ("lin-ucb", "sub-ts", ...).
  virtual std::string type() const = 0;
  virtual int dim() const = 0;
  virtual std::size_t armCount() const = 0;
  virtual bool hasArm(Id id) const = 0;
  // The features of an arm in the set (dim() doubles; precondition: hasArm(id)), valid until the
  // next change of the arms. Off-policy evaluation models rewards from them.
  virtual const double* featuresOf(Id id) const = 0;

  // features: count * dim() doubles, row-major; attributes: null (every arm label 0, no values) or
  // one row per arm; labels: null or one per arm.
  // DUPLICATE_ID / NON_FINITE / DIMENSION_MISMATCH / INVALID_ARGUMENT (attributes of another count).
  // The features read a piece at a time (a JS array beside the wasm heap, never copied there whole;
  // DoublesInMemory for features in memory), with the same checks and errors.
  virtual void addArms(const Id* ids, std::size_t count, const DoubleSource& features, const ItemAttributes* attributes) = 0;
  void addArms(const Id* ids, std::size_t count, const double* features, std::size_t featureLength,
               const ItemAttributes* attributes) {
    addArms(ids, count, DoublesInMemory(features, featureLength), attributes);
  }
  void addArms(const Id* ids, std::size_t count, const double* features, std::size_t featureLength, const Label* labels,
               std::size_t labelCount) {
    if (labels == nullptr) return addArms(ids, count, features, featureLength, static_cast<const ItemAttributes*>(nullptr));
    if (labelCount != count) {
      fail(ErrorCode::InvalidArgument, "labels: expected one per arm (" + std::to_string(count) + "), got " + std::to_string(labelCount));
    }
    const ItemAttributes batch = ItemAttributes::withLabels(labels, labelCount);
    addArms(ids, count, features, featureLength, &batch);
  }
  void addArms(const Id* ids, std::size_t count, const double* features, std::size_t featureLength) {
    addArms(ids, count, features, featureLength, nullptr, 0);
  }
  // UNKNOWN_ID (nothing removed) for an id not in the set.
  virtual void removeArms(const Id* ids, std::size_t count) = 0;
  // An arm the filter admits; EMPTY when there is none (no arm, or none eligible).
  virtual Id select(const ArmFilter& filter) = 0;
  Id select() { return select(ArmFilter{}); }
  // min(k, eligible) distinct arms the filter admits, best first (each policy says what "best"
  // means); EMPTY when none is eligible, INVALID_ARGUMENT for k = 0. Feedback is per position:
  // update(arm, reward) for each arm shown.
  virtual std::vector<Id> selectSlate(std::size_t k, const ArmFilter& filter) = 0;
  // UNKNOWN_ID for an arm not in the set, NON_FINITE for a non-finite reward.
  virtual void update(Id arm, double reward) = 0;
  // select() (slate false, k 1) or selectSlate(k), recorded as a pending decision with its propensities.
  virtual Decision decide(std::size_t k, const ArmFilter& filter, bool slate) = 0;
  // The rewards of a decision, one per arm shown, in any order of events and whenever they come: the
  // decision kept the arms' features. UNKNOWN_ID for an event this policy never decided or that
  // expired, INVALID_ARGUMENT for a second reward or a count other than the arms shown.
  virtual void reward(std::uint64_t eventId, const double* rewards, std::size_t count) = 0;
  // The probability of each arm that a selection in the current state shows at `position` of a
  // slate (0: what select() returns) under `filter`, as (arm, probability) pairs of the arms with a
  // positive one; empty when fewer than position + 1 arms are eligible. Thompson sampling estimates
  // it from `draws` posterior draws; the deterministic policies select once (which counts as a
  // selection: off-policy evaluation asks it of copies).
  virtual std::vector<std::pair<Id, double>> choiceDistribution(std::size_t position, const ArmFilter& filter,
                                                                std::size_t draws) = 0;
  // The number of arms `filter` admits (exactly): the E a decision's exploration draws from.
  virtual std::size_t eligibleCount(const ArmFilter& filter) const = 0;
  // Whether a selection is drawn at random (Thompson sampling: choiceDistribution is then an
  // estimate); the other policies choose deterministically given their state.
  virtual bool randomisedChoice() const { return false; }
  // The ridge estimate theta^.
  virtual Vector theta() const = 0;
  // Builds the structure of up to maxItems waiting arms of the policy's MIPS indexes now (HnswIndex
  // builds incrementally, a slice per search) and returns how many still wait; 0 without an index.
  virtual std::size_t buildIndex(std::size_t /*maxItems*/) { return 0; }
  // Work counters, at least { innerProducts } (the MIPS index's and the policy's own scoring).
  virtual Json stats() const = 0;
  // Weighs everything the model learned so far by `factor` in [0, 1] (forget(0): start over from
  // the prior); INVALID_ARGUMENT outside that range.
  virtual void forget(double factor) = 0;
  // A user over a catalogue that learns in the catalogue's subspace: the version of the basis its
  // model is in and that version's lineage fingerprint (Catalogue::subspaceFingerprint), which its
  // snapshot's head records. False for every other policy.
  virtual bool catalogueSubspaceLineage(std::uint64_t& /*version*/, std::uint64_t& /*fingerprint*/) const { return false; }

  // Snapshot (core/snapshot.hpp): every field the policy's future depends on. load() runs on a
  // policy just constructed with the same options and validates what it reads (CORRUPT_STATE).
  virtual void save(StateWriter& out) const = 0;
  virtual void load(StateReader& in) = 0;
};

}  // namespace sublinear
