#pragma once
// What the summary derives from the launches of a run: the compact launch table, the
// "where the time went" breakdown and the critical path. Plain logic, no SystemC.

#include "models/common/launch_record.h"

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace npu {

/// The part of a launch the summary needs, without its strings: 112 bytes a launch.
struct LaunchRow : LaunchTimes, LaunchCauses {
  uint32_t kernel = 0; ///< index into LaunchTable::kernels()
  int32_t unit = -1;
  uint32_t stream = 0; ///< index into LaunchTable::streams()
  bool async = false;
};

/// Every launch of a run, compactly, in launch-id order; names are stored once.
class LaunchTable {
public:
  void add(const LaunchRecord& record);
  const std::vector<LaunchRow>& rows() const { return m_rows; }
  /// Kernel names in order of their first launch.
  const std::vector<std::string>& kernels() const { return m_kernels; }
  const std::vector<std::string>& streams() const { return m_streams; }
  /// Each kernel's work summed over its launches, by kernel index.
  const std::vector<LaunchWork>& work() const { return m_work; }
  bool empty() const { return m_rows.empty(); }
  size_t size() const { return m_rows.size(); }

private:
  static uint32_t intern(const std::string& name, std::vector<std::string>& names,
                         std::unordered_map<std::string, uint32_t>& index);

  std::vector<LaunchRow> m_rows;
  std::vector<std::string> m_kernels;
  std::vector<std::string> m_streams;
  std::vector<LaunchWork> m_work;
  std::unordered_map<std::string, uint32_t> m_kernel_index;
  std::unordered_map<std::string, uint32_t> m_stream_index;
};

/// The table of a list of records.
LaunchTable make_launch_table(const std::vector<LaunchRecord>& records);

/// Categories of simulated time, in order of precedence: an instant belongs to the
/// first category that has a launch in it (see breakdown()).
enum class TimeCategory : uint8_t {
  Execute,  ///< a launch between t4 and t5
  Iload,    ///< a launch between t3 and t4
  Schedule, ///< a launch between t2 and t3 (waiting or being dispatched)
  Complete, ///< a launch between t5 and t6
  Launch,   ///< a launch between t0 and t2: the host prepares and submits it
  Idle,     ///< no launch in flight: the device waits for the host (host work, copies, syncs)
};
inline constexpr size_t k_time_categories = 6;

/// Machine name of a category ("execute", ..., "host_launch", "device_idle").
const char* category_name(TimeCategory category);

/// Simulated time per category; the categories partition [0, simulated end), so the
/// parts add up to it exactly.
using TimeBreakdown = std::array<uint64_t, k_time_categories>;

/// Where the time went: every instant of [0, end_ps) is given to the first category
/// (in TimeCategory order) that some launch is in at that instant. Launches must be in
/// launch-id order, whose t0 never decreases (one host thread opens them).
TimeBreakdown breakdown(const LaunchTable& table, uint64_t end_ps);

/// Each kernel's share of [0, end_ps), by kernel index: every instant that breakdown()
/// gives to a category other than Idle is shared equally (to the picosecond) among the
/// launches in that category at that instant. The shares and the Idle part of
/// breakdown() add up to end_ps exactly.
std::vector<uint64_t> kernel_time(const LaunchTable& table, uint64_t end_ps);

/// breakdown() and kernel_time() of one sweep.
struct TimeShares {
  TimeBreakdown parts;
  std::vector<uint64_t> kernel_ps;
};
TimeShares time_shares(const LaunchTable& table, uint64_t end_ps);

/// One kernel's share of the critical path.
struct PathKernel {
  std::string kernel;
  uint64_t launches = 0;
  uint64_t ps = 0; ///< its launches' phases that lie on the path
};

/// The chain of launches and host intervals that determined the end of the run,
/// followed backwards from the end (see critical_path()).
struct CriticalPath {
  TimeBreakdown ps{};              ///< path time per category; adds up to the end time
  uint64_t launches = 0;           ///< launches with a phase on the path
  uint64_t host_gaps = 0;          ///< host intervals between launch calls on the path
  std::vector<PathKernel> kernels; ///< by path time, largest first
};

/// Walks back from the end through the causes the simulator recorded (LaunchCauses):
/// from the launch whose completion the host learnt of last, through its complete,
/// execute and iload, then to what released it: the launch whose completion let it
/// dispatch (its stream's or queue's previous command, an event it waited for, the units
/// it needed), or else the host's launch call (prepare and submit) and what the host did
/// before it: the launch whose completion ended its latest wait, or its previous launch
/// call. Host time on the path that is not a launch call, and copies or event commands
/// between two launches, count as Idle.
CriticalPath critical_path(const LaunchTable& table, uint64_t end_ps);

} // namespace npu
