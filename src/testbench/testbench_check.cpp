#include "config/units.h"
#include "models/compute/op.h"
#include "testbench/testbench.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace npu {

double kernel_min_time_ps(const KernelDesc& kernel, const PlatformConfig& config,
                          std::string* why) {
  const ComputeConfig& cc = config.compute;
  const double period_ps = 1e12 / cc.frequency_hz;
  const double units = std::max<uint32_t>(kernel_units(kernel, cc.units), 1);
  // Every byte an op moves is read from (or written to) DDR, SRAM or host memory.
  double bytes_per_s = config.ddr.channels * config.ddr.channel_bytes_per_s() +
                       static_cast<double>(config.sram.banks) * config.sram.bank_width_bytes *
                           config.sram.frequency_hz;
  if (config.interconnect.pcie.enabled)
    bytes_per_s += 2 * config.interconnect.pcie.raw_bytes_per_s();
  double total = static_cast<double>(cc.launch_overhead_cycles) * period_ps;
  double largest = -1;
  for (size_t i = 0; i <= kernel.fused.size(); ++i) {
    const OpSpec& op = i == 0 ? kernel.op : kernel.fused[i - 1];
    const OpExtent x = op_extent(op);
    const double cpo = dtype_cycles_per_op(op.dtype);
    const struct {
      double ps;
      const char* what;
    } bounds[] = {
        {static_cast<double>(x.unit_cycles) * period_ps, "its cycles"},
        {static_cast<double>(x.macs) * cc.mac_cycles[static_cast<size_t>(op.dtype)] /
             (units * static_cast<double>(cc.array.rows) * cc.array.cols) * period_ps,
         "its MACs at the MAC arrays' peak rate"},
        {static_cast<double>(x.vector_ops) * cpo / (units * cc.vector_lanes) * period_ps,
         "its element operations at the vector units' peak rate"},
        {static_cast<double>(x.bytes) / bytes_per_s * 1e12,
         "its bytes at the memories' peak bandwidth"},
    };
    double op_ps = 0;
    const char* op_why = "";
    for (const auto& b : bounds)
      if (b.ps > op_ps) {
        op_ps = b.ps;
        op_why = b.what;
      }
    total += op_ps;
    if (why && op_ps > largest) {
      largest = op_ps;
      *why = op_why;
    }
  }
  return total;
}

namespace {

// "17.2s", "850us": three significant digits, for lower bounds that are not whole units.
std::string approx_time(double ps) {
  static const std::pair<const char*, double> kUnits[] = {
      {"s", 1e12}, {"ms", 1e9}, {"us", 1e6}, {"ns", 1e3}};
  for (const auto& [name, scale] : kUnits)
    if (ps >= scale || scale == 1e3) {
      char text[64];
      std::snprintf(text, sizeof text, "%.3g%s", ps / scale, name);
      return text;
    }
  return "";
}

// Launches per stream and kernel, counting repeats and command-list submits (in doubles:
// nested repeats of a billion would overflow 64 bits).
using LaunchCounts = std::map<std::pair<uint32_t, uint32_t>, double>;
void count_launches(const Testbench& tb, const std::vector<Step>& steps, double times,
                    std::vector<std::vector<std::pair<uint32_t, double>>>& lists,
                    LaunchCounts& counts, std::vector<std::pair<uint32_t, double>>* recording) {
  for (const Step& s : steps) {
    if (const auto* launch = s.as<step::Launch>()) {
      if (recording)
        recording->push_back({launch->kernel, times});
      else
        counts[{launch->stream, launch->kernel}] += times;
    } else if (const auto* repeat = s.as<step::Repeat>()) {
      count_launches(tb, repeat->body, times * static_cast<double>(repeat->count), lists, counts,
                     recording);
    } else if (const auto* list = s.as<step::CommandList>()) {
      lists[list->list].clear();
      count_launches(tb, list->body, 1, lists, counts, &lists[list->list]);
    } else if (const auto* submit = s.as<step::Submit>()) {
      for (const auto& [kernel, n] : lists[submit->list])
        counts[{submit->stream, kernel}] += n * times;
    }
  }
}

// Refuses a testbench whose launches on one stream need more than limits.sim_time at the
// hardware's peak rates: the run could only end at the limit, after a long wait.
void check_sim_time_bound(const Testbench& tb, const PlatformConfig& config) {
  std::vector<std::vector<std::pair<uint32_t, double>>> lists(tb.command_lists.size());
  LaunchCounts counts;
  count_launches(tb, tb.program, 1, lists, counts, nullptr);
  std::vector<double> min_ps(tb.kernels.size());
  for (size_t k = 0; k < tb.kernels.size(); ++k)
    min_ps[k] = kernel_min_time_ps(tb.kernels[k].desc, config);
  std::map<uint32_t, double> stream_ps;
  for (const auto& [key, n] : counts)
    stream_ps[key.first] += n * min_ps[key.second];
  const double limit_ps = static_cast<double>(config.limits.sim_time_ps);
  for (const auto& [stream, total] : stream_ps) {
    if (total <= limit_ps)
      continue;
    // Name the kernel that weighs most on this stream.
    uint32_t worst = 0;
    double worst_ps = -1, worst_n = 0;
    for (const auto& [key, n] : counts)
      if (key.first == stream && n * min_ps[key.second] > worst_ps) {
        worst = key.second;
        worst_ps = n * min_ps[key.second];
        worst_n = n;
      }
    const Testbench::NamedKernel& k = tb.kernels[worst];
    std::string why;
    kernel_min_time_ps(k.desc, config, &why);
    char count[32];
    std::snprintf(count, sizeof count, "%.0f", worst_n);
    const std::string stream_name = stream == 0 ? "default" : tb.streams[stream - 1].name;
    std::string message = std::string(count) + (worst_n == 1 ? " launch" : " launches") +
                          " on stream '" + stream_name + "' need" + (worst_n == 1 ? "s" : "") +
                          " at least " + approx_time(worst_ps) + " of simulated time (" + why + ")";
    if (total > worst_ps * 1.001)
      message += ", the stream's launches together at least " + approx_time(total);
    throw InputError(k.loc, "kernels." + k.desc.name,
                     message + ", more than limits.sim_time of " +
                         units::format_time_ps(config.limits.sim_time_ps) +
                         "; raise limits.sim_time or --max-sim-time if the run is meant to be "
                         "this long");
  }
}

uint64_t align_up(uint64_t bytes, uint64_t align) {
  return (bytes + align - 1) / align * align;
}

} // namespace

void check_testbench(const Testbench& tb, const PlatformConfig& config) {
  for (const auto& k : tb.kernels)
    if (kernel_units(k.desc, config.compute.units) > config.compute.units)
      throw InputError(k.units_loc, "kernels." + k.desc.name + ".units",
                       "asks for " + std::to_string(k.desc.units) + " units but '" + config.name +
                           "' has " + std::to_string(config.compute.units));
  uint64_t sram = 0;
  for (const auto& b : tb.buffers)
    if (b.memory == MemoryKind::Sram)
      sram += align_up(b.bytes, Runtime::kBufferAlign);
  if (sram > config.sram.buffer_bytes)
    for (const auto& b : tb.buffers)
      if (b.memory == MemoryKind::Sram)
        throw InputError(b.size_loc, "buffers." + b.name + ".size",
                         "SRAM buffers need " + units::format_bytes(sram) +
                             " but sram.buffer_space is " +
                             units::format_bytes(config.sram.buffer_bytes));
  // DDR holds the kernels' binaries and the DDR buffers (and the command rings, below them):
  // more than ddr.size can never be allocated.
  uint64_t ddr = 0;
  for (const auto& k : tb.kernels)
    ddr += align_up(k.desc.binary_bytes, Runtime::kBinaryAlign);
  for (const auto& b : tb.buffers)
    if (b.memory == MemoryKind::Ddr) {
      ddr += align_up(b.bytes, Runtime::kBufferAlign);
      if (ddr > config.ddr.size_bytes)
        throw InputError(b.size_loc, "buffers." + b.name + ".size",
                         "DDR buffers and kernel binaries need at least " +
                             units::format_bytes(ddr) + " but ddr.size is " +
                             units::format_bytes(config.ddr.size_bytes));
    }
  check_sim_time_bound(tb, config);
}

} // namespace npu
