#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sublinear/core/options.hpp"
#include "sublinear/core/persistent.hpp"
#include "sublinear/linear/catalogue.hpp"
#include "sublinear/linear/linear_policy.hpp"

namespace sublinear {

// A linear policy as a user holds it: made from `{ type, dim, ...options }` (dim required,
// 1..4096), or, over a shared catalogue (the context), from `{ type, ...options }` without dim
// (makeLinearPolicy's catalogue form). Its saved state is the options, then the policy's structures;
// a user's state (over a catalogue) has the envelope type "<type>@catalogue" and holds the
// catalogue's identity between the options and the policy's fields, which are then without arms or
// index (RidgePolicy::save over a catalogue).
//
// A user's state restores only over the catalogue it was saved over, or one loaded from that
// catalogue's snapshot, possibly changed since: the same identity. Without a catalogue, with one of
// another identity, or with one for a state that holds its own arms: INVALID_ARGUMENT naming the
// reason (the bytes are intact; the argument is wrong). Damaged bytes: CORRUPT_STATE.
//
// A user in the catalogue's subspace (ThompsonSampling) also records, after the identity, the basis
// version its model is in and that version's lineage fingerprint. It restores over a catalogue of
// the same identity that went through the same fits up to that version (later ones are fine: the
// model moves forward at its next call); a catalogue whose fits differ (changed in another process
// from the same snapshot, or an older snapshot than the user's) is INVALID_ARGUMENT too.
template <>
struct PersistenceFamily<LinearPolicy> : PersistenceFamilyDefaults {
  // The catalogue the policy reads its arms from, or null.
  using Context = std::shared_ptr<Catalogue>;
  static constexpr const char* kName = "linear policy";
  static constexpr const char* kNoun = "policy";
  static std::vector<std::string> stateTypes();
  static std::string stateType(const LinearPolicy& policy, const Context& catalogue) {
    return catalogue ? userStateType(policy.type()) : policy.type();
  }
  // Own arms from `{ type, dim, ...options }`; over `catalogue` (INVALID_ARGUMENT when null).
  static std::unique_ptr<LinearPolicy> make(const Json& spec);
  static std::unique_ptr<LinearPolicy> make(const Json& spec, const Context& catalogue);
  static std::unique_ptr<LinearPolicy> restore(StateReader& in, const Json& spec, const std::string& type, const Context& catalogue);
  static std::string expectedStateType(const std::string& expectedType, const ByteSource& bytes);
  static void checkContext(const ByteSource& bytes, const std::string& type, const Context& catalogue);
  static void writeHead(StateWriter& out, const LinearPolicy& policy, const Context& catalogue) {
    if (!catalogue) return;
    out.u64(catalogue->identity());
    // A user in the catalogue's subspace: the basis version its model is in and its lineage.
    std::uint64_t version = 0;
    std::uint64_t fingerprint = 0;
    if (policy.catalogueSubspaceLineage(version, fingerprint)) {
      out.u64(version);
      out.u64(fingerprint);
    }
  }

  // The envelope type of a user's state.
  static std::string userStateType(const std::string& policyType) { return policyType + "@catalogue"; }
};

using PersistentLinearPolicy = Persistent<LinearPolicy>;

}  // namespace sublinear
