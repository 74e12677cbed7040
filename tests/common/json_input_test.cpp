// JSON inputs: one nesting limit for every reader, located errors.
#include "common/input_file.h"
#include "common/json_input.h"

#include <gtest/gtest.h>

#include <string>

namespace npu {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_json_input(text, "r.json", "an npusim report.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string nested(size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

TEST(JsonInput, ParsesWhatIsWithinTheLimits) {
  EXPECT_EQ(parse_json_input(R"({"a": [1, {"b": "x"}]})", "r.json", "x")["a"][1]["b"], "x");
  EXPECT_NO_THROW(parse_json_input(nested(kMaxInputDepth), "r.json", "x"));
}

TEST(JsonInput, NestingPastTheLimitIsALocatedError) {
  EXPECT_EQ(error_of("{\n  \"config\": " + nested(kMaxInputDepth + 1) + "}"),
            "r.json:2:" + std::to_string(12 + kMaxInputDepth) +
                ": error: nesting deeper than 256 levels; expected an npusim report.json");
  // 100,000 levels: refused before anything walks them.
  EXPECT_NE(error_of("{\"a\": " + nested(100000) + "}").find("nesting deeper than 256 levels"),
            std::string::npos);
}

TEST(JsonInput, BracketsInStringsAreNotNesting) {
  const std::string brackets(1000, '[');
  EXPECT_NO_THROW(
      parse_json_input("{\"a\": \"" + brackets + "\\\"" + brackets + "\"}", "r.json", "x"));
  EXPECT_EQ(json_too_deep_at("\"" + brackets + "\""), std::string::npos);
}

TEST(JsonInput, InvalidJsonIsLocated) {
  EXPECT_EQ(error_of("{\n  \"a\": tru\n}"),
            "r.json:2:11: error: invalid JSON (syntax error while parsing value - invalid "
            "literal; last read: '\"a\": tru<U+000A>'); expected an npusim report.json");
}

TEST(JsonInput, DamageMeansDiscardedWhereNoErrorIsWanted) {
  EXPECT_TRUE(parse_json_or_discarded("{").is_discarded());
  EXPECT_TRUE(parse_json_or_discarded(nested(1000)).is_discarded());
  EXPECT_EQ(parse_json_or_discarded("[1]")[0], 1);
}

} // namespace
} // namespace npu
