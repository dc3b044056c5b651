#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <memory>

#include "guard.hpp"
#include "persistent_binding.hpp"
#include "sublinear/cls/persistent_cls_policy.hpp"

namespace sublinear::bindings {

namespace {
// One JS policy object: the policy and the rows of its last selection, which JS copies out.
struct ClsPolicyHandle {
  explicit ClsPolicyHandle(PersistentClsPolicy policy) : object(std::move(policy)) {}
  PersistentClsPolicy object;
  std::vector<Id> last;
  Vector theta;
};

// k = 0 means the constructor's k.
SuperArmConstraint readConstraint(const ClsPolicyHandle& self, double k, std::uintptr_t groups, std::size_t groupCount,
                                  double perGroup) {
  require(std::isfinite(k) && k >= 0 && k <= kMaxUint32 && std::floor(k) == k, ErrorCode::InvalidArgument,
          "k must be a positive integer");
  require(std::isfinite(perGroup) && perGroup >= 0 && perGroup <= kMaxUint32 && std::floor(perGroup) == perGroup,
          ErrorCode::InvalidArgument, "perGroup must be a positive integer");
  SuperArmConstraint constraint;
  constraint.k = k > 0 ? static_cast<std::size_t>(k) : self.object->defaultK();
  require(constraint.k > 0, ErrorCode::InvalidArgument, "k is required (in select's options or the constructor's)");
  if (groupCount > 0) {
    const auto* labels = fromAddress<const std::uint32_t>(groups);
    constraint.groups.assign(labels, labels + groupCount);
    require(perGroup >= 1, ErrorCode::InvalidArgument, "perGroup must be a positive integer when groups are given");
    constraint.perGroup = static_cast<std::size_t>(perGroup);
  }
  return constraint;
}

std::size_t clsSelect(ClsPolicyHandle& self, std::uintptr_t features, std::size_t length, double k, std::uintptr_t groups,
                      std::size_t groupCount, double perGroup) {
  const SuperArmConstraint constraint = readConstraint(self, k, groups, groupCount, perGroup);
  self.last = self.object->select(fromAddress<const double>(features), length, constraint);
  return self.last.size();
}

std::size_t clsSelectFromArms(ClsPolicyHandle& self, double k, std::uintptr_t groups, std::size_t groupCount, double perGroup) {
  const SuperArmConstraint constraint = readConstraint(self, k, groups, groupCount, perGroup);
  self.last = self.object->selectFromArms(constraint);
  return self.last.size();
}

void clsSetArms(ClsPolicyHandle& self, std::uintptr_t features, std::size_t length) {
  self.object->setArms(fromAddress<const double>(features), length);
}

void clsUpdate(ClsPolicyHandle& self, std::uintptr_t chosen, std::size_t count, std::uintptr_t rewards, std::size_t rewardCount) {
  self.object->update(fromAddress<const Id>(chosen), count, fromAddress<const double>(rewards), rewardCount);
}

emscripten::val clsLastRows(ClsPolicyHandle& self) {
  return emscripten::val(emscripten::typed_memory_view(self.last.size(), self.last.data()));
}

emscripten::val clsTheta(ClsPolicyHandle& self) {
  self.theta = self.object->ridge().theta();
  return emscripten::val(emscripten::typed_memory_view(static_cast<std::size_t>(self.theta.size()), self.theta.data()));
}

int clsDim(ClsPolicyHandle& self) { return self.object->dim(); }
void clsForget(ClsPolicyHandle& self, double factor) { self.object->forget(factor); }
double clsArmCount(ClsPolicyHandle& self) { return static_cast<double>(self.object->armCount()); }
double clsDefaultK(ClsPolicyHandle& self) { return static_cast<double>(self.object->defaultK()); }

}  // namespace

}  // namespace sublinear::bindings

EMSCRIPTEN_BINDINGS(sublinear_cls) {
  using namespace sublinear::bindings;
  bindPersistent(emscripten::class_<ClsPolicyHandle>("ClsPolicyHandle"))
      .function("select", guard<&clsSelect>)
      .function("selectFromArms", guard<&clsSelectFromArms>)
      .function("setArms", guard<&clsSetArms>)
      .function("update", guard<&clsUpdate>)
      .function("forget", guard<&clsForget>)
      .function("lastRows", guard<&clsLastRows>)
      .function("theta", guard<&clsTheta>)
      .function("dim", guard<&clsDim>)
      .function("armCount", guard<&clsArmCount>)
      .function("defaultK", guard<&clsDefaultK>);
  emscripten::function("createClsPolicy", guard<&createHandle<ClsPolicyHandle>>, emscripten::allow_raw_pointers());
  emscripten::function("restoreClsPolicy", guard<&restoreHandle<ClsPolicyHandle>>, emscripten::allow_raw_pointers());
}
