#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <memory>
#include <utility>

#include "catalogue_handle.hpp"
#include "attribute_arguments.hpp"
#include "guard.hpp"
#include "typed_array_source.hpp"

namespace sublinear::bindings {

namespace {
CatalogueHandle* createCatalogue(const std::string& specJson) {
  return new CatalogueHandle{std::make_shared<Catalogue>(parseJson(specJson))};
}

// The features as piecesOf takes them, the attributes as attributeBatch reads them.
void catalogueAdd(CatalogueHandle& self, std::uintptr_t ids, std::size_t idCount, std::uintptr_t features,
                  std::size_t featureLength, emscripten::val array, int labelForm, std::uintptr_t labels, std::size_t labelCount,
                  std::uintptr_t counts, const std::string& valueNames, std::uintptr_t values, std::size_t valueCount) {
  const ItemAttributes batch = attributeBatch(idCount, labelForm, labels, labelCount, counts, valueNames, values, valueCount);
  self.catalogue->add(fromAddress<const Id>(ids), idCount, *piecesOf<double>(features, featureLength, std::move(array)), &batch);
}

void catalogueSetLabels(CatalogueHandle& self, std::uintptr_t ids, std::size_t idCount, int labelForm, std::uintptr_t labels,
                        std::size_t labelCount, std::uintptr_t counts) {
  self.catalogue->setLabels(fromAddress<const Id>(ids), idCount, attributeBatch(idCount, labelForm, labels, labelCount, counts, "", 0, 0));
}

void catalogueSetValues(CatalogueHandle& self, std::uintptr_t ids, std::size_t idCount, const std::string& valueNames,
                        std::uintptr_t values, std::size_t valueCount) {
  self.catalogue->setValues(fromAddress<const Id>(ids), idCount, attributeBatch(idCount, 0, 0, 0, 0, valueNames, values, valueCount));
}

void catalogueSetFeatures(CatalogueHandle& self, std::uintptr_t ids, std::size_t idCount, std::uintptr_t features,
                          std::size_t featureLength) {
  self.catalogue->setFeatures(fromAddress<const Id>(ids), idCount, fromAddress<const double>(features), featureLength);
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

// The state as restoreHandle takes it.
CatalogueHandle* restoreCatalogue(std::uintptr_t bytes, std::size_t length, emscripten::val array, const std::string&) {
  return new CatalogueHandle{Catalogue::fromBytes(*piecesOf<std::uint8_t>(bytes, length, std::move(array)))};
}
}  // namespace

}  // namespace sublinear::bindings

EMSCRIPTEN_BINDINGS(sublinear_catalogue) {
  using namespace sublinear::bindings;
  emscripten::class_<CatalogueHandle>("CatalogueHandle")
      .function("add", guard<&catalogueAdd>)
      .function("remove", guard<&catalogueRemove>)
      .function("setLabels", guard<&catalogueSetLabels>)
      .function("setValues", guard<&catalogueSetValues>)
      .function("setFeatures", guard<&catalogueSetFeatures>)
      .function("build", guard<&catalogueBuild>)
      .function("size", guard<&catalogueSize>)
      .function("dim", guard<&catalogueDim>)
      .function("has", guard<&catalogueHas>)
      .function("stats", guard<&catalogueStats>)
      .function("type", guard<&catalogueType>)
      .function("toBytes", guard<&stateBytes<CatalogueHandle, &CatalogueHandle::catalogue>>);
  emscripten::function("createCatalogue", guard<&createCatalogue>, emscripten::allow_raw_pointers());
  emscripten::function("restoreCatalogue", guard<&restoreCatalogue>, emscripten::allow_raw_pointers());
}
