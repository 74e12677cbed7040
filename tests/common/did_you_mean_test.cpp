// "Did you mean" hints: nearest candidate by edit distance, within a third of the word.
#include "common/error.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace npu {
namespace {

TEST(DidYouMean, NearMisses) {
  EXPECT_EQ(did_you_mean("chanels", {"burst", "channels", "outstanding"}), "channels");
  EXPECT_EQ(did_you_mean("dmaa", {"host", "ddr", "dma", "sram"}), "dma");
  EXPECT_EQ(did_you_mean("fifoo", {"fifo", "round_robin", "priority"}), "fifo");
  EXPECT_EQ(did_you_mean("lauch", {"launch", "memcpy", "repeat"}), "launch");
  EXPECT_EQ(did_you_mean("KIB", {"B", "KiB", "MiB", "KB"}), "KiB"); // first of equal distance
}

TEST(DidYouMean, SwappedLettersAreOneEdit) {
  EXPECT_EQ(did_you_mean("lable", {"event", "label"}), "label");
  EXPECT_EQ(did_you_mean("cahnnels", {"burst", "channels"}), "channels");
  EXPECT_EQ(did_you_mean("ba", {"ab", "xy"}), "ab");
  EXPECT_EQ(did_you_mean("abc", {"cab"}), ""); // not adjacent: two edits, over the limit
}

TEST(DidYouMean, ExactMatchReturnsItself) {
  EXPECT_EQ(did_you_mean("dma", {"ddr", "dma"}), "dma");
}

TEST(DidYouMean, NothingCloseEnough) {
  EXPECT_EQ(did_you_mean("xyz", {"channels", "burst"}), "");
  EXPECT_EQ(did_you_mean("anything", {}), "");
  EXPECT_EQ(did_you_mean("ab", {"xy"}), "");   // 2 edits on a 2-letter word
  EXPECT_EQ(did_you_mean("ab", {"xb"}), "xb"); // 1 edit is always allowed
}

TEST(DidYouMean, LimitIsAThirdOfTheWordCappedAtThree) {
  // 6 letters: up to 2 edits.
  EXPECT_EQ(did_you_mean("abcdef", {"abcdxy"}), "abcdxy");
  EXPECT_EQ(did_you_mean("abcdef", {"abcxyz"}), "");
  // 9 letters: up to 3 edits.
  EXPECT_EQ(did_you_mean("abcdefghi", {"abcdefxyz"}), "abcdefxyz");
  // 15 letters: still 3 at most.
  EXPECT_EQ(did_you_mean("abcdefghijklmno", {"abcdefghijklxyz"}), "abcdefghijklxyz");
  EXPECT_EQ(did_you_mean("abcdefghijklmno", {"abcdefghijkwxyz"}), "");
}

TEST(DidYouMean, InsertionsAndDeletionsCount) {
  EXPECT_EQ(did_you_mean("polcy", {"policy"}), "policy");
  EXPECT_EQ(did_you_mean("policyy", {"policy"}), "policy");
  EXPECT_EQ(did_you_mean("channles", {"channels"}), "channels"); // a swap is 2 edits
}

TEST(DidYouMean, CaseMatters) {
  EXPECT_EQ(did_you_mean("ghz", {"GHz", "Hz"}), "");
  EXPECT_EQ(did_you_mean("Ghz", {"GHz", "Hz"}), "GHz");
}

} // namespace
} // namespace npu
