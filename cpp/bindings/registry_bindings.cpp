#include <emscripten/bind.h>

#include <string>

#include "guard.hpp"
#include "sublinear/cls/cls_policy_factory.hpp"
#include "sublinear/linear/policy_factory.hpp"
#include "sublinear/matroid/semi_bandit_factory.hpp"
#include "sublinear/mips/index_factory.hpp"

namespace sublinear::bindings {
namespace {
template <class Entry>
void listFamily(Json& list, const TypeRegistry<Entry>& registry) {
  for (const Entry& entry : registry.entries()) list.push_back({{"kind", registry.kind()}, {"type", entry.type}, {"className", entry.className}});
}

// The registered types of the families that have classes, [{ kind, type, className }, ...] in
// registration order: web/src makes each family's subclasses from it (runtime.registeredSubclasses),
// so a type registered in C++ (a build's own, such as the test build's toys) is a class in JavaScript.
std::string registeredClassList() {
  Json list = Json::array();
  listFamily(list, mipsIndexRegistry());
  listFamily(list, linearPolicyRegistry());
  listFamily(list, semiBanditPolicyRegistry());
  listFamily(list, clsPolicyRegistry());
  return list.dump();
}
}  // namespace
}  // namespace sublinear::bindings

EMSCRIPTEN_BINDINGS(sublinear_registries) {
  using namespace sublinear::bindings;
  emscripten::function("registeredClassList", guard<&registeredClassList>);
}
