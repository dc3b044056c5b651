#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <memory>
#include <vector>

#include "guard.hpp"
#include "persistent_binding.hpp"
#include "sublinear/matroid/graphic_matroid.hpp"
#include "sublinear/matroid/partition_matroid.hpp"
#include "sublinear/matroid/persistent_semi_bandit_policy.hpp"
#include "sublinear/matroid/transversal_matroid.hpp"
#include "sublinear/matroid/uniform_matroid.hpp"

namespace sublinear::bindings {

namespace {
// One JS Matroid: the matroid and the buffer of its last maxWeightBasis, which JS copies out.
struct MatroidHandle {
  std::unique_ptr<Matroid> matroid;
  std::vector<Id> last;
};

// One JS matroid policy (CUCB, FasterCUCB, CTS): it owns a copy of the matroid it was given.
struct SemiBanditHandle {
  explicit SemiBanditHandle(PersistentSemiBanditPolicy policy) : object(std::move(policy)) {}
  PersistentSemiBanditPolicy object;
  std::vector<Id> last;
};

std::size_t count(double value, const char* name) {
  if (!(value >= 1 && value <= kMaxUint32 && std::floor(value) == value)) {
    fail(ErrorCode::InvalidArgument, std::string(name) + " must be an integer in [1, 2^32-1]");
  }
  return static_cast<std::size_t>(value);
}

std::vector<std::uint32_t> copyIds(std::uintptr_t address, std::size_t length) {
  const auto* data = fromAddress<const std::uint32_t>(address);
  return std::vector<std::uint32_t>(data, data + length);
}

MatroidHandle* createUniformMatroid(double k, double rank) {
  require(rank >= 0 && std::floor(rank) == rank && rank <= kMaxUint32, ErrorCode::InvalidArgument, "D must be an integer in [1, K]");
  return new MatroidHandle{std::make_unique<UniformMatroid>(count(k, "K"), static_cast<std::size_t>(rank)), {}};
}

MatroidHandle* createPartitionMatroid(std::uintptr_t groups, std::size_t length) {
  return new MatroidHandle{std::make_unique<PartitionMatroid>(copyIds(groups, length)), {}};
}

MatroidHandle* createGraphicMatroid(double vertices, std::uintptr_t edges, std::size_t length) {
  return new MatroidHandle{std::make_unique<GraphicMatroid>(count(vertices, "numVertices"), copyIds(edges, length)), {}};
}

MatroidHandle* createTransversalMatroid(double k, double right, std::uintptr_t edges, std::size_t length) {
  return new MatroidHandle{std::make_unique<TransversalMatroid>(count(k, "K"), count(right, "numRight"), copyIds(edges, length)), {}};
}

std::size_t matroidRank(MatroidHandle& self) { return self.matroid->rank(); }
std::size_t matroidSize(MatroidHandle& self) { return self.matroid->groundSetSize(); }
std::string matroidKind(MatroidHandle& self) { return self.matroid->kind(); }

bool matroidIsIndependent(MatroidHandle& self, std::uintptr_t arms, std::size_t length) {
  return self.matroid->isIndependent(fromAddress<const Id>(arms), length);
}

std::size_t matroidMaxWeightBasis(MatroidHandle& self, std::uintptr_t weights, std::size_t length) {
  self.last = self.matroid->maxWeightBasis(fromAddress<const double>(weights), length);
  return self.last.size();
}

emscripten::val matroidLast(MatroidHandle& self) { return emscripten::val(emscripten::typed_memory_view(self.last.size(), self.last.data())); }

SemiBanditHandle* createSemiBanditPolicy(const std::string& type, MatroidHandle& matroid, const std::string& optionsJson) {
  return new SemiBanditHandle(makePersistentSemiBanditPolicy(type, *matroid.matroid, parseJson(optionsJson)));
}

std::size_t policySelect(SemiBanditHandle& self) {
  self.last = self.object->select();
  return self.last.size();
}

emscripten::val policyLast(SemiBanditHandle& self) { return emscripten::val(emscripten::typed_memory_view(self.last.size(), self.last.data())); }

void policyUpdate(SemiBanditHandle& self, std::uintptr_t basis, std::size_t basisLength, std::uintptr_t rewards, std::size_t rewardLength) {
  self.object->update(fromAddress<const Id>(basis), basisLength, fromAddress<const double>(rewards), rewardLength);
}

void policyForget(SemiBanditHandle& self, double factor) { self.object->forget(factor); }
double policyRounds(SemiBanditHandle& self) { return static_cast<double>(self.object->rounds()); }
std::size_t policyArmCount(SemiBanditHandle& self) { return self.object->armCount(); }
std::size_t policyRank(SemiBanditHandle& self) { return self.object->matroid().rank(); }
}  // namespace

}  // namespace sublinear::bindings

EMSCRIPTEN_BINDINGS(sublinear_matroid) {
  using namespace sublinear::bindings;
  emscripten::class_<MatroidHandle>("MatroidHandle")
      .function("rank", guard<&matroidRank>)
      .function("size", guard<&matroidSize>)
      .function("kind", guard<&matroidKind>)
      .function("isIndependent", guard<&matroidIsIndependent>)
      .function("maxWeightBasis", guard<&matroidMaxWeightBasis>)
      .function("lastBasis", guard<&matroidLast>);
  bindPersistent(emscripten::class_<SemiBanditHandle>("SemiBanditHandle"))
      .function("select", guard<&policySelect>)
      .function("lastBasis", guard<&policyLast>)
      .function("update", guard<&policyUpdate>)
      .function("forget", guard<&policyForget>)
      .function("rounds", guard<&policyRounds>)
      .function("armCount", guard<&policyArmCount>)
      .function("rank", guard<&policyRank>);
  emscripten::function("createUniformMatroid", guard<&createUniformMatroid>, emscripten::allow_raw_pointers());
  emscripten::function("createPartitionMatroid", guard<&createPartitionMatroid>, emscripten::allow_raw_pointers());
  emscripten::function("createGraphicMatroid", guard<&createGraphicMatroid>, emscripten::allow_raw_pointers());
  emscripten::function("createTransversalMatroid", guard<&createTransversalMatroid>, emscripten::allow_raw_pointers());
  emscripten::function("createSemiBanditPolicy", guard<&createSemiBanditPolicy>, emscripten::allow_raw_pointers());
  emscripten::function("restoreSemiBanditPolicy", guard<&restoreHandle<SemiBanditHandle>>, emscripten::allow_raw_pointers());
}
