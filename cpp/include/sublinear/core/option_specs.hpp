#pragma once

// The builders every layer's option table is written with (<layer>/<layer>_option_tables.cpp):
// integer("M", 16, 2, 1000, "links per node") and friends make the OptionSpec of one option, with its
// default, range and one-line description, so that a table reads as a list of options.
#include <limits>

#include "sublinear/core/limits.hpp"
#include "sublinear/core/option_table.hpp"

namespace sublinear::option_specs {

inline constexpr double kMaxSeed = 9007199254740991.0;  // 2^53 - 1: exact as a JavaScript number
inline constexpr double kHuge = std::numeric_limits<double>::max();

// A number or an integer in [low, high] (open ends where lowOpen / highOpen); `note` says how the
// default may differ, or describes a computed one.
inline OptionSpec ranged(const char* name, OptionType type, double fallback, double low, double high, const char* doc,
                         bool lowOpen, bool highOpen, const char* note) {
  OptionSpec spec{name, type};
  spec.fallback = fallback;
  spec.low = low;
  spec.high = high;
  spec.lowOpen = lowOpen;
  spec.highOpen = highOpen;
  spec.fallbackText = note;
  spec.doc = doc;
  return spec;
}

inline OptionSpec integer(const char* name, double fallback, double low, double high, const char* doc, const char* note = "") {
  return ranged(name, OptionType::Integer, fallback, low, high, doc, false, false, note);
}

inline OptionSpec computedInteger(const char* name, double low, double high, const char* note, const char* doc) {
  OptionSpec spec = integer(name, 0, low, high, doc, note);
  spec.computed = true;
  return spec;
}

inline OptionSpec number(const char* name, double fallback, double low, double high, const char* doc, bool lowOpen = false,
                         bool highOpen = false, const char* note = "") {
  return ranged(name, OptionType::Number, fallback, low, high, doc, lowOpen, highOpen, note);
}

inline OptionSpec computedNumber(const char* name, double low, double high, bool lowOpen, bool highOpen, const char* note,
                                  const char* doc) {
  OptionSpec spec = number(name, 0, low, high, doc, lowOpen, highOpen, note);
  spec.computed = true;
  return spec;
}

inline OptionSpec required(const char* name, double low, double high, const char* doc) {
  OptionSpec spec = integer(name, 0, low, high, doc, "required");
  spec.computed = true;
  return spec;
}

inline OptionSpec boolean(const char* name, bool fallback, const char* doc) {
  OptionSpec spec{name, OptionType::Boolean};
  spec.fallback = fallback ? 1.0 : 0.0;
  spec.doc = doc;
  return spec;
}

inline OptionSpec text(const char* name, const char* fallback, const char* choices, const char* doc) {
  OptionSpec spec{name, OptionType::String};
  spec.fallbackText = fallback;
  spec.choices = choices;
  spec.doc = doc;
  return spec;
}

// An object or an array: its default is described (`note`), not a value.
inline OptionSpec described(const char* name, OptionType type, const char* note, const char* doc) {
  OptionSpec spec{name, type};
  spec.fallbackText = note;
  spec.doc = doc;
  return spec;
}

inline OptionSpec object(const char* name, const char* note, const char* doc) { return described(name, OptionType::Object, note, doc); }

inline OptionSpec array(const char* name, const char* note, const char* doc) { return described(name, OptionType::Array, note, doc); }

// An object whose keys are checked against optionTable(kind, its `selector` key, else `type`).
inline OptionSpec nested(OptionSpec spec, const char* kind, const char* selector, const char* type, const OptionGroup* extra = nullptr) {
  spec.nestedKind = kind;
  spec.nestedSelector = selector;
  spec.nestedType = type;
  spec.nestedExtra = extra;
  return spec;
}

inline OptionSpec seed(double fallback, const char* doc) {
  OptionSpec spec{"seed", OptionType::Seed};
  spec.fallback = fallback;
  spec.low = 0;
  spec.high = kMaxSeed;
  spec.doc = doc;
  return spec;
}

inline OptionSpec internal(OptionSpec spec) {
  spec.internal = true;
  return spec;
}

}  // namespace sublinear::option_specs
