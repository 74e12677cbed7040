#include "testbench/testbench.h"

#include "config/section.h"
#include "config/units.h"
#include "models/compute/op.h"
#include "models/scheduler/command.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>
#include <map>

namespace npu {
namespace {

constexpr uint64_t kMaxRepeat = 1'000'000'000ull;
constexpr int kMaxNesting = 16;
constexpr size_t kMaxFusedOps = 4096;

// Names declared in one namespace of the testbench (kernels, buffers, ...).
class NameTable {
public:
  explicit NameTable(const char* what) : m_what(what) {}

  uint32_t add(const std::string& name, const SourceLoc& loc, const std::string& key) {
    if (m_index.count(name))
      throw InputError(loc, key, std::string("duplicate ") + m_what + " name '" + name + "'");
    m_names.push_back(name);
    m_index[name] = static_cast<uint32_t>(m_names.size() - 1);
    return m_index[name];
  }
  /// Index of `name`, or an error at `loc` with a "did you mean".
  uint32_t find(const std::string& name, const SourceLoc& loc, const std::string& key) const {
    const auto it = m_index.find(name);
    if (it != m_index.end())
      return it->second;
    std::string message = std::string("unknown ") + m_what + " '" + name + "'";
    const std::string hint = did_you_mean(name, m_names);
    if (!hint.empty())
      message += "; did you mean '" + hint + "'?";
    else if (m_names.empty())
      message += "; none is declared";
    throw InputError(loc, key, message);
  }
  bool contains(const std::string& name) const { return m_index.count(name) > 0; }

private:
  const char* m_what;
  std::vector<std::string> m_names;
  std::map<std::string, uint32_t> m_index;
};

std::string scalar_of(const cfg::Node& n, const std::string& key, const char* expected) {
  if (!n.is_scalar())
    throw InputError(n.loc, key, std::string("expected ") + expected + ", got " + n.kind_name());
  return n.scalar;
}

// `units`: a count, or `all` (the default): every unit of the config the kernel runs on.
uint32_t read_units(cfg::Section& s, uint32_t def) {
  const cfg::Node* n = s.value("units");
  if (n && n->is_scalar() && n->scalar == "all") {
    s.accept("units");
    return KernelDesc::kAllUnits;
  }
  if (n && n->is_scalar() && !n->scalar.empty() &&
      std::isalpha(static_cast<unsigned char>(n->scalar[0])))
    s.fail("units", "expected a number of units or 'all', got '" + n->scalar + "'");
  return static_cast<uint32_t>(s.integer("units", def, 1, 1024));
}

KernelDesc read_kernel(cfg::Section& s, const std::string& name) {
  KernelDesc d;
  d.name = name;
  s.require("op", "an op such as matmul");
  const std::string op = s.choice("op", "cycles", op_kind_names());
  d.op.kind = op_kind_from_name(op);
  d.op.dtype = dtype_from_name(s.choice("dtype", "int8", dtype_names()));
  d.binary_bytes = s.bytes("binary", 4096, 64, 1ull << 30);
  d.hot_loop_bytes = s.bytes("hot_loop", d.binary_bytes, 64, d.binary_bytes);
  d.units = read_units(s, KernelDesc::kAllUnits);
  constexpr int64_t kMaxDim = 1 << 24;
  auto count = [&](const char* key, int64_t max, const char* expected) {
    s.require(key, expected);
    return static_cast<uint64_t>(s.integer(key, 1, 1, max));
  };
  auto dim = [&](const char* key) { return count(key, kMaxDim, "a positive whole number"); };
  // Keys as in the chapter's launch_conv_kernel: input n x c x h x w, k filters r x s.
  auto window = [&](bool filters, bool padded) {
    d.op.batch = dim("n");
    d.op.channels = dim("c");
    d.op.height = dim("h");
    d.op.width = dim("w");
    if (filters)
      d.op.filters = dim("k");
    d.op.r = dim("r");
    d.op.s = dim("s");
    d.op.stride = static_cast<uint64_t>(s.integer("stride", 1, 1, 64));
    if (padded)
      d.op.pad = static_cast<uint64_t>(s.integer("pad", static_cast<int64_t>(d.op.r / 2), 0, 64));
    // Existing scripts match "filter larger than the padded input".
    const std::string what = std::string(filters || padded ? "filter" : "window") +
                             " larger than the " + (padded ? "padded " : "") + "input";
    if (out_height(d.op) == 0)
      s.fail("r", what + " (" + std::to_string(d.op.r) + " rows, input height " +
                      std::to_string(d.op.height + 2 * d.op.pad) + ")");
    if (out_width(d.op) == 0)
      s.fail("s", what + " (" + std::to_string(d.op.s) + " columns, input width " +
                      std::to_string(d.op.width + 2 * d.op.pad) + ")");
  };
  switch (d.op.kind) {
  case OpKind::Cycles:
    s.require("cycles", "a number of cycles");
    d.op.cycles = static_cast<uint64_t>(s.integer("cycles", 0, 0, int64_t{1} << 48));
    d.op.iterations = static_cast<uint64_t>(s.integer("iterations", 1, 1, int64_t{1} << 20));
    break;
  case OpKind::Matmul:
    d.op.m = dim("m");
    d.op.n = dim("n");
    d.op.k = dim("k");
    // Batched matmul: independent products, one B per batch.
    d.op.batch = static_cast<uint64_t>(s.integer("batch", 1, 1, int64_t{1} << 24));
    break;
  case OpKind::Conv2d:
    window(true, true);
    break;
  case OpKind::DepthwiseConv2d:
    window(false, true);
    break;
  case OpKind::Pool:
    window(false, false);
    break;
  case OpKind::FullyConnected:
    d.op.batch = dim("n");
    d.op.in_features = dim("in");
    d.op.out_features = dim("out");
    break;
  case OpKind::Elementwise:
    d.op.elements = count("elements", int64_t{1} << 40, "a positive number of elements");
    d.op.inputs = static_cast<uint32_t>(s.integer("inputs", 1, 1, 2));
    break;
  case OpKind::Softmax:
  case OpKind::Layernorm:
    d.op.rows = dim("rows");
    d.op.cols = dim("cols");
    break;
  }
  const std::string problem = op_size_problem(d.op);
  if (!problem.empty())
    s.fail("op", op + ": " + problem);
  s.finish();
  return d;
}

// A fused kernel: the ops of kernels declared above it, run in order in one launch with
// one binary (by default the parts' binaries together).
KernelDesc read_fused_kernel(cfg::Section& s, const std::string& name, const NameTable& names,
                             const std::vector<Testbench::NamedKernel>& declared) {
  if (s.has("op"))
    s.fail("op", "a fused kernel takes its ops from the kernels in 'fuse'; remove 'op'");
  const cfg::Node& list = s.require("fuse", "a list of kernel names");
  s.accept("fuse");
  if (!list.is_seq() || list.items.size() < 2)
    s.fail("fuse", "expected a list of at least two kernel names declared above");
  KernelDesc d;
  d.name = name;
  d.units = 1;
  uint64_t binary = 0, hot_loop = 0;
  bool first = true;
  for (const cfg::Node& item : list.items) {
    const std::string part = scalar_of(item, s.key_path("fuse"), "a kernel name");
    const uint32_t index = names.find(part, item.loc, s.key_path("fuse"));
    if (index >= declared.size())
      throw InputError(item.loc, s.key_path("fuse"),
                       "kernel '" + part + "' must be declared before the fused kernel '" + name +
                           "'");
    const KernelDesc& p = declared[index].desc;
    // Fusing fused kernels doubles the op count at each level: 30 levels would be a
    // billion ops, built before any limit could stop it.
    if ((first ? 0 : d.fused.size() + 1) + p.fused.size() + 1 > kMaxFusedOps)
      throw InputError(item.loc, s.key_path("fuse"),
                       "fused kernel '" + name + "' would run more than " +
                           std::to_string(kMaxFusedOps) + " ops");
    for (size_t i = 0; i <= p.fused.size(); ++i) {
      const OpSpec& op = i == 0 ? p.op : p.fused[i - 1];
      if (first)
        d.op = op;
      else
        d.fused.push_back(op);
      first = false;
    }
    binary += p.binary_bytes;
    hot_loop += p.hot_loop_bytes == 0 ? p.binary_bytes : p.hot_loop_bytes;
    const bool all = d.units == KernelDesc::kAllUnits || p.units == KernelDesc::kAllUnits;
    d.units = all ? KernelDesc::kAllUnits : std::max(d.units, p.units);
  }
  d.binary_bytes = s.bytes("binary", std::min<uint64_t>(binary, 1ull << 30), 64, 1ull << 30);
  d.hot_loop_bytes = s.bytes("hot_loop", std::min(hot_loop, d.binary_bytes), 64, d.binary_bytes);
  d.units = read_units(s, d.units);
  s.finish();
  return d;
}

struct Reader {
  explicit Reader(Testbench& t) : tb(t) {}

  Testbench& tb;
  NameTable kernels{"kernel"};
  NameTable buffers{"buffer"};
  NameTable streams{"stream"};
  NameTable events{"event"};
  NameTable lists{"command list"};
  struct NeedsRecord {
    uint32_t event;
    SourceLoc loc;
    std::string key;
    const char* why; ///< what would go wrong
  };
  std::vector<NeedsRecord> waits; ///< event uses that need a record, checked at the end
  std::vector<bool> recorded;
  std::vector<bool> list_recorded;                 ///< a command_list step that runs declares it
  bool in_list = false;                            ///< reading a command list's body
  std::vector<std::vector<uint32_t>> list_buffers; ///< per command list: buffers it launches with
  std::map<uint32_t, SourceLoc> freed;             ///< buffer index -> its free step
  std::map<uint32_t, SourceLoc> destroyed;         ///< stream index + 1 -> its destroy step
  int repeating = 0; ///< enclosing repeats (that run) with a count above 1

  /// Throws when stream `index` (+1) was destroyed by an earlier step.
  void check_not_destroyed(uint32_t index, const SourceLoc& loc, const std::string& key) const {
    const auto it = destroyed.find(index);
    if (it != destroyed.end())
      throw InputError(loc, key,
                       "stream '" + tb.streams[index - 1].name +
                           "' is used after it was destroyed at " + it->second.str());
  }

  /// A free or destroy of `what` ("buffer 'a'", index `index`): not twice, and not inside
  /// a repeat that would run it again. Records where it happened, if the step runs.
  void release_once(std::map<uint32_t, SourceLoc>& done, uint32_t index, const std::string& what,
                    const char* past, const char* gerund, const SourceLoc& loc,
                    const std::string& key, bool runs) {
    if (const auto it = done.find(index); it != done.end())
      throw InputError(loc, key,
                       what + " is " + past + " twice; it was " + past + " at " + it->second.str());
    if (repeating > 0)
      throw InputError(loc, key,
                       std::string(gerund) + " " + what +
                           " inside a repeat would run again on the next iteration; move it "
                           "after the repeat");
    if (runs)
      done[index] = loc;
  }

  uint32_t stream_ref(cfg::Section& s, const std::string& key) {
    if (!s.has(key)) {
      s.accept(key);
      return 0;
    }
    const std::string name = s.string(key, "");
    if (name == "default")
      return 0;
    const uint32_t index = streams.find(name, s.loc(key), s.key_path(key)) + 1;
    check_not_destroyed(index, s.loc(key), s.key_path(key));
    return index;
  }

  uint32_t event_ref(cfg::Section& s) {
    const cfg::Node& n = s.require("event", "an event name");
    const std::string name = scalar_of(n, s.key_path("event"), "an event name");
    s.accept("event");
    if (!events.contains(name)) {
      events.add(name, n.loc, s.key_path("event"));
      tb.events.push_back(name);
      recorded.push_back(false);
    }
    return events.find(name, n.loc, s.key_path("event"));
  }

  /// Index in `table` of the name that the required `key` holds.
  static uint32_t name_ref(cfg::Section& s, const std::string& key, const NameTable& table,
                           const char* expected) {
    const cfg::Node& n = s.require(key, expected);
    s.accept(key);
    return table.find(scalar_of(n, s.key_path(key), expected), n.loc, s.key_path(key));
  }

  uint32_t buffer_ref(const cfg::Node& n, const std::string& key) {
    const uint32_t index = buffers.find(scalar_of(n, key, "a buffer name"), n.loc, key);
    const auto it = freed.find(index);
    if (it != freed.end())
      throw InputError(n.loc, key,
                       "buffer '" + tb.buffers[index].name + "' is used after it was freed at " +
                           it->second.str());
    if (in_list)
      list_buffers.back().push_back(index);
    return index;
  }

  std::vector<Step> read_program(const cfg::Node& node, const std::string& path, int depth,
                                 bool runs) {
    if (depth > kMaxNesting)
      throw InputError(node.loc, path, "repeat blocks nested deeper than 16");
    if (!node.is_seq())
      throw InputError(node.loc, path,
                       std::string("expected a list of steps, got ") + node.kind_name());
    std::vector<Step> steps;
    for (size_t i = 0; i < node.items.size(); ++i)
      steps.push_back(read_step(node.items[i], path + "[" + std::to_string(i) + "]", depth, runs));
    return steps;
  }

  // `runs` is false inside a repeat that never executes: its records do not count.
  Step read_step(const cfg::Node& node, const std::string& path, int depth, bool runs) {
    static const std::vector<std::string> kinds = {
        "launch", "memcpy",  "repeat",       "host_work", "record", "wait",   "sync",
        "query",  "elapsed", "command_list", "submit",    "free",   "destroy"};
    if (!node.is_map() || node.entries.size() != 1)
      throw InputError(node.loc, path,
                       "expected one step such as {launch: {...}}; steps are launch, memcpy, "
                       "repeat, host_work, record, wait, sync, query, elapsed, command_list, "
                       "submit, free, destroy");
    const cfg::MapEntry& e = node.entries.front();
    const std::string key = path + "." + e.key;
    Step step;
    step.loc = e.key_loc;
    const auto kind = std::find(kinds.begin(), kinds.end(), e.key);
    if (kind == kinds.end()) {
      std::string message = "unknown step '" + e.key + "'";
      const std::string hint = did_you_mean(e.key, kinds);
      message += hint.empty() ? "; expected launch, memcpy, repeat, host_work, record, wait, "
                                "sync, query, elapsed, command_list, submit, free or destroy"
                              : "; did you mean '" + hint + "'?";
      throw InputError(e.key_loc, key, message);
    }
    step.kind = static_cast<Step::Kind>(kind - kinds.begin());
    if (in_list && step.kind != Step::Kind::Launch && step.kind != Step::Kind::Repeat)
      throw InputError(e.key_loc, key,
                       "a command list records launches only (and repeats of them), not '" + e.key +
                           "'");
    switch (step.kind) {
    case Step::Kind::Launch: {
      cfg::Section s(&e.value, key, nullptr);
      step.kernel = name_ref(s, "kernel", kernels, "a kernel name");
      if (in_list)
        for (const char* own : {"stream", "async"})
          if (s.has(own))
            s.fail(own, "a launch in a command list takes its stream and async from the submit");
      step.stream = stream_ref(s, "stream");
      step.async = s.boolean("async", false);
      s.accept("args");
      if (const cfg::Node* args = s.value("args")) {
        if (!args->is_seq())
          s.fail("args", "expected a list of buffer names");
        // The limit of the command ring's argument block, which the runtime enforces.
        if (args->items.size() > CommandLayout::kMaxArgs)
          s.fail("args", std::to_string(args->items.size()) +
                             " arguments; a launch takes at most " +
                             std::to_string(CommandLayout::kMaxArgs) + " (its " +
                             units::format_bytes(CommandLayout::kArgBytes) +
                             " argument block in the command ring)");
        for (const auto& a : args->items)
          step.args.push_back(buffer_ref(a, s.key_path("args")));
      }
      s.finish();
      break;
    }
    case Step::Kind::Memcpy: {
      cfg::Section s(&e.value, key, nullptr);
      step.dst = buffer_ref(s.require("dst", "a buffer name"), s.key_path("dst"));
      step.src = buffer_ref(s.require("src", "a buffer name"), s.key_path("src"));
      const uint64_t dst_bytes = tb.buffers[step.dst].bytes;
      const uint64_t src_bytes = tb.buffers[step.src].bytes;
      step.dst_offset = s.bytes("dst_offset", 0, 0, dst_bytes - 1);
      step.src_offset = s.bytes("src_offset", 0, 0, src_bytes - 1);
      const uint64_t limit = std::min(dst_bytes - step.dst_offset, src_bytes - step.src_offset);
      step.bytes = s.bytes("bytes", limit, 1);
      const auto from = [](uint64_t offset) {
        return offset ? " from offset " + units::format_bytes(offset) : std::string();
      };
      if (step.bytes > limit)
        s.fail("bytes", units::format_bytes(step.bytes) + " overruns a buffer (source '" +
                            tb.buffers[step.src].name + "' " + units::format_bytes(src_bytes) +
                            from(step.src_offset) + ", destination '" + tb.buffers[step.dst].name +
                            "' " + units::format_bytes(dst_bytes) + from(step.dst_offset) + ")");
      step.stream = stream_ref(s, "stream");
      step.async = s.boolean("async", false);
      s.finish();
      break;
    }
    case Step::Kind::Repeat: {
      cfg::Section s(&e.value, key, nullptr);
      s.require("count", "a whole number of iterations");
      step.count = static_cast<uint64_t>(s.integer("count", 1, 0, kMaxRepeat));
      const bool again = runs && step.count > 1;
      repeating += again ? 1 : 0;
      step.body = read_program(s.require("body", "a list of steps"), s.key_path("body"), depth + 1,
                               runs && step.count > 0);
      repeating -= again ? 1 : 0;
      // An empty body would spin without simulated time or memory to stop it.
      if (step.body.empty())
        s.fail("body", "a repeat needs at least one step");
      s.finish();
      break;
    }
    case Step::Kind::HostWork: {
      std::string err;
      const auto d = units::parse_time_ps(scalar_of(e.value, key, "a duration such as 50us"), &err);
      if (!d)
        throw InputError(e.value.loc, key, err);
      step.duration_ps = *d;
      break;
    }
    case Step::Kind::Record:
    case Step::Kind::Wait: {
      cfg::Section s(&e.value, key, nullptr);
      step.event = event_ref(s);
      step.stream = stream_ref(s, "stream");
      s.finish();
      if (step.kind == Step::Kind::Record)
        recorded[step.event] = recorded[step.event] || runs;
      else
        waits.push_back({step.event, s.loc("event"), s.key_path("event"),
                         "waited for but never recorded: the wait could never finish"});
      break;
    }
    case Step::Kind::Sync: {
      if (e.value.is_map()) { // sync: {event: e}
        cfg::Section s(&e.value, key, nullptr);
        step.event = event_ref(s);
        step.sync_event = true;
        s.finish();
        waits.push_back({step.event, s.loc("event"), s.key_path("event"),
                         "synchronised on but never recorded: the sync would return at once"});
        break;
      }
      const std::string target =
          scalar_of(e.value, key, "a stream name, 'device' or {event: name}");
      if (target == "device")
        step.sync_device = true;
      else if (target != "default") {
        step.stream = streams.find(target, e.value.loc, key) + 1;
        check_not_destroyed(step.stream, e.value.loc, key);
      }
      break;
    }
    case Step::Kind::Query: {
      cfg::Section s(&e.value, key, nullptr);
      step.event = event_ref(s);
      step.label = s.string("label", "query " + tb.events[step.event]);
      s.finish();
      break;
    }
    case Step::Kind::Elapsed: {
      cfg::Section s(&e.value, key, nullptr);
      step.event = named_event(s, "start");
      step.end_event = named_event(s, "end");
      step.label = s.string("label", tb.events[step.event] + " -> " + tb.events[step.end_event]);
      s.finish();
      for (const char* k : {"start", "end"})
        waits.push_back({k[0] == 's' ? step.event : step.end_event, s.loc(k), s.key_path(k),
                         "timed but never recorded: it has no time"});
      break;
    }
    case Step::Kind::CommandList: {
      cfg::Section s(&e.value, key, nullptr);
      const cfg::Node& n = s.require("name", "a command list name");
      const std::string name = scalar_of(n, s.key_path("name"), "a command list name");
      s.accept("name");
      step.list = lists.add(name, n.loc, s.key_path("name"));
      tb.command_lists.push_back(name);
      list_recorded.push_back(runs);
      list_buffers.emplace_back();
      in_list = true;
      step.body = read_program(s.require("body", "a list of launches"), s.key_path("body"),
                               depth + 1, runs);
      in_list = false;
      if (step.body.empty())
        s.fail("body", "a command list needs at least one launch");
      s.finish();
      break;
    }
    case Step::Kind::Submit: {
      cfg::Section s(&e.value, key, nullptr);
      step.list = name_ref(s, "list", lists, "the name of a command list recorded above");
      if (runs && !list_recorded[step.list])
        throw InputError(s.loc("list"), s.key_path("list"),
                         "command list '" + tb.command_lists[step.list] +
                             "' is recorded only inside a repeat that never runs");
      for (const uint32_t b : list_buffers[step.list])
        if (const auto it = freed.find(b); it != freed.end())
          throw InputError(s.loc("list"), s.key_path("list"),
                           "command list '" + tb.command_lists[step.list] +
                               "' launches with buffer '" + tb.buffers[b].name +
                               "', which was freed at " + it->second.str());
      step.stream = stream_ref(s, "stream");
      step.async = s.boolean("async", false);
      s.finish();
      break;
    }
    case Step::Kind::Free: {
      const std::string name = scalar_of(e.value, key, "a buffer name");
      step.dst = buffers.find(name, e.value.loc, key);
      release_once(freed, step.dst, "buffer '" + name + "'", "freed", "freeing", e.value.loc, key,
                   runs);
      break;
    }
    case Step::Kind::Destroy: {
      const std::string name = scalar_of(e.value, key, "a stream name");
      if (name == "default" || name == "device")
        throw InputError(e.value.loc, key,
                         name == "default"
                             ? "the default stream cannot be destroyed"
                             : "'device' is not a stream; destroy takes a stream name");
      step.stream = streams.find(name, e.value.loc, key) + 1;
      release_once(destroyed, step.stream, "stream '" + name + "'", "destroyed", "destroying",
                   e.value.loc, key, runs);
      break;
    }
    }
    return step;
  }

  // An event named under `key` (elapsed's start and end).
  uint32_t named_event(cfg::Section& s, const std::string& key) {
    const cfg::Node& n = s.require(key, "an event name");
    s.accept(key);
    return events.find(scalar_of(n, s.key_path(key), "an event name"), n.loc, s.key_path(key));
  }
};

} // namespace

bool looks_like_testbench(const cfg::Node& root) {
  return root.is_map() && (root.find("program") || root.find("kernels"));
}

Testbench read_testbench(const cfg::Node& root, const std::string& file) {
  Testbench tb;
  tb.file = file;
  if (!root.is_map())
    throw InputError(root.loc.line ? root.loc : SourceLoc{file, 1, 1}, "",
                     "expected a testbench: a map with kernels, buffers, streams and program");
  Reader r(tb);
  cfg::Section top(&root, "", nullptr);
  tb.name = top.string("name", "unnamed");

  cfg::Section kernels = top.section("kernels");
  if (kernels.node())
    for (const auto& e : kernels.node()->entries) {
      kernels.accept(e.key);
      r.kernels.add(e.key, e.key_loc, kernels.key_path(e.key));
      cfg::Section ks = kernels.section(e.key);
      if (!ks.node())
        ks.fail("op", "kernel '" + e.key + "' needs at least an op");
      tb.kernels.push_back({ks.has("fuse") ? read_fused_kernel(ks, e.key, r.kernels, tb.kernels)
                                           : read_kernel(ks, e.key),
                            e.key_loc});
    }

  cfg::Section buffers = top.section("buffers");
  if (buffers.node())
    for (const auto& e : buffers.node()->entries) {
      buffers.accept(e.key);
      r.buffers.add(e.key, e.key_loc, buffers.key_path(e.key));
      cfg::Section bs = buffers.section(e.key);
      Testbench::NamedBuffer b;
      b.name = e.key;
      b.loc = e.key_loc;
      bs.require("size", "a size such as 1MiB");
      b.bytes = bs.bytes("size", 0, 1, 64ull << 30);
      const std::string memory = bs.choice("memory", "ddr", {"host", "ddr", "sram"});
      b.memory = memory == "host"   ? MemoryKind::Host
                 : memory == "sram" ? MemoryKind::Sram
                                    : MemoryKind::Ddr;
      bs.finish();
      tb.buffers.push_back(b);
    }

  top.accept("streams");
  if (const cfg::Node* streams = top.value("streams")) {
    auto add = [&](const std::string& name, const SourceLoc& loc, int priority) {
      if (name == "default" || name == "device")
        throw InputError(loc, "streams", "'" + name + "' is reserved");
      r.streams.add(name, loc, "streams." + name);
      tb.streams.push_back({name, priority});
    };
    if (streams->is_seq()) {
      for (const auto& s : streams->items)
        add(scalar_of(s, "streams", "a stream name"), s.loc, 0);
    } else if (streams->is_map()) {
      for (const auto& e : streams->entries) {
        cfg::Section ss(&e.value, "streams." + e.key, nullptr);
        const int priority = static_cast<int>(ss.integer("priority", 0, -100, 100));
        ss.finish();
        add(e.key, e.key_loc, priority);
      }
    } else if (!streams->is_null()) {
      top.fail("streams", "expected a list of stream names or a map of streams");
    }
  }

  const cfg::Node& program = top.require("program", "a list of steps");
  tb.program = r.read_program(program, "program", 0, true);
  top.finish();

  for (const auto& w : r.waits)
    if (!r.recorded[w.event])
      throw InputError(w.loc, w.key, "event '" + tb.events[w.event] + "' is " + w.why);
  return tb;
}

namespace {

Testbench load_root(cfg::Node root, const std::string& path,
                    const std::vector<std::string>& overrides) {
  if (root.is_null())
    throw InputError({path, 1, 1}, "", "empty testbench; expected kernels, buffers and a program");
  for (const auto& o : overrides)
    cfg::apply_override(root, o, "--tb-set");
  Testbench tb = read_testbench(root, path);
  tb.document = cfg::to_json(root);
  return tb;
}

} // namespace

Testbench load_testbench(const std::string& path, const std::vector<std::string>& overrides) {
  return load_root(cfg::parse_yaml_file(path), path, overrides);
}

Testbench load_testbench_text(const std::string& text, const std::string& origin,
                              const std::vector<std::string>& overrides) {
  return load_root(cfg::parse_yaml_string(text, origin), origin, overrides);
}

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
        {static_cast<double>(x.macs) * cpo /
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
    switch (s.kind) {
    case Step::Kind::Launch:
      if (recording)
        recording->push_back({s.kernel, times});
      else
        counts[{s.stream, s.kernel}] += times;
      break;
    case Step::Kind::Repeat:
      count_launches(tb, s.body, times * static_cast<double>(s.count), lists, counts, recording);
      break;
    case Step::Kind::CommandList:
      lists[s.list].clear();
      count_launches(tb, s.body, 1, lists, counts, &lists[s.list]);
      break;
    case Step::Kind::Submit:
      for (const auto& [kernel, n] : lists[s.list])
        counts[{s.stream, kernel}] += n * times;
      break;
    default:
      break;
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
      throw InputError(k.loc, "kernels." + k.desc.name + ".units",
                       "asks for " + std::to_string(k.desc.units) + " units but '" + config.name +
                           "' has " + std::to_string(config.compute.units));
  uint64_t sram = 0;
  for (const auto& b : tb.buffers)
    if (b.memory == MemoryKind::Sram)
      sram += align_up(b.bytes, Runtime::kBufferAlign);
  if (sram > config.sram.buffer_bytes)
    for (const auto& b : tb.buffers)
      if (b.memory == MemoryKind::Sram)
        throw InputError(b.loc, "buffers." + b.name,
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
        throw InputError(b.loc, "buffers." + b.name,
                         "DDR buffers and kernel binaries need at least " +
                             units::format_bytes(ddr) + " but ddr.size is " +
                             units::format_bytes(config.ddr.size_bytes));
    }
  check_sim_time_bound(tb, config);
}

void run_testbench(Runtime& rt, const Testbench& tb) {
  std::vector<Kernel> kernels;
  for (const auto& k : tb.kernels)
    kernels.push_back(rt.load_kernel(k.desc));
  std::vector<Buffer> buffers;
  for (const auto& b : tb.buffers)
    buffers.push_back(rt.malloc(b.bytes, b.memory, b.name));
  std::vector<bool> freed(buffers.size(), false);
  std::vector<Stream> streams{Stream{0}};
  for (const auto& s : tb.streams)
    streams.push_back(rt.stream_create(s.name, s.priority));
  std::vector<Event> events;
  for (const auto& e : tb.events)
    events.push_back(rt.event_create(e));
  std::vector<CommandList> lists(tb.command_lists.size());
  auto args_of = [&](const Step& s) {
    std::vector<Buffer> args;
    for (uint32_t a : s.args)
      args.push_back(buffers[a]);
    return args;
  };
  // A command list's body holds only launches and repeats (checked when reading).
  std::function<void(CommandList, const std::vector<Step>&)> record =
      [&](CommandList list, const std::vector<Step>& steps) {
        for (const Step& s : steps)
          if (s.kind == Step::Kind::Launch)
            rt.command_list_launch(list, kernels[s.kernel], args_of(s));
          else
            for (uint64_t i = 0; i < s.count; ++i)
              record(list, s.body);
      };

  std::function<void(const std::vector<Step>&)> run = [&](const std::vector<Step>& steps) {
    for (const Step& s : steps) {
      switch (s.kind) {
      case Step::Kind::Launch: {
        const std::vector<Buffer> args = args_of(s);
        if (s.async)
          rt.launch_async(kernels[s.kernel], args, streams[s.stream]);
        else
          rt.launch(kernels[s.kernel], args, streams[s.stream]);
        break;
      }
      case Step::Kind::Memcpy:
        if (s.async)
          rt.memcpy_async(buffers[s.dst], s.dst_offset, buffers[s.src], s.src_offset, s.bytes,
                          streams[s.stream]);
        else
          rt.memcpy(buffers[s.dst], s.dst_offset, buffers[s.src], s.src_offset, s.bytes);
        break;
      case Step::Kind::Free:
        rt.free(buffers[s.dst]);
        freed[s.dst] = true;
        break;
      case Step::Kind::Destroy:
        rt.stream_destroy(streams[s.stream]);
        break;
      case Step::Kind::Repeat:
        for (uint64_t i = 0; i < s.count; ++i)
          run(s.body);
        break;
      case Step::Kind::HostWork:
        rt.host_work(s.duration_ps);
        break;
      case Step::Kind::Record:
        rt.event_record(events[s.event], streams[s.stream]);
        break;
      case Step::Kind::Wait:
        rt.stream_wait_event(streams[s.stream], events[s.event]);
        break;
      case Step::Kind::Query:
        rt.report_query(s.label, events[s.event]);
        break;
      case Step::Kind::Elapsed:
        rt.report_elapsed(s.label, events[s.event], events[s.end_event]);
        break;
      case Step::Kind::Sync:
        if (s.sync_event)
          rt.event_synchronize(events[s.event]);
        else if (s.sync_device)
          rt.device_synchronize();
        else
          rt.stream_synchronize(streams[s.stream]);
        break;
      case Step::Kind::CommandList:
        lists[s.list] = rt.command_list_create();
        record(lists[s.list], s.body);
        break;
      case Step::Kind::Submit:
        rt.command_list_submit(lists[s.list], streams[s.stream], s.async);
        break;
      }
    }
  };
  run(tb.program);
  // Buffers the program did not free are freed as it ends, so they are no leak.
  for (size_t i = 0; i < buffers.size(); ++i)
    if (!freed[i])
      rt.free(buffers[i]);
}

} // namespace npu
