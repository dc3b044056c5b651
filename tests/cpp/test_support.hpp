#pragma once

// What many test files need: a thread count for one test, the code of the error an action throws,
// an expectation on an error's code and message, whether an index type is built in, the options
// that make any index type with a seed, rows of standard normals, and an index's saved bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "sublinear/core/error.hpp"
#include "sublinear/core/options.hpp"
#include "sublinear/core/parallelism.hpp"
#include "sublinear/core/random.hpp"
#include "sublinear/core/state_codec.hpp"
#include "sublinear/mips/index_factory.hpp"
#include "sublinear/mips/mips_index.hpp"

namespace sublinear::testing {

// Sets the process-wide thread count for one test and restores 1, the native default, after it
// (also when an assertion ends the test early).
class Threads {
 public:
  explicit Threads(std::size_t count) { setParallelism(count); }
  ~Threads() { setParallelism(1); }
  Threads(const Threads&) = delete;
  Threads& operator=(const Threads&) = delete;
};

// The code of the sublinear::Error that `action` throws (a test failure if it throws none).
inline ErrorCode codeOf(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& error) {
    return error.code();
  }
  ADD_FAILURE() << "no error thrown";
  return ErrorCode::CorruptState;
}

// Expects `action` to throw `code` with `fragment` somewhere in its message.
template <typename Action>
void expectError(ErrorCode code, const std::string& fragment, Action action) {
  try {
    action();
    FAIL() << "expected an error containing '" << fragment << "'";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), code) << error.what();
    EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
  }
}

inline bool indexTypeAvailable(const std::string& type) {
  const auto types = mipsIndexTypes();
  return std::find(types.begin(), types.end(), type) != types.end();
}

// Whether the option table of `type` (of `kind`) has the option `name`: a generic suite asks this of
// a type (does this policy search an index?) rather than naming the types that do.
inline bool takesOption(const std::string& kind, const std::string& type, const std::string& name) {
  return optionTable(kind, type).find(name) != nullptr;
}

// `{ type, seed }` for any index type (the adaptive index with two copies, to stay small).
inline Json seededIndexSpec(const std::string& type, int seed) {
  Json spec{{"type", type}, {"seed", seed}};
  if (type == "adaptive") spec["copies"] = 2;
  return spec;
}

// `count` rows of `dim` standard normals, row after row: the items most index tests search.
inline std::vector<float> normalRows(std::size_t count, std::size_t dim, Random& random) {
  std::vector<float> rows(count * dim);
  for (auto& value : rows) value = static_cast<float>(random.normal());
  return rows;
}

// The index's snapshot payload: equal bytes, the same index (items, attributes, structure).
inline std::vector<std::uint8_t> savedIndexBytes(const MipsIndex& index) {
  StateWriter out("index");
  index.save(out);
  return out.finish();
}

}  // namespace sublinear::testing
