#include "report/trace_writer.h"

#include "common/error.h"
#include "common/utf8.h"
#include "models/common/launch_record.h"

#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace npu {

namespace {

constexpr size_t kBufferBytes = 1 << 16; // events are gathered, then written in blocks

// The five launch phases and completion, as nested slices between consecutive stamps.
constexpr std::array<std::string_view, 6> kPhases = {"prepare", "submit",  "schedule",
                                                     "iload",   "execute", "complete"};

// Midpoint of [begin, end]: a flow binds to the slice around it, whatever starts or
// ends at the edges.
uint64_t mid(uint64_t begin_ps, uint64_t end_ps) {
  return begin_ps + (end_ps - begin_ps) / 2;
}

} // namespace

ChromeTraceWriter::ChromeTraceWriter(TraceOptions options, const TraceLayout& layout)
    : m_options(std::move(options)), m_output("--trace", m_options.path, OutputPath::Kind::File),
      m_icache(layout.units) {
  if (m_options.sample == 0)
    m_options.sample = 1;
  if (m_options.limit > 0)
    m_traced_total = (m_options.limit + m_options.sample - 1) / m_options.sample;
  const int fd = m_output.open_file();
  m_file = ::fdopen(fd, "wb");
  if (m_file == nullptr) {
    const int error = errno;
    ::close(fd);
    fail("cannot open", error);
  }
  put("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
  write_metadata(layout);
}

ChromeTraceWriter::~ChromeTraceWriter() {
  if (m_file != nullptr)
    std::fclose(m_file);
}

void ChromeTraceWriter::fail(const std::string& what, int error) const {
  throw OutputError(fmt::format("cannot write trace: {} '{}': {}", what, m_output.target(),
                                std::strerror(error)));
}

void ChromeTraceWriter::commit(uint64_t end_ps) {
  if (m_probe != nullptr && m_open)
    end_power(end_ps > 0 ? end_ps : m_probe->now_ps(), true);
  flush_counters();
  put("\n]}\n");
  drain();
  // A device or FIFO has nothing to sync (fsync fails there with EINVAL).
  const bool written = std::ferror(m_file) == 0 && std::fflush(m_file) == 0 &&
                       (m_output.direct() || ::fsync(fileno(m_file)) == 0);
  const int error = errno;
  const bool closed = std::fclose(m_file) == 0;
  m_file = nullptr;
  if (!written || !closed)
    fail("cannot write", written ? errno : error);
  m_output.commit(); // renamed into place only now: a failed run leaves no trace file
}

bool ChromeTraceWriter::wants(int64_t launch_id) const {
  if (launch_id < 0)
    return m_open;
  const auto id = static_cast<uint64_t>(launch_id);
  return id % m_options.sample == 0 && (m_options.limit == 0 || id < m_options.limit);
}

void ChromeTraceWriter::write_metadata(const TraceLayout& layout) {
  int sort = 0;
  name_process(kHostPid, "host", sort++);
  name_thread(kHostPid, kHostTid, "host thread", 0);
  name_thread(kHostPid, kDriverTid, "driver", 1);
  name_process(kQueuePid, "hardware queues", sort++);
  for (uint32_t q = 0; q < layout.queues; ++q)
    name_thread(kQueuePid, kQueueTidBase + static_cast<int>(q), fmt::format("queue {}", q),
                static_cast<int>(q));
  for (uint32_t u = 0; u < layout.units; ++u) {
    const int pid = kUnitPidBase + static_cast<int>(u);
    name_process(pid, fmt::format("compute unit {}", u), sort++);
    name_thread(pid, kUnitTidBase + static_cast<int>(u), fmt::format("unit {}", u), 0);
    write_count(pid, "icache misses", "lines", 0, 0);
  }
  name_process(kDmaPid, "DMA", sort++);
  for (uint32_t c = 0; c < layout.dma_channels; ++c)
    name_thread(kDmaPid, kDmaTidBase + static_cast<int>(c), fmt::format("channel {}", c),
                static_cast<int>(c));
  name_process(kDdrPid, "DDR", sort++);
  name_thread(kDdrPid, kDdrTid, "DDR", 0);
  write_count(kDdrPid, "DDR bandwidth", "GB/s", 0, 0);
}

void ChromeTraceWriter::name_process(int pid, std::string_view name, int sort_index) {
  start_event();
  emit(R"({{"ph":"M","name":"process_name","pid":{},"tid":0,"args":{{"name":)", pid);
  put_string(name);
  put("}}");
  start_event();
  emit(R"({{"ph":"M","name":"process_sort_index","pid":{},"tid":0,"args":{{"sort_index":{}}}}})",
       pid, sort_index);
}

void ChromeTraceWriter::name_thread(int pid, int tid, std::string_view name, int sort_index) {
  start_event();
  emit(R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":)", pid, tid);
  put_string(name);
  put("}}");
  start_event();
  emit(R"({{"ph":"M","name":"thread_sort_index","pid":{},"tid":{},"args":{{"sort_index":{}}}}})",
       pid, tid, sort_index);
}

void ChromeTraceWriter::slice(TraceTrack track, uint32_t index, std::string_view name,
                              uint64_t begin_ps, uint64_t end_ps, int64_t launch_id) {
  sample_power();
  if (!wants(launch_id))
    return;
  const int i = static_cast<int>(index);
  switch (track) {
  case TraceTrack::Host:
    complete(kHostPid, kHostTid, name, begin_ps, end_ps, launch_id);
    break;
  case TraceTrack::Driver:
    complete(kHostPid, kDriverTid, name, begin_ps, end_ps, launch_id);
    break;
  case TraceTrack::Queue:
    complete(kQueuePid, kQueueTidBase + i, name, begin_ps, end_ps, launch_id);
    break;
  case TraceTrack::Unit:
    complete(kUnitPidBase + i, kUnitTidBase + i, name, begin_ps, end_ps, launch_id);
    break;
  case TraceTrack::DmaChannel:
    complete(kDmaPid, kDmaTidBase + i, name, begin_ps, end_ps, launch_id);
    break;
  }
}

void ChromeTraceWriter::launch_call(const LaunchRecord& r, uint64_t end_ps) {
  sample_power();
  const auto id = static_cast<int64_t>(r.launch_id);
  if (!wants(id))
    return;
  // The call, then the flow out of it, then its parts: a viewer binds the flow to the
  // call slice.
  complete(kHostPid, kHostTid, fmt::format("launch {}", r.kernel), r.at[Stamp::Called], end_ps, id);
  flow('s', "launch", r.launch_id, kHostPid, kHostTid,
       mid(r.at[Stamp::Called], r.at[Stamp::Submitted]));
  complete(kHostPid, kHostTid, "prepare", r.at[Stamp::Called], r.at[Stamp::Packed], id);
  complete(kHostPid, kHostTid, "submit", r.at[Stamp::Packed], r.at[Stamp::Submitted], id);
}

void ChromeTraceWriter::launch_flow(const LaunchRecord& r) {
  sample_power();
  if (wants(static_cast<int64_t>(r.launch_id)))
    flow('s', "launch", r.launch_id, kHostPid, kHostTid,
         mid(r.at[Stamp::Called], r.at[Stamp::Submitted]));
}

void ChromeTraceWriter::unit_run(uint64_t launch_id, std::string_view kernel, uint32_t unit,
                                 uint64_t assigned_ps, uint64_t resident_ps, uint64_t finished_ps) {
  sample_power();
  const auto id = static_cast<int64_t>(launch_id);
  if (!wants(id))
    return;
  const int pid = kUnitPidBase + static_cast<int>(unit);
  const int tid = kUnitTidBase + static_cast<int>(unit);
  complete(pid, tid, kernel, assigned_ps, finished_ps, id);
  complete(pid, tid, "iload", assigned_ps, resident_ps, id);
  complete(pid, tid, "execute", resident_ps, finished_ps, id);
}

void ChromeTraceWriter::launch_done(const LaunchRecord& r) {
  sample_power();
  const auto id = static_cast<int64_t>(r.launch_id);
  if (!wants(id))
    return;
  // The launch on its (critical) unit: one async slice from its call to the host learning
  // of its end, with the phases nested inside, on a track of its own so that launches may
  // overlap.
  const int pid = kUnitPidBase + r.unit;
  const int tid = kUnitTidBase + r.unit;
  async('b', pid, r.kernel, r.launch_id, r.at[Stamp::Called], &r);
  for (size_t i = 0; i < kPhases.size(); ++i) {
    async('b', pid, kPhases[i], r.launch_id, r.at.nth(i), nullptr);
    async('e', pid, kPhases[i], r.launch_id, r.at.nth(i + 1), nullptr);
  }
  async('e', pid, r.kernel, r.launch_id, r.at[Stamp::Learnt], nullptr);
  // Flows: the launch call into the kernel's execution, its execution back to where
  // the host learnt of the completion (a mark on the driver track).
  const uint64_t executing = mid(r.at[Stamp::Resident], r.at[Stamp::Finished]);
  flow('f', "launch", r.launch_id, pid, tid, executing);
  flow('s', "completion", r.launch_id, pid, tid, executing);
  complete(kHostPid, kDriverTid, fmt::format("completion {}", r.kernel), r.at[Stamp::Learnt],
           r.at[Stamp::Learnt], id);
  flow('f', "completion", r.launch_id, kHostPid, kDriverTid, r.at[Stamp::Learnt]);
  if (m_traced_total > 0 && ++m_traced_done == m_traced_total) {
    // The cap is reached and every traced launch is complete: the rest is left out.
    if (m_probe != nullptr)
      end_power(m_probe->now_ps(), false);
    flush_counters();
    m_open = false;
  }
}

void ChromeTraceWriter::ddr_bytes(uint64_t at_ps, uint64_t bytes) {
  sample_power();
  if (!m_open)
    return;
  // bytes per window -> GB/s: bytes / window_ps * 1e12 / 1e9
  add_count(m_ddr, kDdrPid, "DDR bandwidth", "GB/s", 1e3 / static_cast<double>(m_options.window_ps),
            at_ps, bytes);
}

void ChromeTraceWriter::icache_misses(uint32_t unit, uint64_t at_ps, uint64_t lines) {
  sample_power();
  if (!m_open || unit >= m_icache.size())
    return;
  add_count(m_icache[unit], kUnitPidBase + static_cast<int>(unit), "icache misses", "lines", 1,
            at_ps, lines);
}

void ChromeTraceWriter::add_count(Counter& c, int pid, std::string_view name, std::string_view unit,
                                  double scale, uint64_t at_ps, uint64_t amount) {
  const uint64_t window = at_ps / m_options.window_ps;
  if (window != c.window) {
    if (c.window != UINT64_MAX) {
      write_count(pid, name, unit, c.window * m_options.window_ps,
                  static_cast<double>(c.amount) * scale);
      // A quiet gap reads as zero, not as the last busy window's value.
      if (window > c.window + 1)
        write_count(pid, name, unit, (c.window + 1) * m_options.window_ps, 0);
    }
    c.window = window;
    c.amount = 0;
  }
  c.amount += amount;
}

void ChromeTraceWriter::flush_counters() {
  const auto flush = [this](Counter& c, int pid, std::string_view name, std::string_view unit,
                            double scale) {
    if (c.window == UINT64_MAX)
      return;
    write_count(pid, name, unit, c.window * m_options.window_ps,
                static_cast<double>(c.amount) * scale);
    write_count(pid, name, unit, (c.window + 1) * m_options.window_ps, 0);
    c = Counter{};
  };
  if (!m_open)
    return;
  flush(m_ddr, kDdrPid, "DDR bandwidth", "GB/s", 1e3 / static_cast<double>(m_options.window_ps));
  for (size_t u = 0; u < m_icache.size(); ++u)
    flush(m_icache[u], kUnitPidBase + static_cast<int>(u), "icache misses", "lines", 1);
}

void ChromeTraceWriter::set_energy_probe(const EnergyProbe* probe) {
  m_probe = probe;
  if (probe == nullptr)
    return;
  name_process(kPowerPid, "power", static_cast<int>(kPowerPid) * 100);
  name_thread(kPowerPid, kPowerTid, "power", 0);
  m_power_ps = m_power_from_ps = probe->now_ps();
  m_power_window = m_power_ps / m_options.window_ps;
  m_power_pj.assign(probe->blocks().size(), 0);
  if (m_power_ps > 0)
    probe->energy_pj(m_power_ps, false, m_power_pj);
  m_power_from_pj = m_power_pj;
}

void ChromeTraceWriter::take_power_sample(uint64_t at_ps, bool settled) {
  m_power_window = at_ps / m_options.window_ps;
  if (at_ps < m_power_ps || (at_ps == m_power_ps && !settled))
    return;
  if (at_ps > m_power_ps) {
    write_power_interval();
    m_power_from_ps = m_power_ps;
    std::swap(m_power_from_pj, m_power_pj);
    m_power_ps = at_ps;
  }
  // A settled look at the last sample's time replaces it: the interval is not written yet.
  m_probe->energy_pj(at_ps, settled, m_power_pj);
}

void ChromeTraceWriter::write_power_interval() {
  if (m_power_ps <= m_power_from_ps)
    return;
  // Average power over the interval per block: pJ per ps is W.
  const auto span = static_cast<double>(m_power_ps - m_power_from_ps);
  m_watts.resize(m_power_pj.size());
  for (size_t b = 0; b < m_power_pj.size(); ++b)
    m_watts[b] = (m_power_pj[b] - m_power_from_pj[b]) / span;
  write_power(m_power_from_ps, m_watts);
}

void ChromeTraceWriter::end_power(uint64_t end_ps, bool settled) {
  take_power_sample(end_ps, settled);
  write_power_interval();
  m_watts.assign(m_power_pj.size(), 0);
  write_power(m_power_ps, m_watts);
  m_probe = nullptr; // the track has ended
}

void ChromeTraceWriter::write_power(uint64_t at_ps, const std::vector<double>& watts) {
  start_event();
  emit(R"x({{"ph":"C","name":"power (W)","pid":{},"tid":{},"ts":)x", kPowerPid, kPowerTid);
  put_ts(at_ps);
  put(R"(,"args":{)");
  const std::vector<std::string>& blocks = m_probe->blocks();
  for (size_t b = 0; b < blocks.size(); ++b) {
    if (b > 0)
      put(",");
    put_string(blocks[b]);
    emit(":{:.6f}", watts[b]);
  }
  put("}}");
}

void ChromeTraceWriter::write_count(int pid, std::string_view name, std::string_view unit,
                                    uint64_t at_ps, double value) {
  start_event();
  put(R"({"ph":"C","name":)");
  put_string(name);
  emit(R"(,"pid":{},"tid":{},"ts":)", pid,
       pid == kDdrPid ? kDdrTid : kUnitTidBase + (pid - kUnitPidBase));
  put_ts(at_ps);
  put(R"(,"args":{)");
  put_string(unit);
  emit(":{:.3f}}}}}", value);
}

void ChromeTraceWriter::complete(int pid, int tid, std::string_view name, uint64_t begin_ps,
                                 uint64_t end_ps, int64_t launch_id) {
  start_event();
  put(R"({"ph":"X","name":)");
  put_string(name);
  emit(R"(,"pid":{},"tid":{},"ts":)", pid, tid);
  put_ts(begin_ps);
  put(R"(,"dur":)");
  put_ts(end_ps >= begin_ps ? end_ps - begin_ps : 0);
  if (launch_id >= 0)
    emit(R"(,"args":{{"launch_id":{}}})", launch_id);
  put("}");
}

void ChromeTraceWriter::async(char phase, int pid, std::string_view name, uint64_t id,
                              uint64_t at_ps, const LaunchRecord* r) {
  start_event();
  emit(R"({{"ph":"{}","cat":"launch","name":)", phase);
  put_string(name);
  emit(R"(,"id2":{{"local":"0x{:x}"}},"pid":{},"tid":{},"ts":)", id, pid,
       kUnitTidBase + (pid - kUnitPidBase));
  put_ts(at_ps);
  if (r != nullptr) {
    emit(R"(,"args":{{"launch_id":{},"unit":{},"units":{},"stream":)", r->launch_id, r->unit,
         r->units);
    put_string(r->stream);
    emit(R"(,"async":{}}})", r->async ? "true" : "false");
  }
  put("}");
}

void ChromeTraceWriter::flow(char phase, std::string_view name, uint64_t id, int pid, int tid,
                             uint64_t at_ps) {
  start_event();
  emit(R"({{"ph":"{}","cat":"flow","name":"{}","id":{},"pid":{},"tid":{},"ts":)", phase, name, id,
       pid, tid);
  put_ts(at_ps);
  put(phase == 'f' ? R"(,"bp":"e"})" : "}");
}

void ChromeTraceWriter::start_event() {
  if (m_out.size() >= kBufferBytes)
    drain();
  if (!m_first)
    put(",\n");
  m_first = false;
}

void ChromeTraceWriter::put(std::string_view text) {
  m_out.append(text.data(), text.data() + text.size());
}

void ChromeTraceWriter::drain() {
  if (std::fwrite(m_out.data(), 1, m_out.size(), m_file) != m_out.size())
    fail("cannot write", errno);
  m_out.clear();
}

// A JSON string: quotes and backslashes escaped, control characters as \u00XX, and each
// byte that is not well-formed UTF-8 (names from C++ programs may hold any bytes) as
// U+FFFD, so the trace stays valid JSON whatever the names are.
void ChromeTraceWriter::put_string(std::string_view text) {
  m_out.push_back('"');
  for (size_t i = 0; i < text.size();) {
    const char ch = text[i];
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x80) {
      const size_t n = utf8::sequence_length(text.substr(i));
      if (n == 0) {
        put("\\ufffd");
        ++i;
      } else {
        m_out.append(text.data() + i, text.data() + i + n);
        i += n;
      }
      continue;
    }
    if (c == '"' || c == '\\') {
      m_out.push_back('\\');
      m_out.push_back(ch);
    } else if (c < 0x20) {
      emit("\\u{:04x}", c);
    } else {
      m_out.push_back(ch);
    }
    ++i;
  }
  m_out.push_back('"');
}

void ChromeTraceWriter::put_ts(uint64_t ps) {
  emit("{}.{:06}", ps / 1'000'000, ps % 1'000'000);
}

} // namespace npu
