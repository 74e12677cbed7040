// Quantities with units: bytes, frequency, time, transfer rate, whole numbers.
#include "config/units.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace npu::units {
namespace {

using test::contains;

// Parses `text` as bytes, expecting a failure; returns the message.
std::string bytes_error(const std::string& text) {
  std::string error;
  const auto v = parse_bytes(text, &error);
  EXPECT_FALSE(v.has_value()) << text << " parsed as " << v.value_or(0);
  return error;
}

TEST(UnitsBytes, BinaryUnits) {
  EXPECT_EQ(parse_bytes("1B", nullptr), 1u);
  EXPECT_EQ(parse_bytes("64KiB", nullptr), 65536u);
  EXPECT_EQ(parse_bytes("2MiB", nullptr), 2u * 1024 * 1024);
  EXPECT_EQ(parse_bytes("1GiB", nullptr), uint64_t{1} << 30);
  EXPECT_EQ(parse_bytes("3TiB", nullptr), uint64_t{3} << 40);
}

TEST(UnitsBytes, DecimalUnits) {
  EXPECT_EQ(parse_bytes("2KB", nullptr), 2000u);
  EXPECT_EQ(parse_bytes("2kB", nullptr), 2000u);
  EXPECT_EQ(parse_bytes("5MB", nullptr), 5000000u);
  EXPECT_EQ(parse_bytes("1GB", nullptr), 1000000000u);
}

TEST(UnitsBytes, BareIntegerIsBytes) {
  EXPECT_EQ(parse_bytes("4096", nullptr), 4096u);
  EXPECT_EQ(parse_bytes("0", nullptr), 0u);
}

TEST(UnitsBytes, FractionalAndSpaces) {
  EXPECT_EQ(parse_bytes("1.5KiB", nullptr), 1536u);
  EXPECT_EQ(parse_bytes("0.5MiB", nullptr), 512u * 1024);
  EXPECT_EQ(parse_bytes("1.5KB", nullptr), 1500u);
  EXPECT_EQ(parse_bytes(" 8 KiB ", nullptr), 8192u);
}

TEST(UnitsBytes, FractionOfAByteRejected) {
  const std::string e = bytes_error("1.3B");
  EXPECT_TRUE(contains(e, "is not a whole number of bytes")) << e;
}

TEST(UnitsBytes, NegativeRejected) {
  const std::string e = bytes_error("-4KiB");
  EXPECT_TRUE(contains(e, "must not be negative")) << e;
  EXPECT_TRUE(contains(e, "'-4KiB'"));
}

TEST(UnitsBytes, TooLarge) {
  const std::string e = bytes_error("20000000000GiB");
  EXPECT_TRUE(contains(e, "too large")) << e;
  EXPECT_TRUE(contains(bytes_error("16EiB"), "unknown unit"));
  EXPECT_EQ(parse_bytes("16777215TiB", nullptr), uint64_t{16777215} << 40);
}

TEST(UnitsBytes, UnknownUnitWithHint) {
  const std::string e = bytes_error("64KIB");
  EXPECT_TRUE(contains(e, "unknown unit 'KIB'")) << e;
  EXPECT_TRUE(contains(e, "did you mean 'KiB'")) << e;
  EXPECT_TRUE(contains(e, "expected one of B, KiB, MiB")) << e;
}

TEST(UnitsBytes, UnknownUnitWithoutHint) {
  const std::string e = bytes_error("64parsecs");
  EXPECT_TRUE(contains(e, "unknown unit 'parsecs'")) << e;
  EXPECT_FALSE(contains(e, "did you mean"));
}

TEST(UnitsBytes, NotANumber) {
  const std::string e = bytes_error("lots");
  EXPECT_TRUE(contains(e, "expected a size such as 64KiB, got 'lots'")) << e;
  EXPECT_TRUE(contains(bytes_error(""), "expected a size"));
}

TEST(UnitsBytes, NullErrorPointerIsAllowed) {
  EXPECT_FALSE(parse_bytes("-1B", nullptr).has_value());
  EXPECT_FALSE(parse_bytes("1XB", nullptr).has_value());
}

TEST(UnitsFrequency, Units) {
  EXPECT_DOUBLE_EQ(*parse_frequency_hz("1.2GHz", nullptr), 1.2e9);
  EXPECT_DOUBLE_EQ(*parse_frequency_hz("800MHz", nullptr), 800e6);
  EXPECT_DOUBLE_EQ(*parse_frequency_hz("32kHz", nullptr), 32e3);
  EXPECT_DOUBLE_EQ(*parse_frequency_hz("50Hz", nullptr), 50.0);
}

TEST(UnitsFrequency, ZeroRejected) {
  for (const char* text : {"0GHz", "0", "0.0MHz"}) {
    std::string error;
    EXPECT_FALSE(parse_frequency_hz(text, &error).has_value()) << text;
    EXPECT_TRUE(contains(error, "greater than zero")) << error;
  }
}

TEST(UnitsFrequency, MissingUnit) {
  std::string error;
  EXPECT_FALSE(parse_frequency_hz("1000", &error).has_value());
  EXPECT_TRUE(contains(error, "missing unit in '1000'")) << error;
}

TEST(UnitsFrequency, NegativeAndUnknown) {
  std::string error;
  EXPECT_FALSE(parse_frequency_hz("-1GHz", &error).has_value());
  EXPECT_TRUE(contains(error, "must not be negative")) << error;
  EXPECT_FALSE(parse_frequency_hz("1Ghz", &error).has_value());
  EXPECT_TRUE(contains(error, "did you mean 'GHz'")) << error;
}

TEST(UnitsTime, Units) {
  EXPECT_EQ(parse_time_ps("7ps", nullptr), 7u);
  EXPECT_EQ(parse_time_ps("15ns", nullptr), 15000u);
  EXPECT_EQ(parse_time_ps("1.5us", nullptr), 1500000u);
  EXPECT_EQ(parse_time_ps("3ms", nullptr), 3000000000u);
  EXPECT_EQ(parse_time_ps("2s", nullptr), 2000000000000u);
  EXPECT_EQ(parse_time_ps("0", nullptr), 0u);
}

TEST(UnitsTime, MissingUnit) {
  std::string error;
  EXPECT_FALSE(parse_time_ps("10", &error).has_value());
  EXPECT_TRUE(contains(error, "missing unit in '10'")) << error;
  EXPECT_TRUE(contains(error, "ps, ns, us, ms, s")) << error;
}

TEST(UnitsTime, FractionalPicosecondsAndNegative) {
  std::string error;
  EXPECT_FALSE(parse_time_ps("1.5ps", &error).has_value());
  EXPECT_TRUE(contains(error, "not a whole number of picoseconds")) << error;
  EXPECT_FALSE(parse_time_ps("-5ns", &error).has_value());
  EXPECT_TRUE(contains(error, "must not be negative")) << error;
  EXPECT_FALSE(parse_time_ps("5nsec", &error).has_value());
  EXPECT_TRUE(contains(error, "unknown unit 'nsec'")) << error;
}

TEST(UnitsRate, MegaAndGigaTransfers) {
  EXPECT_DOUBLE_EQ(*parse_rate_mts("3200MT/s", nullptr), 3200.0);
  EXPECT_DOUBLE_EQ(*parse_rate_mts("3.2GT/s", nullptr), 3200.0);
  EXPECT_DOUBLE_EQ(*parse_rate_mts("6400 MT/s", nullptr), 6400.0);
}

TEST(UnitsRate, ZeroMissingAndUnknown) {
  std::string error;
  EXPECT_FALSE(parse_rate_mts("0MT/s", &error).has_value());
  EXPECT_TRUE(contains(error, "greater than zero")) << error;
  EXPECT_FALSE(parse_rate_mts("3200", &error).has_value());
  EXPECT_TRUE(contains(error, "missing unit")) << error;
  EXPECT_FALSE(parse_rate_mts("3200MTs", &error).has_value());
  EXPECT_TRUE(contains(error, "did you mean 'MT/s'")) << error;
}

TEST(UnitsInt, DecimalHexAndErrors) {
  EXPECT_EQ(parse_int("42", nullptr), 42);
  EXPECT_EQ(parse_int("-7", nullptr), -7);
  EXPECT_EQ(parse_int("+3", nullptr), 3);
  EXPECT_EQ(parse_int("0x1F", nullptr), 31);
  EXPECT_EQ(parse_int(" 12 ", nullptr), 12);
  std::string error;
  EXPECT_FALSE(parse_int("12abc", &error).has_value());
  EXPECT_TRUE(contains(error, "expected a whole number, got '12abc'")) << error;
  EXPECT_FALSE(parse_int("1.5", &error).has_value());
  EXPECT_TRUE(contains(error, "expected a whole number")) << error;
  EXPECT_FALSE(parse_int("", &error).has_value());
  EXPECT_TRUE(contains(error, "empty value")) << error;
  EXPECT_FALSE(parse_int("-", &error).has_value());
  EXPECT_FALSE(parse_int("99999999999999999999", &error).has_value());
  EXPECT_TRUE(contains(error, "out of range")) << error;
}

TEST(UnitsDouble, ParsesAndRejects) {
  EXPECT_DOUBLE_EQ(*parse_double("0.25", nullptr), 0.25);
  EXPECT_DOUBLE_EQ(*parse_double("-1e3", nullptr), -1000.0);
  std::string error;
  EXPECT_FALSE(parse_double("1.5x", &error).has_value());
  EXPECT_TRUE(contains(error, "expected a number, got '1.5x'")) << error;
  EXPECT_FALSE(parse_double("", &error).has_value());
  EXPECT_FALSE(parse_double("inf", &error).has_value());
}

TEST(UnitsFormat, Bytes) {
  EXPECT_EQ(format_bytes(0), "0B");
  EXPECT_EQ(format_bytes(1536), "1536B");
  EXPECT_EQ(format_bytes(65536), "64KiB");
  EXPECT_EQ(format_bytes(3u << 20), "3MiB");
  EXPECT_EQ(format_bytes(uint64_t{1} << 30), "1GiB");
  EXPECT_EQ(format_bytes(uint64_t{2} << 40), "2TiB");
  EXPECT_EQ(format_bytes(1025u << 10), "1025KiB");
}

TEST(UnitsFormat, Time) {
  EXPECT_EQ(format_time_ps(0), "0ps");
  EXPECT_EQ(format_time_ps(1500), "1500ps");
  EXPECT_EQ(format_time_ps(15000), "15ns");
  EXPECT_EQ(format_time_ps(50000000), "50us");
  EXPECT_EQ(format_time_ps(2000000000000u), "2s");
}

TEST(UnitsFormat, FrequencyAndRate) {
  EXPECT_EQ(format_frequency_hz(1.2e9), "1.2GHz");
  EXPECT_EQ(format_frequency_hz(800e6), "800MHz");
  EXPECT_EQ(format_frequency_hz(1e3), "1kHz");
  EXPECT_EQ(format_frequency_hz(50), "50Hz");
  EXPECT_EQ(format_rate_mts(3200), "3.2GT/s");
  EXPECT_EQ(format_rate_mts(800), "800MT/s");
}

TEST(UnitsFormat, RoundTrips) {
  for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{1000}, uint64_t{1024}, uint64_t{1536},
                     uint64_t{48} << 10, uint64_t{7} << 20, uint64_t{5} << 30, uint64_t{9} << 40,
                     uint64_t{123456789}})
    EXPECT_EQ(parse_bytes(format_bytes(v), nullptr), v) << format_bytes(v);
  for (uint64_t v : {uint64_t{1}, uint64_t{999}, uint64_t{15000}, uint64_t{1500000},
                     uint64_t{3000000000}, uint64_t{2000000000000}, uint64_t{123456789}})
    EXPECT_EQ(parse_time_ps(format_time_ps(v), nullptr), v) << format_time_ps(v);
  for (double hz : {1.0, 32e3, 800e6, 1.2e9, 2.5e9})
    EXPECT_DOUBLE_EQ(*parse_frequency_hz(format_frequency_hz(hz), nullptr), hz);
  for (double mts : {1600.0, 3200.0, 6400.0, 400.0})
    EXPECT_DOUBLE_EQ(*parse_rate_mts(format_rate_mts(mts), nullptr), mts);
}

} // namespace
} // namespace npu::units
