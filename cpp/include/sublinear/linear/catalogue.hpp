#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/core/options.hpp"
#include "sublinear/core/state_codec.hpp"
#include "sublinear/linear/arm_set.hpp"
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
//   index  ({ type: "hnsw", M: 8 (16 above 32 dimensions), efConstruction: 16 }) the MIPS index, the
//          defaults Sub-TS gives its own graph for that dimension (SubTS::graphDefaults)
//   seed   (0) the index's seed, unless index.seed
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
  // The label given at add (0 when none was); precondition has(id).
  std::uint32_t labelOf(Id id) const { return arms_.labelOf(id); }

  // features: count * dim() doubles, row-major; labels: null (every label 0) or `labelCount ==
  // count` labels. DIMENSION_MISMATCH / NON_FINITE / DUPLICATE_ID / INVALID_ARGUMENT, nothing added.
  void add(const Id* ids, std::size_t count, const double* features, std::size_t featureLength,
           const std::uint32_t* labels = nullptr, std::size_t labelCount = 0);
  // UNKNOWN_ID / DUPLICATE_ID, nothing removed.
  void remove(const Id* ids, std::size_t count);
  // The index's waiting items into its structure now (MipsIndex::build); returns how many still wait.
  std::size_t build(std::size_t maxItems) { return index_->build(maxItems); }

  // { type, dim, size, identity, labelled (arms whose label is not 0), index: the index's stats }
  Json stats() const;

  // The snapshot: options, identity, arms (ids, features, labels in row order), then the index.
  std::vector<std::uint8_t> toBytes() const;
  // CORRUPT_STATE for damaged bytes or another type's state.
  static std::shared_ptr<Catalogue> fromBytes(const std::uint8_t* bytes, std::size_t length);

  // The envelope's type name.
  static constexpr const char* kType = "catalogue";

 private:
  // The identity (and nothing else) is the saved one's; the rest is read after construction.
  void load(StateReader& in);

  Json options_;
  std::uint64_t identity_;
  // The arms with their labels; the index holds the same labels, so that users' filtered searches
  // of it see them.
  ArmSet arms_;
  std::unique_ptr<MipsIndex> index_;
};

}  // namespace sublinear
