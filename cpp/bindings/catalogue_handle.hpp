#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "sublinear/linear/catalogue.hpp"

namespace sublinear::bindings {

// One JS Catalogue object: a share of the catalogue (its users hold theirs, so deleting this handle
// frees the catalogue only once no user holds it).
struct CatalogueHandle {
  std::shared_ptr<Catalogue> catalogue;
};

}  // namespace sublinear::bindings
