#include "sublinear/core/option_table.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "sublinear/core/error.hpp"

namespace sublinear {

namespace {
const char* typeName(OptionType type) {
  switch (type) {
    case OptionType::Integer: return "integer";
    case OptionType::Number: return "number";
    case OptionType::Boolean: return "boolean";
    case OptionType::String: return "string";
    case OptionType::Object: return "object";
    case OptionType::Array: return "array";
    case OptionType::Seed: return "seed";
  }
  return "unknown";
}

std::size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> previous(b.size() + 1), current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) == std::tolower(static_cast<unsigned char>(b[j - 1]));
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (same ? 0 : 1)});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

// A spec missing from its group is a programming error (a constructor reading an option its table
// does not list), not a user's: the test suites catch it.
const OptionSpec& specOf(const OptionGroup& group, const char* name) {
  for (const OptionSpec& spec : group) {
    if (std::string(spec.name) == name) return spec;
  }
  throw std::logic_error(std::string("option '") + name + "' is read but not in its option table");
}

long long integerBound(double value) { return static_cast<long long>(value); }

std::string joined(const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "" : ", ") + name;
  return list;
}

// A String spec's accepted values ("a|b" -> {a, b}); empty when any string is accepted.
std::vector<std::string> choicesOf(const OptionSpec& spec) {
  std::vector<std::string> choices;
  if (*spec.choices == '\0') return choices;
  const std::string all = spec.choices;
  for (std::size_t start = 0;;) {
    const std::size_t bar = all.find('|', start);
    choices.push_back(all.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
    if (bar == std::string::npos) return choices;
    start = bar + 1;
  }
}

// "'a', 'b' or 'c'"
std::string alternatives(const std::vector<std::string>& choices) {
  std::string list;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    list += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + ("'" + choices[i] + "'");
  }
  return list;
}
}  // namespace

const OptionSpec* OptionTable::find(const std::string& name) const {
  for (const OptionGroup* group : groups) {
    for (const OptionSpec& spec : *group) {
      if (name == spec.name) return &spec;
    }
  }
  return nullptr;
}

namespace {
// The table a nested object's keys are checked against (its own groups plus the owner's extra
// ones), or false when there is none to check: an unknown selected type is left to the code that
// reads the object, which names what it accepts.
bool nestedTable(const OptionSpec& spec, const Json& value, OptionTable& out) {
  if (*spec.nestedKind == '\0' || !value.is_object()) return false;
  const OptionTable* table = nullptr;
  if (*spec.nestedSelector != '\0' && value.contains(spec.nestedSelector) && !value.at(spec.nestedSelector).is_null()) {
    const Json& selector = value.at(spec.nestedSelector);
    if (selector.is_string()) table = findOptionTable(spec.nestedKind, selector.get<std::string>());
  } else {
    table = findOptionTable(spec.nestedKind, spec.nestedType);
  }
  if (table == nullptr) return false;
  out = *table;
  if (spec.nestedExtra != nullptr) out.groups.push_back(spec.nestedExtra);
  return true;
}

// Checks the keys of `options` against `table`; `path` ("" or "matroid.") prefixes every key
// named, `owner` is the class the whole options object belongs to.
void checkKeys(const OptionTable& table, const Json& options, const std::string& path, const std::string& owner) {
  if (!options.is_object()) return;
  for (const auto& item : options.items()) {
    const std::string& key = item.key();
    if (const OptionSpec* spec = table.find(key)) {
      OptionTable nested;
      if (nestedTable(*spec, item.value(), nested)) checkKeys(nested, item.value(), path + key + ".", owner);
      continue;
    }
    std::vector<std::string> names;
    for (const OptionGroup* group : table.groups) {
      for (const OptionSpec& spec : *group) {
        if (!spec.internal) names.push_back(spec.name);
      }
    }
    const std::string nearest = nearestOptionName(key, names);
    std::string message = "unknown option '" + path + key + "' for " + owner;
    if (!nearest.empty()) {
      message += " (did you mean '" + path + nearest + "'?)";
    } else {
      message += " (known: " + joined(names) + ")";
    }
    fail(ErrorCode::InvalidArgument, message);
  }
}
}  // namespace

void OptionTable::check(const Json& options) const { checkKeys(*this, options, "", type); }

Json OptionTable::describe() const {
  Json out = Json::array();
  for (const OptionGroup* group : groups) {
    for (const OptionSpec& spec : *group) {
      Json entry = {{"name", spec.name}, {"type", typeName(spec.type)}, {"doc", spec.doc}, {"internal", spec.internal}};
      switch (spec.type) {
        case OptionType::Integer:
        case OptionType::Number:
        case OptionType::Seed:
          entry["low"] = spec.low;
          entry["high"] = spec.high;
          entry["lowOpen"] = spec.lowOpen;
          entry["highOpen"] = spec.highOpen;
          if (spec.computed) {
            entry["default"] = spec.fallbackText;
          } else {
            entry["default"] = spec.fallback;
            if (*spec.fallbackText != '\0') entry["defaultNote"] = spec.fallbackText;
          }
          break;
        case OptionType::Boolean:
          entry["default"] = spec.fallback != 0.0;
          break;
        case OptionType::String:
          entry["default"] = spec.fallbackText;
          if (*spec.choices != '\0') entry["choices"] = choicesOf(spec);
          break;
        case OptionType::Object:
        case OptionType::Array:
          entry["default"] = spec.fallbackText;
          break;
      }
      out.push_back(entry);
    }
  }
  return out;
}

const OptionTable* findOptionTable(const std::string& kind, const std::string& type) {
  for (const OptionTable& table : optionTables()) {
    if (table.kind == kind && table.type == type) return &table;
  }
  return nullptr;
}

const OptionTable& optionTable(const std::string& kind, const std::string& type) {
  if (const OptionTable* table = findOptionTable(kind, type)) return *table;
  std::vector<std::string> kinds;
  std::vector<std::string> types;
  for (const OptionTable& table : optionTables()) {
    if (std::find(kinds.begin(), kinds.end(), table.kind) == kinds.end()) kinds.push_back(table.kind);
    if (table.kind == kind) types.push_back(table.type);
  }
  if (types.empty()) fail(ErrorCode::InvalidArgument, "unknown option table kind '" + kind + "' (known: " + joined(kinds) + ")");
  fail(ErrorCode::InvalidArgument, "no " + kind + " type '" + type + "' (known: " + joined(types) + ")");
}

std::string nearestOptionName(const std::string& key, const std::vector<std::string>& names) {
  std::string best;
  std::size_t bestDistance = std::string::npos;
  for (const std::string& name : names) {
    const std::size_t distance = editDistance(key, name);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = name;
    }
  }
  // Near enough: a slip of a key or two (a third of the name's letters for long names).
  const std::size_t limit = std::max<std::size_t>(2, best.size() / 3);
  return bestDistance <= limit && bestDistance < best.size() ? best : std::string();
}

bool optionGiven(const Json& options, const char* name) {
  return options.is_object() && options.contains(name) && !options.at(name).is_null();
}

double readOption(const OptionGroup& group, const Json& options, const char* name) {
  const OptionSpec& spec = specOf(group, name);
  return readOption(group, options, name, spec.fallback);
}

double readOption(const OptionGroup& group, const Json& options, const char* name, double fallback) {
  const OptionSpec& spec = specOf(group, name);
  return readNumber(options, spec.name, fallback, spec.low, spec.high, !spec.lowOpen, !spec.highOpen);
}

long long readIntegerOption(const OptionGroup& group, const Json& options, const char* name) {
  const OptionSpec& spec = specOf(group, name);
  return readIntegerOption(group, options, name, static_cast<long long>(spec.fallback));
}

long long readIntegerOption(const OptionGroup& group, const Json& options, const char* name, long long fallback) {
  const OptionSpec& spec = specOf(group, name);
  return readInteger(options, spec.name, fallback, integerBound(spec.low), integerBound(spec.high));
}

bool readBoolOption(const OptionGroup& group, const Json& options, const char* name) {
  const OptionSpec& spec = specOf(group, name);
  return readBool(options, spec.name, spec.fallback != 0.0);
}

std::string readStringOption(const OptionGroup& group, const Json& options, const char* name, const char* path) {
  const OptionSpec& spec = specOf(group, name);
  std::string value = readString(options, spec.name, spec.fallbackText);
  const std::vector<std::string> choices = choicesOf(spec);
  if (!choices.empty() && std::find(choices.begin(), choices.end(), value) == choices.end()) {
    fail(ErrorCode::InvalidArgument,
         "option '" + std::string(path) + spec.name + "' must be " + alternatives(choices) + ", got '" + value + "'");
  }
  return value;
}

void requireIntegerOptionWithin(const char* name, long long value, long long low, long long high) {
  if (value < low || value > high) {
    fail(ErrorCode::InvalidArgument,
         std::string("option '") + name + "' must be an integer in [" + std::to_string(low) + ", " + std::to_string(high) + "]");
  }
}

std::uint64_t readSeedOption(const OptionGroup& group, const Json& options) {
  const OptionSpec& spec = specOf(group, "seed");
  return readSeed(options, static_cast<std::uint64_t>(spec.fallback));
}

}  // namespace sublinear
