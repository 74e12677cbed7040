// Names from inputs, printed: control characters and bytes that are not UTF-8 as visible
// escapes, everything else as it is.
#include "common/escape.h"

#include <gtest/gtest.h>

#include <string>

namespace npu {
namespace {

TEST(Escape, KeepsPrintableTextAsItIs) {
  EXPECT_EQ(escape(""), "");
  EXPECT_EQ(escape("gemm_0 (a, b) 'x' \"y\" C:\\path"), "gemm_0 (a, b) 'x' \"y\" C:\\path");
  EXPECT_EQ(escape("\xc3\xa9t\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80"),
            "\xc3\xa9t\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x98\x80");
  EXPECT_TRUE(is_printable("plain"));
}

TEST(Escape, ControlCharactersBecomeVisible) {
  EXPECT_EQ(escape("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(escape("\x1b[31mred\x1b[0m"), "\\x1b[31mred\\x1b[0m");
  EXPECT_EQ(escape(std::string("nul\0x", 5)), "nul\\x00x");
  EXPECT_EQ(escape("bell\a del\x7f"), "bell\\x07 del\\x7f");
  EXPECT_FALSE(is_printable("a\nb"));
}

TEST(Escape, ForgedLinesStayOnOne) {
  const std::string forged = escape("k\nnpusim: error: forged");
  EXPECT_EQ(forged.find('\n'), std::string::npos);
  EXPECT_EQ(forged, "k\\nnpusim: error: forged");
}

TEST(Escape, InvalidUtf8BecomesHexBytes) {
  EXPECT_EQ(escape("a\xff"
                   "b"),
            "a\\xffb");
  EXPECT_EQ(escape("\xe2\x82"), "\\xe2\\x82");            // truncated sequence
  EXPECT_EQ(escape("\xc0\xaf"), "\\xc0\\xaf");            // overlong '/'
  EXPECT_EQ(escape("x\xed\xa0\x80"), "x\\xed\\xa0\\x80"); // a surrogate
  EXPECT_FALSE(is_printable("\xff"));
}

TEST(Escape, InvisibleControlsPastAsciiBecomeCodePoints) {
  EXPECT_EQ(escape("\xc2\x85"), "\\u0085"); // NEL, a C1 control
  EXPECT_EQ(escape("\xc2\x9b"
                   "31m"),
            "\\u009b31m"); // CSI, a C1 control
  EXPECT_EQ(escape("a\xe2\x80\xae"
                   "b"),
            "a\\u202eb");                       // right-to-left override
  EXPECT_EQ(escape("\xe2\x80\xa8"), "\\u2028"); // line separator
  EXPECT_EQ(escape("\xe2\x81\xa6"), "\\u2066"); // left-to-right isolate
  EXPECT_EQ(escape("\xc2\xa0"), "\xc2\xa0");    // a no-break space is printable
}

TEST(Escape, IsIdempotent) {
  for (const std::string text : {"a\nb", "\x1b[31m", "\xff\xfe", "a\\nb", "\xe2\x80\xae"}) {
    const std::string once = escape(text);
    EXPECT_EQ(escape(once), once) << once;
    EXPECT_TRUE(is_printable(once)) << once;
  }
}

TEST(Escape, QuotedNameIsInSingleQuotes) {
  EXPECT_EQ(quoted_name("a\tb"), "'a\\tb'");
}

} // namespace
} // namespace npu
