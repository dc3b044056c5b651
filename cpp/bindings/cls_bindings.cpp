#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <memory>

#include "guard.hpp"
#include "sublinear/cls/cls_policy_factory.hpp"

namespace sublinear::bindings {

namespace {
// One JS policy object: the policy and the rows of its last selection, which JS copies out.
struct ClsPolicyHandle {
  std::unique_ptr<ClsPolicy> policy;
  std::vector<Id> last;
  Vector theta;
  std::vector<std::uint8_t> saved;
};

ClsPolicyHandle* createClsPolicy(const std::string& optionsJson) {
  auto policy = makeClsPolicy(parseJson(optionsJson));
  return new ClsPolicyHandle{std::move(policy), {}, {}, {}};
}

// k = 0 means the constructor's k.
SuperArmConstraint readConstraint(const ClsPolicyHandle& self, double k, std::uintptr_t groups, std::size_t groupCount,
                                  double perGroup) {
  require(std::isfinite(k) && k >= 0 && k <= kMaxUint32 && std::floor(k) == k, ErrorCode::InvalidArgument,
          "k must be a positive integer");
  require(std::isfinite(perGroup) && perGroup >= 0 && perGroup <= kMaxUint32 && std::floor(perGroup) == perGroup,
          ErrorCode::InvalidArgument, "perGroup must be a positive integer");
  SuperArmConstraint constraint;
  constraint.k = k > 0 ? static_cast<std::size_t>(k) : self.policy->defaultK();
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
  self.last = self.policy->select(fromAddress<const double>(features), length, constraint);
  return self.last.size();
}

std::size_t clsSelectFromArms(ClsPolicyHandle& self, double k, std::uintptr_t groups, std::size_t groupCount, double perGroup) {
  const SuperArmConstraint constraint = readConstraint(self, k, groups, groupCount, perGroup);
  self.last = self.policy->selectFromArms(constraint);
  return self.last.size();
}

void clsSetArms(ClsPolicyHandle& self, std::uintptr_t features, std::size_t length) {
  self.policy->setArms(fromAddress<const double>(features), length);
}

void clsUpdate(ClsPolicyHandle& self, std::uintptr_t chosen, std::size_t count, std::uintptr_t rewards, std::size_t rewardCount) {
  self.policy->update(fromAddress<const Id>(chosen), count, fromAddress<const double>(rewards), rewardCount);
}

ClsPolicyHandle* restoreClsPolicy(std::uintptr_t bytes, std::size_t length, const std::string& expectedType) {
  return new ClsPolicyHandle{clsPolicyFromBytes(fromAddress<const std::uint8_t>(bytes), length, expectedType), {}, {}, {}};
}

emscripten::val clsLastRows(ClsPolicyHandle& self) {
  return emscripten::val(emscripten::typed_memory_view(self.last.size(), self.last.data()));
}

emscripten::val clsTheta(ClsPolicyHandle& self) {
  self.theta = self.policy->ridge().theta();
  return emscripten::val(emscripten::typed_memory_view(static_cast<std::size_t>(self.theta.size()), self.theta.data()));
}

std::string clsStats(ClsPolicyHandle& self) { return self.policy->stats().dump(); }
int clsDim(ClsPolicyHandle& self) { return self.policy->dim(); }
double clsArmCount(ClsPolicyHandle& self) { return static_cast<double>(self.policy->armCount()); }
double clsDefaultK(ClsPolicyHandle& self) { return static_cast<double>(self.policy->defaultK()); }
std::string clsType(ClsPolicyHandle& self) { return self.policy->type(); }

}  // namespace

}  // namespace sublinear::bindings

EMSCRIPTEN_BINDINGS(sublinear_cls) {
  using namespace sublinear::bindings;
  emscripten::class_<ClsPolicyHandle>("ClsPolicyHandle")
      .function("select", guard<&clsSelect>)
      .function("selectFromArms", guard<&clsSelectFromArms>)
      .function("setArms", guard<&clsSetArms>)
      .function("update", guard<&clsUpdate>)
      .function("lastRows", guard<&clsLastRows>)
      .function("theta", guard<&clsTheta>)
      .function("stats", guard<&clsStats>)
      .function("dim", guard<&clsDim>)
      .function("armCount", guard<&clsArmCount>)
      .function("defaultK", guard<&clsDefaultK>)
      .function("type", guard<&clsType>)
      .function("saveBytes", guard<&saveBytes<ClsPolicyHandle, &ClsPolicyHandle::policy>>)
      .function("savedBytes", guard<&savedBytes<ClsPolicyHandle>>);
  emscripten::function("createClsPolicy", guard<&createClsPolicy>, emscripten::allow_raw_pointers());
  emscripten::function("restoreClsPolicy", guard<&restoreClsPolicy>, emscripten::allow_raw_pointers());
}
