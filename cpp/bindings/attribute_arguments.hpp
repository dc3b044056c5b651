#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "guard.hpp"
#include "sublinear/core/error.hpp"
#include "sublinear/core/options.hpp"
#include "sublinear/mips/item_attributes.hpp"

// Items' attributes and filters' conditions as web/src/attributes.js passes them: labels and values in
// heap arrays (JS checked their lengths before copying), value names and the rarer conditions as JSON.
namespace sublinear::bindings {

// Labels: form 0 none (label 0 each), 1 one per item (labels: labelCount == items), 2 several per item
// (counts: items entries; labels: their concatenation, labelCount entries). Values: `valueNames` a JSON
// array of names, `values` valueCount doubles, each name's `items` values in turn.
inline ItemAttributes attributeBatch(std::size_t items, int labelForm, std::uintptr_t labels, std::size_t labelCount,
                                     std::uintptr_t counts, const std::string& valueNames, std::uintptr_t values,
                                     std::size_t valueCount) {
  ItemAttributes batch;
  batch.reserve(items);
  const Label* given = fromAddress<const Label>(labels);
  if (labelForm == 2) {
    const std::uint32_t* perItem = fromAddress<const std::uint32_t>(counts);
    std::size_t at = 0;
    for (std::size_t i = 0; i < items; ++i) {
      require(perItem[i] <= labelCount - at, ErrorCode::InvalidArgument, "labels: the items' label lists and their counts differ");
      batch.append(given + at, perItem[i]);
      at += perItem[i];
    }
    require(at == labelCount, ErrorCode::InvalidArgument, "labels: the items' label lists and their counts differ");
  } else {
    if (labelForm == 1 && labelCount != items) {
      fail(ErrorCode::InvalidArgument, "labels: expected one per item (" + std::to_string(items) + "), got " + std::to_string(labelCount));
    }
    for (std::size_t i = 0; i < items; ++i) batch.append(labelForm == 1 ? given[i] : 0);
  }
  if (valueNames.empty()) return batch;
  const Json names = parseJson(valueNames);
  require(names.is_array(), ErrorCode::InvalidArgument, "values: expected an object of named arrays");
  if (valueCount != names.size() * items) {
    fail(ErrorCode::DimensionMismatch, "values: expected one number per item (" + std::to_string(items) + ") for each name");
  }
  const double* given64 = fromAddress<const double>(values);
  for (std::size_t c = 0; c < names.size(); ++c) {
    require(names[c].is_string(), ErrorCode::InvalidArgument, "values: a name is not a string");
    const std::size_t column = batch.addValueColumn(names[c].get<std::string>());
    for (std::size_t i = 0; i < items; ++i) batch.setValue(column, i, given64[c * items + i]);
  }
  return batch;
}

// The conditions beyond `labels`: { allLabels, noLabels, where: [[name, low, high]...] } with "inf" and
// "-inf" for infinite bounds (JSON has no Infinity).
inline void readConditionObject(const Json& conditions, AttributeFilter& filter) {
  require(conditions.is_object(), ErrorCode::InvalidArgument, "a filter's conditions are not an object");
  const auto labelList = [&](const char* key, std::vector<Label>& into) {
    if (!conditions.contains(key)) return;
    for (const Json& label : conditions.at(key)) {
      require(label.is_number_unsigned() && label.get<std::uint64_t>() <= 0xFFFFFFFFull, ErrorCode::InvalidArgument,
              "a filter's label is not an unsigned 32-bit integer");
      into.push_back(static_cast<Label>(label.get<std::uint64_t>()));
    }
  };
  labelList("allLabels", filter.allLabels);
  labelList("noLabels", filter.noLabels);
  if (!conditions.contains("where")) return;
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  for (const Json& range : conditions.at("where")) {
    require(range.is_array() && range.size() == 3 && range[0].is_string(), ErrorCode::InvalidArgument, "where: expected name: [low, high]");
    const auto bound = [&](const Json& value) {
      if (value == "inf") return kInfinity;
      if (value == "-inf") return -kInfinity;
      require(value.is_number(), ErrorCode::InvalidArgument, "where: a bound is not a number");
      return value.get<double>();
    };
    filter.where.push_back(ValueRange{range[0].get<std::string>(), bound(range[1]), bound(range[2])});
  }
}

// `labels` (any of) from the heap; `json` empty or the other conditions (readConditionObject).
// Checked (AttributeFilter::check).
inline void readConditions(std::uintptr_t labels, std::size_t labelCount, const std::string& json, AttributeFilter& filter) {
  const Label* allowed = fromAddress<const Label>(labels);
  filter.labels.assign(allowed, allowed + labelCount);
  if (!json.empty()) readConditionObject(parseJson(json), filter);
  filter.check();
}

}  // namespace sublinear::bindings
