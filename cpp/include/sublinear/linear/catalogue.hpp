#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/core/options.hpp"
#include "sublinear/core/state_codec.hpp"
#include "sublinear/linear/arm_set.hpp"
#include "sublinear/linear/arm_subspace.hpp"
#include "sublinear/mips/mips_index.hpp"

namespace sublinear {

// One arm set shared by many users, each a linear policy with its own model (RidgePolicy's
// constructor over a catalogue): ids, double features (and their float copy, which the users that
// keep widths scan), a label per arm, and ONE MIPS index over the features, stored once. A web shop's catalogue is the same for every visitor; only the ridge
// statistics differ, so a user costs O(d^2) bytes, not O(K d).
//
// Policies hold it through std::shared_ptr: a catalogue lives until its last user goes, so a caller
// that disposes of it while users still hold it loses only its own handle, never a user's arms.
// Changes (add, remove) are seen by every user at its next call, since users read these arms and
// this index directly.
//
// Options (optionTable("catalogue", "catalogue")):
//   dim    required, 1..4096 (the linear policies' range)
//   index  the MIPS index; by default the graph Sub-TS gives itself for that dimension
//          (ThompsonSampling::graphDefaults, graphDefaultsText in the option table)
//   seed   (0) the index's seed, unless index.seed; also the seed of the subspace's range finder
//   modelDim (min(d, 32)), subspaceEnergy (0.6)  the arms' principal subspace that users learn in
//          (ArmSubspace; LinUCB and the elimination users over the projected rows, below): the catalogue's, one basis for every user, so these are its options.
//          The default is not a policy's own 256: a catalogue serves many users, and at 32 a user's
//          model (3 x 32^2 doubles, 24 KiB) keeps the catalogue's bound of 64 KiB a user at every d up
//          to 4,096; on the generated embeddings (d 128 to 1,536, rank 20 to 200) and Fashion-MNIST
//          users learned as well as at 48 and 256 (bench/results/subspace-catalogue.md).
//
// The subspace: one ArmSubspace of the catalogue's arms, fitted when a user that learns in it first
// needs it and again when the arms have doubled or lost half since (the rule of a policy over its own
// arms). Each fit is a version; the catalogue keeps, for every version v >= 2, the transition M_v =
// B_v^T B_{v-1} (modelDim x modelDim), with which a user whose model is in version v - 1 moves it to
// v at its next call, and a fingerprint of the lineage (a hash of every basis so far, chained), which
// a user's snapshot records so that it restores only over a catalogue that went through the same fits.
//
// The projected rows: LinUCB and the elimination users score every arm at every step, in the
// subspace over z = B^T x. The catalogue keeps these rows once for all of them (projectedArms), so
// that a user reads modelDim floats a row instead of d and holds nothing of d.
//
// The identity is a 64-bit name drawn from std::random_device when the catalogue is made and kept
// in its snapshot, so every process that loads the snapshot holds the same catalogue by name. A
// user's snapshot records it, and is refused over a catalogue of another identity.
class Catalogue {
 public:
  explicit Catalogue(const Json& options);
  Catalogue(const Catalogue&) = delete;
  Catalogue& operator=(const Catalogue&) = delete;

  int dim() const { return arms_.dim(); }
  std::size_t size() const { return arms_.size(); }
  bool has(Id id) const { return arms_.contains(id); }
  const ArmSet& arms() const { return arms_; }
  // Users search it (a search counts work and may build a slice of an incremental graph).
  MipsIndex& index() { return *index_; }
  const MipsIndex& index() const { return *index_; }
  std::uint64_t identity() const { return identity_; }
  // The identity as 16 lowercase hex digits (stats().identity).
  std::string identityText() const { return identityText(identity_); }
  static std::string identityText(std::uint64_t identity);
  // The label given at add to an arm given one (0 when none was); precondition has(id).
  std::uint32_t labelOf(Id id) const { return arms_.labelOf(id); }

  // features: count * dim() doubles, row-major; labels: null (every label 0) or `labelCount ==
  // count` labels. DIMENSION_MISMATCH / NON_FINITE / DUPLICATE_ID / INVALID_ARGUMENT, nothing added.
  void add(const Id* ids, std::size_t count, const double* features, std::size_t featureLength,
           const std::uint32_t* labels = nullptr, std::size_t labelCount = 0);
  // attributes: null or one row per arm (labels and values).
  void add(const Id* ids, std::size_t count, const double* features, std::size_t featureLength, const ItemAttributes* attributes) {
    add(ids, count, DoublesInMemory(features, featureLength), attributes);
  }
  // The same with the features read a piece at a time (a JS array beside the wasm heap): checked in
  // a pass over the pieces, then stored in another, and the index and the projected rows fed from
  // the stored rows, so that no whole copy of the batch (nor its float copy, nor its projections)
  // is ever in memory beside the arms.
  void add(const Id* ids, std::size_t count, const DoubleSource& features, const ItemAttributes* attributes);
  // Row i of the batch for arm ids[i]: its labels, or the values the batch holds (others stay). The
  // attributes only: the index's structure and every row stay where they are, and users see the
  // change at their next call. UNKNOWN_ID / DUPLICATE_ID / DIMENSION_MISMATCH / INVALID_ARGUMENT,
  // nothing changed.
  void setLabels(const Id* ids, std::size_t count, const ItemAttributes& labels);
  void setValues(const Id* ids, std::size_t count, const ItemAttributes& values);
  // New features for stored arms (count * dim() doubles, row-major), in place: labels and values
  // stay, the index takes the new vectors (MipsIndex::setFeatures), and the users see the changed
  // arms as new ones at their next call (their rows are stamped with the new revision()).
  // UNKNOWN_ID / DUPLICATE_ID / DIMENSION_MISMATCH / NON_FINITE / INVALID_ARGUMENT, nothing changed.
  void setFeatures(const Id* ids, std::size_t count, const double* features, std::size_t featureLength);
  // How many add and setFeatures calls changed the arms so far (saved with the catalogue): each
  // stamps the rows it wrote with its revision (ArmSet::stampOf; the projected rows carry the same).
  std::uint64_t revision() const { return arms_.revision(); }
  // UNKNOWN_ID / DUPLICATE_ID, nothing removed.
  void remove(const Id* ids, std::size_t count);
  // The index's waiting items into its structure now (MipsIndex::build); returns how many still wait.
  std::size_t build(std::size_t maxItems) { return index_->build(maxItems); }

  // modelDim's default over a catalogue (see above).
  static constexpr int kDefaultModelDim = 32;
  // The subspace every user over the catalogue that learns in one learns in (see above).
  int subspaceModelDim() const { return subspaceModelDim_; }
  double subspaceEnergy() const { return subspaceEnergy_; }
  // Whether the catalogue's options name modelDim or subspaceEnergy (subspace 'auto' then asks for
  // it at any d, as these options do for a policy over its own arms).
  bool subspaceOptionsGiven() const { return subspaceOptionsGiven_; }
  // Fits the subspace when it is due (never fitted and arms present, doubled, or lost half) and
  // returns the current basis (unfitted when the catalogue has no arm yet). The fit is the one
  // change a user's call makes to the catalogue: it serves every user after it.
  const ArmSubspace& armSubspace();
  // The current basis, or null before the first fit.
  const ArmSubspace* fittedSubspace() const { return subspaceVersion() > 0 ? subspace_.get() : nullptr; }
  // The fits so far (0: none).
  std::uint64_t subspaceVersion() const { return fingerprints_.size(); }
  // M_v = B_v^T B_{v-1}, for 2 <= version <= subspaceVersion().
  const Matrix& subspaceTransition(std::uint64_t version) const { return transitions_[version - 2]; }
  // The lineage's fingerprint at `version` (0 for version 0), for version <= subspaceVersion().
  std::uint64_t subspaceFingerprint(std::uint64_t version) const { return version == 0 ? 0 : fingerprints_[version - 1]; }

  // The projected rows z = B^T x of the arms in the current basis, for the users that scan their
  // arms in the subspace (LinUCB, the elimination policies): an ArmSet of subspaceModelDim()
  // dimensions with the catalogue's ids and labels in the catalogue's row order, with its float copy
  // (KeptWidths reads it). The object is made at the first call (a catalogue without such users never
  // holds one) and stays at the same address for the catalogue's life, so a user may hold a
  // reference to it; its rows are filled by projectedArmsCurrent().
  const ArmSet& projectedArms();
  // Fits the subspace when due (armSubspace()) and brings the projected rows to its current version
  // (all recomputed after a refit, the missing ones computed at the first call); returns them.
  const ArmSet& projectedArmsCurrent();
  // B^T x into z (subspaceModelDim() doubles) with the current basis: the projection the projected
  // rows hold, computed by the same function so that a user's observation of an arm sees the bits
  // of its row (precondition: fittedSubspace()).
  void project(const double* features, double* z) const;
  // Bytes of the projected rows (0 without them): in stats().subspace.projectedBytes.
  std::size_t projectedBytes() const;

  // { type, dim, size, identity, labelled (arms whose label is not 0), index: the index's stats,
  //   subspace: { modelDim, rank, energy, fits } once fitted, with transitionBytes }
  Json stats() const;

  // The snapshot: options, identity, arms (ids, features, labels in row order), then the index.
  std::vector<std::uint8_t> toBytes() const;
  // The same bytes handed to `sink` a piece at a time (Persistent<T>::saveTo's form).
  void saveTo(StateSink& sink) const;
  // CORRUPT_STATE for damaged bytes or another type's state.
  static std::shared_ptr<Catalogue> fromBytes(const std::uint8_t* bytes, std::size_t length);
  // The same from a state read a piece at a time when it lies outside memory (a JS array beside the
  // wasm heap), as Persistent<T>::fromBytes reads one: never whole in memory beside the catalogue.
  static std::shared_ptr<Catalogue> fromBytes(const ByteSource& bytes);

  // The envelope's type name.
  static constexpr const char* kType = "catalogue";

 private:
  // The snapshot's fields (toBytes, saveTo).
  void write(StateWriter& out) const;
  // The identity (and nothing else) is the saved one's; the rest is read after construction.
  void load(StateReader& in);
  // The subspace's basis, transitions and fingerprints, after its `versions` fits.
  void loadSubspace(StateReader& in, std::uint64_t versions);

  Json options_;
  std::uint64_t identity_;
  // The arms with their labels; the index holds the same labels, so that users' filtered searches
  // of it see them.
  ArmSet arms_;
  std::unique_ptr<MipsIndex> index_;
  // The subspace (made at its first fit), a transition per refit and a fingerprint per fit.
  int subspaceModelDim_;
  double subspaceEnergy_;
  bool subspaceOptionsGiven_;
  std::uint64_t seed_;
  std::unique_ptr<ArmSubspace> subspace_;
  std::vector<Matrix> transitions_;
  std::vector<std::uint64_t> fingerprints_;
  // The projected rows (made at the first projectedArms()) and the basis version they are in (0:
  // not filled yet). add and remove keep them in step with arms_ once filled.
  std::unique_ptr<ArmSet> projected_;
  std::uint64_t projectedVersion_ = 0;
  // Recomputes every projected row with the current basis.
  void fillProjected();
  // The projections of `count` features (count * dim() doubles), count * subspaceModelDim() doubles.
  std::vector<double> projectRows(const double* features, std::size_t count) const;
};

}  // namespace sublinear
