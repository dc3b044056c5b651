#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/core/options.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/matroid/matroid.hpp"

namespace sublinear {

// A matroid semi-bandit policy (Tzeng et al., arXiv:2405.17968): each round select() plays a basis
// of the matroid and update() receives one reward in [a, b] per arm of that basis. The base class
// owns the matroid (a copy), the per-arm statistics N_k and mu^_k, validation, and the initial
// phase that pulls every arm once; subclasses choose bases.
//
// Common options: a, b (reward range, a < b; default 0 and 1), horizon (T, default 10000), seed.
// update() checks, before changing anything: a select() is pending (INVALID_ARGUMENT), the basis
// has the selected length and the rewards the basis's length (DIMENSION_MISMATCH), the basis is the
// selected one, in any order (INVALID_ARGUMENT), rewards finite (NON_FINITE) and in [a, b]
// (INVALID_ARGUMENT).
class SemiBanditPolicy {
 public:
  SemiBanditPolicy(const Matroid& matroid, const Json& options);
  virtual ~SemiBanditPolicy() = default;

  // Kebab-case type name: "cucb", "faster-cucb", "cts".
  virtual std::string type() const = 0;

  // The basis to play this round (arm indices, rank() of them).
  const std::vector<Id>& select();
  void update(const Id* basis, std::size_t basisLength, const double* rewards, std::size_t rewardLength);

  const Matroid& matroid() const { return *matroid_; }
  std::size_t armCount() const { return armCount_; }
  double rewardLow() const { return a_; }
  double rewardHigh() const { return b_; }
  std::int64_t horizon() const { return horizon_; }
  // Rounds completed (updates received).
  std::int64_t rounds() const { return rounds_; }
  std::uint64_t pulls(Id arm) const { return pulls_[arm]; }
  double empiricalMean(Id arm) const { return means_[arm]; }
  // lambda_t = sqrt(1.5 (b - a)^2 log t), the confidence width of CUCB (Tzeng et al., Theorem 5.1).
  double confidenceWidth(std::int64_t t) const;
  // The UCB index mu^_k + lambda_t / sqrt(N_k) of a pulled arm at round t.
  double ucbIndex(Id arm, std::int64_t t) const;
  // Whether every playable arm (every non-loop) has been pulled at least once.
  bool initialPullsDone() const { return !initialPhase_; }
  // Work counters: { rounds, armsScanned, ... }.
  virtual Json stats() const;

  // Snapshot (core/snapshot.hpp), after the matroid: every field the policy's future depends on.
  // load() runs on a policy just constructed over the saved matroid with the same options and
  // validates what it reads (CORRUPT_STATE). Subclasses write their fields after the base's.
  virtual void save(StateWriter& out) const;
  virtual void load(StateReader& in);
  // Every snapshot holds at least this many bytes per arm (N_k and mu^_k), so a restore can bound
  // the arm count by the bytes that remain before anything is allocated for the arms.
  static constexpr std::size_t kSavedBytesPerArm = 16;

 protected:
  // The basis for round t (1-based) once the initial pulls are done (or from the start for
  // policies that do not need them).
  virtual std::vector<Id> chooseBasis(std::int64_t t) = 0;
  // Called after arm's N_k and mu^_k changed.
  virtual void armUpdated(Id arm, double reward) { (void)arm, (void)reward; }
  // Called once, at the update that completes the initial pulls.
  virtual void initialPullsCompleted() {}
  // Policies that start from a prior (CTS) skip the initial pulls.
  virtual bool needsInitialPulls() const { return true; }

  Random& random() { return random_; }
  std::uint64_t armsScanned_ = 0;

 private:
  std::vector<Id> basisCoveringUnpulled();
  void validateUpdate(const Id* basis, std::size_t basisLength, const double* rewards, std::size_t rewardLength) const;

  std::unique_ptr<Matroid> matroid_;
  std::size_t armCount_;
  double a_;
  double b_;
  std::int64_t horizon_;
  Random random_;
  std::int64_t rounds_ = 0;
  std::vector<std::uint64_t> pulls_;
  std::vector<double> means_;
  // Playable arms not pulled yet, in a random order (so that the bases covering them fill fast
  // whatever the arms' numbering), and a basis used to complete those bases.
  std::vector<Id> unpulled_;
  std::vector<std::uint32_t> unpulledPosition_;
  bool unpulledListed_ = false;
  std::vector<Id> referenceBasis_;
  std::unique_ptr<IndependenceOracle> oracle_;
  std::vector<Id> selected_;
  bool pending_ = false;
  bool initialPhase_ = true;
};

}  // namespace sublinear
