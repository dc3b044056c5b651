#pragma once

// Fuzzing of fromBytes, one libFuzzer target per family (fuzz_state_<family>.cpp). Raw fuzzer
// bytes rarely pass the checksum, so each input first builds a small valid object of the family,
// takes its bytes, applies the fuzzer's edits and reseals the checksum: the decoder itself is
// exercised. The edits are structural as well as byte-level: aligned 32- and 64-bit fields of the
// payload are set to the values that break decoders (0, 1, -1, 2^31, 2^32 - 1, 2^63, a nearby
// count), so counts, ids, links and levels are pushed past their limits. Every outcome must be a
// working object or CORRUPT_STATE -- never a crash, a sanitizer report, a hang or a huge allocation.
//
// Allocations: one allocation above kHeapCap throws std::bad_alloc. A restore reports that as
// OUT_OF_MEMORY, and a restore of these few hundred bytes must never get there: every size a state
// implies is checked against its bytes first (issue 34), so OUT_OF_MEMORY from a restore is a
// finding. Using a restored object may still run out (it may legitimately grow).
// Included by exactly one file per target, which so defines the allocation operators.
#include <cstdlib>
#include <new>
#include <optional>
#include <vector>

#include "fuzz_input.hpp"
#include "sublinear/cls/cls_policy_factory.hpp"
#include "sublinear/cls/persistent_cls_policy.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/core/option_table.hpp"
#include "sublinear/core/state_codec.hpp"
#include "sublinear/linear/persistent_linear_policy.hpp"
#include "sublinear/linear/policy_factory.hpp"
#include "sublinear/matroid/semi_bandit_factory.hpp"
#include "sublinear/matroid/persistent_semi_bandit_policy.hpp"
#include "sublinear/matroid/uniform_matroid.hpp"
#include "sublinear/mips/index_factory.hpp"
#include "sublinear/mips/persistent_index.hpp"

namespace sublinear::fuzz {
constexpr std::size_t kHeapCap = std::size_t{64} << 20;
}  // namespace sublinear::fuzz

void* operator new(std::size_t size) {
  if (size > sublinear::fuzz::kHeapCap) throw std::bad_alloc();
  if (void* memory = std::malloc(size == 0 ? 1 : size)) return memory;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
// The nothrow forms too (libFuzzer uses them), so every new/delete pair is this one.
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return size > sublinear::fuzz::kHeapCap ? nullptr : std::malloc(size == 0 ? 1 : size);
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept { return operator new(size, tag); }
void operator delete(void* memory, const std::nothrow_t&) noexcept { std::free(memory); }
void operator delete[](void* memory, const std::nothrow_t&) noexcept { std::free(memory); }
void operator delete(void* memory) noexcept { std::free(memory); }
void operator delete[](void* memory) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t) noexcept { std::free(memory); }
void operator delete[](void* memory, std::size_t) noexcept { std::free(memory); }


namespace sublinear::fuzz {

enum Family { kIndex = 0, kLinear = 1, kSemiBandit = 2, kCombinatorial = 3 };

inline std::vector<std::uint8_t> validState(int family, std::uint8_t variant) {
  Random random(variant);
  switch (family) {
    case kIndex: {
      const auto types = mipsIndexTypes();
      Json spec{{"type", types[variant % types.size()]}, {"dim", 3}, {"seed", 1}};
      // M = 2: graphs with upper layers, so links of every layer are fuzzed.
      if (spec["type"] == "hnsw") spec["M"] = 2;
      PersistentIndex index(spec);
      std::vector<Id> ids(24);
      for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<Id>(3 * i + 1);
      std::vector<float> x(ids.size() * 3);
      for (auto& value : x) value = static_cast<float>(random.normal());
      index->add(ids.data(), ids.size(), x.data(), x.size());
      index->remove(ids.data(), 3);
      index->search(x.data(), 3, 2);
      return index.toBytes();
    }
    case 1: {
      const auto types = linearPolicyTypes();
      const std::string type = types[variant % types.size()];
      Json spec{{"type", type}, {"dim", 2}, {"seed", 1}};
      // LinUCB scans its arms itself and takes no index (an unknown option is refused).
      if (optionTable("linear-policy", type).find("index") != nullptr) spec["index"] = Json{{"type", "exact"}};
      PersistentLinearPolicy policy(spec);
      const Id ids[] = {7, 8, 9};
      const double x[] = {1, 0, 0, 1, 0.5, 0.5};
      policy->addArms(ids, 3, x, 6);
      for (int t = 0; t < 3; ++t) policy->update(policy->select(), random.normal());
      return policy.toBytes();
    }
    case 2: {
      const auto types = semiBanditPolicyTypes();
      auto policy = makePersistentSemiBanditPolicy(types[variant % types.size()], UniformMatroid(5, 2), Json{{"seed", 1}, {"horizon", 50}});
      for (int t = 0; t < 3; ++t) {
        const auto basis = policy->select();
        const double rewards[] = {1.0, 0.0};
        policy->update(basis.data(), basis.size(), rewards, 2);
      }
      return policy.toBytes();
    }
    default: {
      auto types = clsPolicyTypes();
      PersistentClsPolicy policy(Json{{"type", types[variant % types.size()]}, {"dim", 2}, {"seed", 1}});
      const double x[] = {1, 0, 0, 1, 0.5, 0.5};
      SuperArmConstraint constraint;
      constraint.k = 2;
      const auto rows = policy->select(x, 6, constraint);
      const double rewards[] = {1.0, -1.0};
      policy->update(rows.data(), rows.size(), rewards, 2);
      policy->select(x, 6, constraint);
      return policy.toBytes();
    }
  }
}

// Restoring may fail only with CORRUPT_STATE (not OUT_OF_MEMORY: see above); using what was
// restored may fail with any coded error.
template <typename Restore, typename Use>
void restoreAndUse(const Restore& restore, const Use& use) {
  std::optional<decltype(restore())> object;
  try {
    object.emplace(restore());
  } catch (const Error& error) {
    if (error.code() != ErrorCode::CorruptState) std::abort();
    return;
  }
  try {
    use(*object);
  } catch (const Error&) {
  } catch (const std::bad_alloc&) {
    // A restored object may be large enough to need more than the harness's small heap.
  }
}

inline void restoreFamily(int family, const std::vector<std::uint8_t>& bytes) {
  switch (family) {
    case 0:
      restoreAndUse([&] { return PersistentIndex::fromBytes(bytes.data(), bytes.size(), ""); }, [](PersistentIndex& index) {
        const std::vector<float> query(index->dim(), 0.5f);
        index->search(query.data(), query.size(), 2);
      });
      break;
    case 1:
      restoreAndUse([&] { return PersistentLinearPolicy::fromBytes(bytes.data(), bytes.size(), ""); },
                    [](PersistentLinearPolicy& policy) { policy->select(); });
      break;
    case 2:
      restoreAndUse([&] { return PersistentSemiBanditPolicy::fromBytes(bytes.data(), bytes.size(), ""); },
                    [](PersistentSemiBanditPolicy& policy) { policy->select(); });
      break;
    default:
      restoreAndUse([&] { return PersistentClsPolicy::fromBytes(bytes.data(), bytes.size(), ""); }, [](PersistentClsPolicy& policy) {
        std::vector<double> x(static_cast<std::size_t>(policy->dim()) * 3, 0.25);
        SuperArmConstraint constraint;
        constraint.k = 1;
        policy->select(x.data(), x.size(), constraint);
      });
  }
}
// Sets an aligned field of the payload to a value that breaks decoders.
inline void structuralEdit(std::vector<std::uint8_t>& bytes, FuzzInput& input) {
  if (bytes.size() < 16) return;
  const std::size_t width = input.byte() % 2 == 0 ? 4 : 8;
  const std::size_t at = (input.below(bytes.size() - 4 - width) / 4) * 4;
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < width; ++i) value |= static_cast<std::uint64_t>(bytes[at + i]) << (8 * i);
  static const std::uint64_t kBreaking[] = {0, 1, 2, 0x7FFFFFFFULL, 0x80000000ULL, 0xFFFFFFFFULL, 0x8000000000000000ULL,
                                            ~std::uint64_t{0}};
  const std::uint8_t choice = input.byte() % 11;
  if (choice < 8) value = kBreaking[choice];
  else if (choice == 8) value += 1;
  else if (choice == 9) value -= 1;
  else value *= 1000;
  for (std::size_t i = 0; i < width; ++i) bytes[at + i] = static_cast<std::uint8_t>(value >> (8 * i));
}

inline int fuzzState(Family family, const std::uint8_t* data, std::size_t size) {
  FuzzInput input(data, size);
  std::vector<std::uint8_t> bytes = validState(family, input.byte());
  const bool reseal = input.byte() % 8 != 0;
  while (!input.empty()) {
    const std::size_t at = input.below(bytes.size());
    switch (input.byte() % 6) {
      case 0: bytes[at] = input.byte(); break;
      case 1: bytes.resize(at); break;
      case 2: bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(at), input.byte()); break;
      case 3: bytes[at] ^= static_cast<std::uint8_t>(1u << (input.byte() % 8)); break;
      default: structuralEdit(bytes, input); break;
    }
    if (bytes.size() < 8) break;
  }
  if (reseal && bytes.size() >= 4) {
    const std::uint32_t sum = crc32(bytes.data(), bytes.size() - 4);
    for (int i = 0; i < 4; ++i) bytes[bytes.size() - 4 + i] = static_cast<std::uint8_t>(sum >> (8 * i));
  }
  restoreFamily(family, bytes);
  return 0;
}

}  // namespace sublinear::fuzz
