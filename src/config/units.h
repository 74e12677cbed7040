#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

// Quantities with units as users write them in configs: "64KiB", "1.2GHz",
// "15ns", "3200MT/s". Plain functions, no SystemC, so they are unit-tested alone.
namespace npu::units {

// Physically sane ranges: every frequency, bandwidth, transfer rate and duration of a
// config is checked against them (config::Section), whatever its key.
/// Clocks from 1 kHz (slower than any digital block worth timing) to 100 GHz (beyond any
/// synchronous logic; today's fastest cores run near 6 GHz).
inline constexpr double kMinFrequencyHz = 1e3;
inline constexpr double kMaxFrequencyHz = 100e9;
/// Bandwidths from 1 KB/s (a slow serial link) to 100 TB/s (ten times a whole HBM3e
/// device, about 8 TB/s).
inline constexpr double kMinBandwidthBytesPerS = 1e3;
inline constexpr double kMaxBandwidthBytesPerS = 100e12;
/// Transfer rates from 1 MT/s to 256 GT/s (twice PCIe 7.0's 128 GT/s; DRAM pins run at
/// most a few tens of GT/s).
inline constexpr double kMinRateMts = 1;
inline constexpr double kMaxRateMts = 256e3;
/// Latencies and other durations of a config: at most 1 s, four orders of magnitude above
/// the slowest latency modelled (an interrupt and thread wake-up, about 15 us). 0 is
/// allowed where a key allows it.
inline constexpr uint64_t kMaxLatencyPs = 1'000'000'000'000ull;

/// Bytes: B, KiB, MiB, GiB, TiB (binary), KB, MB, GB (decimal); a bare integer is bytes.
std::optional<uint64_t> parse_bytes(std::string_view text, std::string* error);
/// Frequency in Hz: Hz, kHz, MHz, GHz. Must be > 0.
std::optional<double> parse_frequency_hz(std::string_view text, std::string* error);
/// Duration in picoseconds: ps, ns, us, ms, s. A unit is required (except for 0).
std::optional<uint64_t> parse_time_ps(std::string_view text, std::string* error);
/// Transfer rate in mega-transfers per second: MT/s, GT/s.
std::optional<double> parse_rate_mts(std::string_view text, std::string* error);
/// Bandwidth in bytes per second: B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s. Must be > 0.
std::optional<double> parse_bandwidth(std::string_view text, std::string* error);
/// A whole number (decimal or 0x hex), with range checks done by the caller.
std::optional<int64_t> parse_int(std::string_view text, std::string* error);
/// A real number.
std::optional<double> parse_double(std::string_view text, std::string* error);

/// Canonical spellings, the inverse of the parsers ("64KiB", "15ns", "1.2GHz").
std::string format_bytes(uint64_t bytes);
std::string format_time_ps(uint64_t ps);
std::string format_frequency_hz(double hz);
std::string format_rate_mts(double mts);
std::string format_bandwidth(double bytes_per_s);

} // namespace npu::units
