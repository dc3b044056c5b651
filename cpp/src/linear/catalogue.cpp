#include "sublinear/linear/catalogue.hpp"

#include <algorithm>
#include <cstdio>
#include <random>

#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/snapshot.hpp"
#include "sublinear/core/state_inspection.hpp"
#include "sublinear/linear/linear_option_tables.hpp"
#include "sublinear/linear/policy_index.hpp"
#include "sublinear/linear/projected_arms.hpp"
#include "sublinear/linear/saved_arms.hpp"
#include "sublinear/linear/sub_ts.hpp"

namespace sublinear {

namespace {
const Json& checkedOptions(const Json& options) {
  requireObject(options, "catalogue options");
  optionTable("catalogue", Catalogue::kType).check(options);
  require(options.is_object() && options.contains("dim"), ErrorCode::InvalidArgument, "option 'dim' is required");
  return options;
}

int readCatalogueDimension(const Json& options) {
  return static_cast<int>(readIntegerOption(option_groups::catalogue(), checkedOptions(options), "dim"));
}

// Two draws of 32 bits: std::random_device's result_type is 32-bit unsigned on both standard libraries.
std::uint64_t drawIdentity() {
  std::random_device device;
  const std::uint64_t high = device();
  return (high << 32) | device();
}

// FNV-1a over the basis's bits, started from the previous version's fingerprint: two catalogues of
// one identity share a fingerprint at version v only when they went through the same v fits.
std::uint64_t chainFingerprint(std::uint64_t previous, const Matrix& basis) {
  std::uint64_t hash = 0xCBF29CE484222325ULL ^ previous;
  const auto* bytes = reinterpret_cast<const unsigned char*>(basis.data());
  const std::size_t length = static_cast<std::size_t>(basis.size()) * sizeof(double);
  for (std::size_t i = 0; i < length; ++i) {
    hash ^= bytes[i];
    hash *= 0x100000001B3ULL;
  }
  return hash == 0 ? 1 : hash;  // 0 names "no fit"
}

void floatRows(const double* features, std::size_t count, std::size_t dim, std::vector<float>& out) {
  out.resize(count * dim);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>(features[i]);
}
// The float copies of `count` stored rows from `first` on (the index's vectors), read a piece at a time.
class StoredFloatRows final : public FloatSource {
 public:
  StoredFloatRows(const ArmSet& arms, std::size_t first, std::size_t count)
      : arms_(arms), first_(first), length_(count * static_cast<std::size_t>(arms.dim())) {}
  std::size_t length() const override { return length_; }
  void read(std::size_t first, std::size_t count, float* piece) const override {
    const auto d = static_cast<std::size_t>(arms_.dim());
    for (std::size_t at = first; at < first + count;) {
      const std::size_t row = first_ + at / d;
      const std::size_t column = at % d;
      const std::size_t take = std::min(d - column, first + count - at);
      std::copy_n(arms_.floatRowData(row) + column, take, piece + (at - first));
      at += take;
    }
  }

 private:
  const ArmSet& arms_;
  std::size_t first_;
  std::size_t length_;
};

// inspectState: a catalogue's state holds its identity, then its arm count, after the options (toBytes).
void describeCatalogueState(const std::string& type, const Json&, StateReader& in, Json& summary) {
  if (type != Catalogue::kType) return;
  summary["catalogueIdentity"] = Catalogue::identityText(in.u64());
  summary["sizes"]["arms"] = in.u64();
}
const bool kCatalogueStateDescribed = addStateDescriber(&describeCatalogueState);
}  // namespace

Catalogue::Catalogue(const Json& options)
    : options_(options),
      identity_(drawIdentity()),
      arms_(readCatalogueDimension(options)),
      subspaceModelDim_(static_cast<int>(std::min<long long>(
          readIntegerOption(option_groups::catalogue(), options, "modelDim", kDefaultModelDim), arms_.dim()))),
      subspaceEnergy_(readOption(option_groups::catalogue(), options, "subspaceEnergy")),
      subspaceOptionsGiven_(isGiven(options, "modelDim") || isGiven(options, "subspaceEnergy")),
      seed_(readSeedOption(option_groups::catalogue(), options)) {
  // Sub-TS's own graph defaults for this dimension: users over the catalogue search it as Sub-TS
  // searches its own graph, and the reasons for those defaults (thompson_sampling.cpp) hold for it alike.
  const PolicyIndexSpec spec(options, "hnsw", SubTS::graphDefaults(arms_.dim()));
  index_ = spec.make(static_cast<std::size_t>(arms_.dim()));
  // The users that keep widths (LinUCB, the elimination policies) scan every arm at every select
  // from a float copy of the rows, as they do over their own arms (so that a user chooses what the
  // same policy over its own copy chooses): 4 bytes a feature, once for every user.
  arms_.keepFloatRows();
  arms_.keepStamps();
}

std::string Catalogue::identityText(std::uint64_t identity) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(identity));
  return text;
}

void Catalogue::add(const Id* ids, std::size_t count, const double* features, std::size_t featureLength,
                    const std::uint32_t* labels, std::size_t labelCount) {
  if (labels == nullptr) return add(ids, count, features, featureLength, static_cast<const ItemAttributes*>(nullptr));
  if (labelCount != count) fail(ErrorCode::InvalidArgument, "labels: expected one per arm (" + std::to_string(count) + "), got " + std::to_string(labelCount));
  const ItemAttributes batch = ItemAttributes::withLabels(labels, labelCount);
  add(ids, count, features, featureLength, &batch);
}

void Catalogue::add(const Id* ids, std::size_t count, const DoubleSource& features, const ItemAttributes* attributes) {
  arms_.checkAdd(ids, count, features, attributes);
  // The new rows are stamped with a new revision (ArmSet::keepStamps): a user that knew one of these
  // ids (removed and added again since its last call) sees a new arm, not the one it kept a width or
  // a stage for.
  arms_.add(ids, count, features, attributes);
  const std::size_t first = arms_.size() - count;
  try {
    // The float copy of the new rows (keepFloatRows) is what the index stores (the same casts).
    index_->add(ids, count, StoredFloatRows(arms_, first, count), arms_.attributesOfRows(first, count));
  } catch (...) {
    arms_.remove(ids, count);
    throw;
  }
  // The projected rows of the new arms in the current basis (a refit due after this add recomputes
  // them all at the next need), projected from the stored rows: the same bits as from the batch
  // (ArmSubspace::project's fixed order of operations).
  if (projected_ && projectedVersion_ > 0) {
    try {
      ProjectedArms::appendProjections(*subspace_, arms_, first, count, *projected_);
    } catch (...) {
      index_->remove(ids, count);
      arms_.remove(ids, count);
      throw;
    }
  }
}

void Catalogue::setLabels(const Id* ids, std::size_t count, const ItemAttributes& labels) {
  arms_.checkChanges(ids, count, labels);
  // Every copy of the arms' attributes (the index's, the projected rows') takes the same change; the
  // index's structure and the rows do not move.
  index_->setLabels(ids, count, labels);
  arms_.setLabels(ids, count, labels);
  if (projected_ && projectedVersion_ > 0) projected_->setLabels(ids, count, labels);
}

void Catalogue::setValues(const Id* ids, std::size_t count, const ItemAttributes& values) {
  arms_.checkChanges(ids, count, values);
  index_->setValues(ids, count, values);
  arms_.setValues(ids, count, values);
  if (projected_ && projectedVersion_ > 0) projected_->setValues(ids, count, values);
}

void Catalogue::setFeatures(const Id* ids, std::size_t count, const double* features, std::size_t featureLength) {
  arms_.checkFeatures(ids, count, features, featureLength);
  std::vector<float> vectors;
  floatRows(features, count, static_cast<std::size_t>(arms_.dim()), vectors);
  const bool projecting = projected_ && projectedVersion_ > 0;
  const std::vector<double> projections = projecting ? projectRows(features, count) : std::vector<double>();
  // The index first: the one step that allocates much and can fail (it leaves itself unchanged).
  // The rows then change in place, stamped with the new revision, so that the users that keep
  // something per row see these arms as new at their next call (LinUCB::synchronise).
  index_->setFeatures(ids, count, vectors.data(), vectors.size());
  arms_.setFeatures(ids, count, features);
  if (projecting) projected_->setFeatures(ids, count, projections.data());
}

void Catalogue::remove(const Id* ids, std::size_t count) {
  arms_.checkRemove(ids, count);
  index_->remove(ids, count);
  arms_.remove(ids, count);
  // The same removals move the same rows (ArmSet::remove moves the last row into each hole).
  if (projected_ && projectedVersion_ > 0) projected_->remove(ids, count);
  if (subspace_) subspace_->noteRemoved(count);
}

const ArmSet& Catalogue::projectedArms() {
  if (!projected_) {
    projected_ = std::make_unique<ArmSet>(subspaceModelDim_);
    projected_->keepFloatRows();
  }
  return *projected_;
}

const ArmSet& Catalogue::projectedArmsCurrent() {
  projectedArms();
  armSubspace();
  if (projectedVersion_ != subspaceVersion()) fillProjected();
  return *projected_;
}

void Catalogue::project(const double* features, double* z) const {
  // ArmSubspace::project, the projection every policy in a subspace uses: a fixed order of
  // operations, so the same bits wherever x lies in memory (the catalogue's rows move when arms are
  // removed).
  const Vector projected = subspace_->project(features);
  std::copy(projected.data(), projected.data() + projected.size(), z);
}

std::vector<double> Catalogue::projectRows(const double* features, std::size_t count) const {
  const auto d = static_cast<std::size_t>(arms_.dim());
  const auto r = static_cast<std::size_t>(subspaceModelDim_);
  std::vector<double> z(count * r);
  for (std::size_t i = 0; i < count; ++i) project(features + i * d, z.data() + i * r);
  return z;
}

void Catalogue::fillProjected() {
  // Built aside and moved in: the object keeps its address (users hold references to it), and a
  // failure leaves the previous rows and version.
  ArmSet fresh(subspaceModelDim_);
  fresh.keepFloatRows();
  ProjectedArms::appendProjections(*subspace_, arms_, 0, arms_.size(), fresh);
  // The projected rows are the arms' rows in the same order: the same stamps and revision, which
  // every later add and setFeatures advances in both.
  fresh.copyStamps(arms_);
  *projected_ = std::move(fresh);
  projectedVersion_ = subspaceVersion();
}

std::size_t Catalogue::projectedBytes() const {
  if (!projected_) return 0;
  // Doubles, their float copy, the id and label of each row (the id map's buckets not counted).
  return projected_->size() * (static_cast<std::size_t>(subspaceModelDim_) * (sizeof(double) + sizeof(float)) + sizeof(Id) + sizeof(Label));
}

const ArmSubspace& Catalogue::armSubspace() {
  if (!subspace_) subspace_ = std::make_unique<ArmSubspace>(arms_.dim(), subspaceModelDim_, subspaceEnergy_, seed_);
  if (subspace_->due(arms_.size())) {
    // Room first, so that nothing after the fit can fail and leave a basis without its version.
    transitions_.reserve(transitions_.size() + 1);
    fingerprints_.reserve(fingerprints_.size() + 1);
    Matrix change = subspace_->fit(arms_);
    if (!fingerprints_.empty()) transitions_.push_back(std::move(change));
    fingerprints_.push_back(chainFingerprint(subspaceFingerprint(subspaceVersion()), subspace_->basis()));
  }
  return *subspace_;
}

Json Catalogue::stats() const {
  std::size_t labelled = 0;
  const ItemAttributes& attributes = arms_.attributes();
  for (std::size_t row = 0; row < attributes.size(); ++row) {
    labelled += attributes.labelCount(row) != 1 || attributes.singleLabel(row) != 0 ? 1 : 0;
  }
  Json result{{"type", kType},
              {"dim", dim()},
              {"size", size()},
              {"identity", identityText()},
              {"labelled", labelled},
              {"index", index_->stats()},
              {"innerProducts", index_->innerProducts()}};
  if (const ArmSubspace* subspace = fittedSubspace()) {
    result["subspace"] = subspace->stats();
    const std::size_t r = static_cast<std::size_t>(subspaceModelDim_);
    result["subspace"]["basisBytes"] = static_cast<std::size_t>(arms_.dim()) * r * sizeof(double);
    result["subspace"]["transitionBytes"] = transitions_.size() * r * r * sizeof(double);
    result["subspace"]["projectedBytes"] = projectedBytes();
  }
  return result;
}

std::vector<std::uint8_t> Catalogue::toBytes() const {
  StateWriter out(kType);
  write(out);
  return out.finish();
}

void Catalogue::saveTo(StateSink& sink) const {
  StateWriter out(kType, sink);
  write(out);
  out.finishStream();
}

void Catalogue::write(StateWriter& out) const {
  out.json(options_);
  out.u64(identity_);
  saveArmSet(arms_, out);
  index_->save(out);
  // The subspace: its fits, then (once fitted) the basis, the transitions and the fingerprints.
  out.u64(subspaceVersion());
  if (subspaceVersion() > 0) {
    subspace_->save(out);
    for (const Matrix& transition : transitions_) out.matrix(transition);
    out.u64s(fingerprints_.data(), fingerprints_.size());
  }
  // The revision and the rows' stamps, so that a user saved before a change and restored over the
  // catalogue saved after it sees the changed and added arms as new.
  out.u64(arms_.revision());
  out.u64s(arms_.stamps().data(), arms_.stamps().size());
}

std::shared_ptr<Catalogue> Catalogue::fromBytes(const std::uint8_t* bytes, std::size_t length) {
  return fromBytes(BytesInMemory(bytes, length));
}

std::shared_ptr<Catalogue> Catalogue::fromBytes(const ByteSource& bytes) {
  savedTypeOf(bytes, {kType}, kType, "catalogue");
  StateReader reader(bytes, kType);
  std::shared_ptr<Catalogue> restored;
  loadSnapshot(reader, [&](StateReader& in) {
    restored = std::make_shared<Catalogue>(readOptions(in));
    restored->load(in);
  });
  return restored;
}

void Catalogue::load(StateReader& in) {
  identity_ = in.u64();
  const auto d = static_cast<std::size_t>(arms_.dim());
  loadArmSet(arms_, in, sizeof(Id) + sizeof(std::uint32_t) + d * sizeof(double));
  const std::size_t count = arms_.size();
  index_->load(in);
  // The index holds exactly the arms, as float copies of their features.
  in.check(index_->size() == count, "the index does not hold the arms");
  std::vector<float> expected(d);
  for (std::size_t row = 0; row < count; ++row) {
    const Id id = arms_.idAt(row);
    in.check(index_->contains(id), "arm " + std::to_string(id) + " is missing from the index");
    in.check(index_->attributes().sameRow(index_->items().rowOf(id), arms_.attributes(), row),
             "the index holds other attributes for arm " + std::to_string(id));
    const double* x = arms_.rowData(row);
    for (std::size_t j = 0; j < d; ++j) expected[j] = static_cast<float>(x[j]);
    in.check(index_->items().holds(index_->items().rowOf(id), expected.data()), "the index holds another vector for arm " + std::to_string(id));
  }
  const std::uint64_t versions = in.u64();
  if (versions > 0) loadSubspace(in, versions);
  const std::uint64_t revision = in.u64();
  std::vector<std::uint64_t> stamps = in.u64s();
  in.check(stamps.size() == count, "the arms' stamps do not match the arms");
  for (const std::uint64_t stamp : stamps) in.check(stamp <= revision, "an arm's stamp is beyond the catalogue's revision");
  arms_.restoreStamps(std::move(stamps), revision);
}

void Catalogue::loadSubspace(StateReader& in, std::uint64_t versions) {
  auto subspace = std::make_unique<ArmSubspace>(arms_.dim(), subspaceModelDim_, subspaceEnergy_, seed_);
  subspace->load(in);
  in.check(subspace->fits() == versions, "the subspace's fits do not match its versions");
  // Each transition is modelDim^2 doubles: check the bytes hold them before allocating.
  const auto r = static_cast<std::size_t>(subspaceModelDim_);
  in.check(in.remaining() / sizeof(double) / r / r >= versions - 1, "the subspace's transitions exceed the state");
  std::vector<Matrix> transitions;
  for (std::uint64_t v = 2; v <= versions; ++v) {
    transitions.push_back(in.matrix(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(r)));
    in.check(transitions.back().allFinite(), "a subspace transition holds a non-finite entry");
  }
  std::vector<std::uint64_t> fingerprints = in.u64s();
  in.check(fingerprints.size() == versions, "the subspace's fingerprints do not match its versions");
  // The last fingerprint names the basis held (the earlier ones name bases no longer kept).
  const std::uint64_t previous = versions >= 2 ? fingerprints[versions - 2] : 0;
  in.check(fingerprints.back() == chainFingerprint(previous, subspace->basis()), "the subspace's fingerprint does not match its basis");
  subspace_ = std::move(subspace);
  transitions_ = std::move(transitions);
  fingerprints_ = std::move(fingerprints);
}

}  // namespace sublinear
