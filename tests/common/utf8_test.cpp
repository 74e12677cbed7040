// Well-formed UTF-8: what YAML inputs must be and what trace and CSV names become.
#include "common/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace npu::utf8 {
namespace {

TEST(Utf8, AcceptsWellFormedText) {
  EXPECT_EQ(first_invalid(""), std::string::npos);
  EXPECT_EQ(first_invalid("plain ascii\t\n"), std::string::npos);
  // 2-, 3- and 4-byte sequences, including the largest code point U+10FFFF.
  EXPECT_EQ(first_invalid("\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf"),
            std::string::npos);
}

TEST(Utf8, FindsTheFirstIllFormedByte) {
  EXPECT_EQ(first_invalid("ab\xff"), 2u);           // never valid
  EXPECT_EQ(first_invalid("a\x80"), 1u);            // stray continuation byte
  EXPECT_EQ(first_invalid("a\xe2\x82"), 1u);        // truncated sequence
  EXPECT_EQ(first_invalid("\xc0\xaf"), 0u);         // overlong '/'
  EXPECT_EQ(first_invalid("\xe0\x80\xaf"), 0u);     // overlong, three bytes
  EXPECT_EQ(first_invalid("x\xed\xa0\x80"), 1u);    // UTF-16 surrogate U+D800
  EXPECT_EQ(first_invalid("\xf4\x90\x80\x80"), 0u); // U+110000, past Unicode
  EXPECT_EQ(first_invalid("\xc3\xa9\xc3("), 2u);    // a lead byte without continuation
}

TEST(Utf8, SanitizeReplacesEachBadByteAndKeepsTheRest) {
  EXPECT_EQ(sanitize("ok \xc3\xa9"), "ok \xc3\xa9");
  EXPECT_EQ(sanitize("a\xff"
                     "b"),
            "a\xef\xbf\xbd"
            "b");
  EXPECT_EQ(sanitize("\xe2\x82"), "\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(first_invalid(sanitize("\xed\xa0\x80\xf8\x80")), std::string::npos);
}

} // namespace
} // namespace npu::utf8
