#include <gtest/gtest.h>

#include "sublinear/core/error.hpp"
#include "sublinear/core/options.hpp"

using namespace sublinear;

TEST(Options, ReadsWithDefaultsAndRanges) {
  const Json options = Json::parse(R"({"a": 2.5, "n": 3, "s": "x", "flag": true, "seed": 9})");
  EXPECT_EQ(readNumber(options, "a", 0, 0, 10), 2.5);
  EXPECT_EQ(readNumber(options, "missing", 1.5, 0, 10), 1.5);
  EXPECT_EQ(readInteger(options, "n", 0, 1, 5), 3);
  EXPECT_EQ(readString(options, "s", "y"), "x");
  EXPECT_TRUE(readBool(options, "flag", false));
  EXPECT_EQ(readSeed(options), 9u);
  EXPECT_THROW(readNumber(options, "a", 0, 0, 1), Error);
  EXPECT_THROW(readNumber(options, "a", 0, 2.5, 3, false), Error);
  EXPECT_THROW(readInteger(options, "a", 0, 0, 10), Error);
  EXPECT_THROW(readString(options, "a", ""), Error);
  EXPECT_THROW(parseJson("{"), Error);
  try {
    readInteger(options, "n", 0, 5, 9);
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(error.what()).find("'n'"), std::string::npos);
  }
}
