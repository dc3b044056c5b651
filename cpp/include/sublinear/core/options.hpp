#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace sublinear {

// Constructor options arrive as JSON objects (from JavaScript, from simulation configs, from the
// native command line): these read one field with a default and a range, naming the field in the
// error so that a user sees which option was wrong.
using Json = nlohmann::json;

double readNumber(const Json& options, const char* key, double fallback, double low, double high,
                  bool lowInclusive = true, bool highInclusive = true);
long long readInteger(const Json& options, const char* key, long long fallback, long long low, long long high);
std::uint64_t readSeed(const Json& options, std::uint64_t fallback = 0);
std::string readString(const Json& options, const char* key, const std::string& fallback);
bool readBool(const Json& options, const char* key, bool fallback);
// Whether `options` (an object, or null for none) give `key` a value: null counts as not given.
inline bool isGiven(const Json& options, const char* key) { return options.is_object() && options.contains(key) && !options[key].is_null(); }
// Parses JSON text, mapping a syntax error to INVALID_ARGUMENT.
// Options are small: deeper nesting is refused (INVALID_ARGUMENT) before it costs stack or heap.
constexpr int kMaxOptionDepth = 64;
// INVALID_ARGUMENT unless `text` is JSON nested at most kMaxOptionDepth deep.
Json parseJson(const std::string& text);
// Fails with INVALID_ARGUMENT unless `options` is an object (or null, meaning no options).
void requireObject(const Json& options, const char* what);

}  // namespace sublinear
