#pragma once

#include <cstddef>

namespace sublinear {

// The largest uint32 as a double: ids, labels and counts arrive from JavaScript (and from JSON
// options) as doubles and are accepted up to this before they are cast.
constexpr double kMaxUint32 = 4294967295.0;

// Item attributes (ItemAttributes). Each bound keeps one caller's input from costing every other
// item or search: a row's labels are read by every filtered check of that row, a value name by
// every `where` that names it, and each value column costs 8 bytes for every item of the store.
// Labels one item may carry (a shop's categories, tags, sizes, shops: tens at most).
constexpr std::size_t kMaxLabelsPerItem = 1024;
// Named values of a store (price, stock, a date, a rating, ...).
constexpr std::size_t kMaxValueNames = 64;
// Bytes of a value's name.
constexpr std::size_t kMaxValueNameBytes = 128;
// Labels a filter may list in each of labels, allLabels and noLabels (a page's filter names a few).
constexpr std::size_t kMaxFilterLabels = 1u << 20;

}  // namespace sublinear
