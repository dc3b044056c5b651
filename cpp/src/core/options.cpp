#include "sublinear/core/options.hpp"

#include <cmath>

#include "sublinear/core/error.hpp"

namespace sublinear {

namespace {
const Json* find(const Json& options, const char* key) {
  if (!options.is_object()) return nullptr;
  const auto it = options.find(key);
  if (it == options.end() || it->is_null()) return nullptr;
  return &*it;
}

[[noreturn]] void badOption(const char* key, const std::string& expectation) {
  fail(ErrorCode::InvalidArgument, std::string("option '") + key + "' must be " + expectation);
}
}  // namespace

double readNumber(const Json& options, const char* key, double fallback, double low, double high, bool lowInclusive,
                  bool highInclusive) {
  const Json* value = find(options, key);
  if (value == nullptr) return fallback;
  if (!value->is_number()) badOption(key, "a number");
  const double number = value->get<double>();
  const bool aboveLow = lowInclusive ? number >= low : number > low;
  const bool belowHigh = highInclusive ? number <= high : number < high;
  if (!std::isfinite(number) || !aboveLow || !belowHigh) {
    badOption(key, std::string("in ") + (lowInclusive ? "[" : "(") + std::to_string(low) + ", " +
                       std::to_string(high) + (highInclusive ? "]" : ")") + ", got " + std::to_string(number));
  }
  return number;
}

long long readInteger(const Json& options, const char* key, long long fallback, long long low, long long high) {
  const Json* value = find(options, key);
  if (value == nullptr) return fallback;
  if (!value->is_number()) badOption(key, "an integer");
  const double number = value->get<double>();
  if (!std::isfinite(number) || std::floor(number) != number || number < static_cast<double>(low) ||
      number > static_cast<double>(high)) {
    badOption(key, "an integer in [" + std::to_string(low) + ", " + std::to_string(high) + "]");
  }
  return static_cast<long long>(number);
}

std::uint64_t readSeed(const Json& options, std::uint64_t fallback) {
  return static_cast<std::uint64_t>(
      readInteger(options, "seed", static_cast<long long>(fallback), 0, 9007199254740991LL));
}

std::string readString(const Json& options, const char* key, const std::string& fallback) {
  const Json* value = find(options, key);
  if (value == nullptr) return fallback;
  if (!value->is_string()) badOption(key, "a string");
  return value->get<std::string>();
}

bool readBool(const Json& options, const char* key, bool fallback) {
  const Json* value = find(options, key);
  if (value == nullptr) return fallback;
  if (!value->is_boolean()) badOption(key, "true or false");
  return value->get<bool>();
}

Json parseJson(const std::string& text) {
  // The nesting is checked on the text first, so that a hostile depth never reaches the parser.
  int depth = 0;
  bool inString = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (c == '\\') ++i;
      else if (c == '"') inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxOptionDepth) {
        fail(ErrorCode::InvalidArgument, "options are nested more than " + std::to_string(kMaxOptionDepth) + " levels deep");
      }
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  try {
    return Json::parse(text);
  } catch (const Json::exception& error) {
    // parse_error, and out_of_range for a number no double holds (1e999).
    fail(ErrorCode::InvalidArgument, std::string("options are not valid JSON: ") + error.what());
  }
}

void requireObject(const Json& options, const char* what) {
  if (!options.is_null() && !options.is_object()) {
    fail(ErrorCode::InvalidArgument, std::string(what) + " must be an object");
  }
}

}  // namespace sublinear
