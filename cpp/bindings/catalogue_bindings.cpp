#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <memory>

#include "catalogue_handle.hpp"
#include "guard.hpp"

namespace sublinear::bindings {

namespace {
CatalogueHandle* createCatalogue(const std::string& specJson) {
  return new CatalogueHandle{std::make_shared<Catalogue>(parseJson(specJson)), {}};
}

// labels: an address of labelCount uint32, used only when hasLabels.
void catalogueAdd(CatalogueHandle& self, std::uintptr_t ids, std::size_t idCount, std::uintptr_t features,
                  std::size_t featureLength, std::uintptr_t labels, std::size_t labelCount, bool hasLabels) {
  self.catalogue->add(fromAddress<const Id>(ids), idCount, fromAddress<const double>(features), featureLength,
                      hasLabels ? fromAddress<const std::uint32_t>(labels) : nullptr, labelCount);
}

void catalogueRemove(CatalogueHandle& self, std::uintptr_t ids, std::size_t idCount) {
  self.catalogue->remove(fromAddress<const Id>(ids), idCount);
}

double catalogueBuild(CatalogueHandle& self, double maxItems) {
  require(maxItems >= 0 && maxItems <= kMaxUint32, ErrorCode::InvalidArgument, "maxItems must be a non-negative integer");
  return static_cast<double>(self.catalogue->build(static_cast<std::size_t>(maxItems)));
}

double catalogueSize(CatalogueHandle& self) { return static_cast<double>(self.catalogue->size()); }
int catalogueDim(CatalogueHandle& self) { return self.catalogue->dim(); }
bool catalogueHas(CatalogueHandle& self, double id) {
  return id >= 0 && id <= kMaxUint32 && self.catalogue->has(static_cast<Id>(id));
}
std::string catalogueStats(CatalogueHandle& self) { return self.catalogue->stats().dump(); }
std::string catalogueType(CatalogueHandle&) { return Catalogue::kType; }

CatalogueHandle* restoreCatalogue(std::uintptr_t bytes, std::size_t length, const std::string&) {
  return new CatalogueHandle{Catalogue::fromBytes(fromAddress<const std::uint8_t>(bytes), length), {}};
}
}  // namespace

}  // namespace sublinear::bindings

EMSCRIPTEN_BINDINGS(sublinear_catalogue) {
  using namespace sublinear::bindings;
  emscripten::class_<CatalogueHandle>("CatalogueHandle")
      .function("add", guard<&catalogueAdd>)
      .function("remove", guard<&catalogueRemove>)
      .function("build", guard<&catalogueBuild>)
      .function("size", guard<&catalogueSize>)
      .function("dim", guard<&catalogueDim>)
      .function("has", guard<&catalogueHas>)
      .function("stats", guard<&catalogueStats>)
      .function("type", guard<&catalogueType>)
      .function("saveBytes", guard<&saveBytes<CatalogueHandle, &CatalogueHandle::catalogue>>)
      .function("savedBytes", guard<&savedBytes<CatalogueHandle>>);
  emscripten::function("createCatalogue", guard<&createCatalogue>, emscripten::allow_raw_pointers());
  emscripten::function("restoreCatalogue", guard<&restoreCatalogue>, emscripten::allow_raw_pointers());
}
