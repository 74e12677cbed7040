#include "common/file_identity.h"
#include "config/section.h"
#include "config/units.h"
#include "models/compute/op.h"
#include "models/scheduler/command.h"
#include "testbench/testbench.h"

#include <algorithm>
#include <cctype>
#include <iterator>
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

constexpr int64_t kMaxDim = 1 << 24;

// A required positive count under `key`, at most `max`.
uint64_t read_count(cfg::Section& s, const char* key, int64_t max, const char* expected) {
  s.require(key, expected);
  return static_cast<uint64_t>(s.integer(key, 1, 1, max));
}

uint64_t read_dim(cfg::Section& s, const char* key) {
  return read_count(s, key, kMaxDim, "a positive whole number");
}

// A sliding window over an image (convolutions, pooling). Keys as in the chapter's
// launch_conv_kernel: input n x c x h x w, k filters r x s.
// `filters` (conv2d only) is read between the input and the window sizes.
void read_window(cfg::Section& s, WindowOp& op, uint64_t* filters, bool padded) {
  op.batch = read_dim(s, "n");
  op.channels = read_dim(s, "c");
  op.height = read_dim(s, "h");
  op.width = read_dim(s, "w");
  if (filters)
    *filters = read_dim(s, "k");
  op.r = read_dim(s, "r");
  op.s = read_dim(s, "s");
  op.stride = static_cast<uint64_t>(s.integer("stride", 1, 1, 64));
  if (padded)
    op.pad = static_cast<uint64_t>(s.integer("pad", static_cast<int64_t>(op.r / 2), 0, 64));
  // Existing scripts match "filter larger than the padded input".
  const std::string what = std::string(filters || padded ? "filter" : "window") +
                           " larger than the " + (padded ? "padded " : "") + "input";
  if (out_height(op) == 0)
    s.fail("r", what + " (" + std::to_string(op.r) + " rows, input height " +
                    std::to_string(op.height + 2 * op.pad) + ")");
  if (out_width(op) == 0)
    s.fail("s", what + " (" + std::to_string(op.s) + " columns, input width " +
                    std::to_string(op.width + 2 * op.pad) + ")");
}

// The sizes of an op of kind `op.kind()`, under the keys of that kind.
void read_op_sizes(cfg::Section& s, OpSpec& op) {
  switch (op.kind()) {
  case OpKind::Cycles: {
    auto& c = op.as<CyclesOp>();
    s.require("cycles", "a number of cycles");
    c.cycles = static_cast<uint64_t>(s.integer("cycles", 0, 0, int64_t{1} << 48));
    c.iterations = static_cast<uint64_t>(s.integer("iterations", 1, 1, int64_t{1} << 20));
    break;
  }
  case OpKind::Matmul: {
    auto& mm = op.as<MatmulOp>();
    mm.m = read_dim(s, "m");
    mm.n = read_dim(s, "n");
    mm.k = read_dim(s, "k");
    // Batched matmul: independent products, one B per batch.
    mm.batch = static_cast<uint64_t>(s.integer("batch", 1, 1, int64_t{1} << 24));
    break;
  }
  case OpKind::Conv2d: {
    auto& c = op.as<Conv2dOp>();
    read_window(s, c, &c.filters, true);
    break;
  }
  case OpKind::DepthwiseConv2d:
    read_window(s, op.as<DepthwiseConv2dOp>(), nullptr, true);
    break;
  case OpKind::Pool:
    read_window(s, op.as<PoolOp>(), nullptr, false);
    break;
  case OpKind::FullyConnected: {
    auto& fc = op.as<FullyConnectedOp>();
    fc.batch = read_dim(s, "n");
    fc.in_features = read_dim(s, "in");
    fc.out_features = read_dim(s, "out");
    break;
  }
  case OpKind::Elementwise: {
    auto& e = op.as<ElementwiseOp>();
    e.elements = read_count(s, "elements", int64_t{1} << 40, "a positive number of elements");
    e.inputs = static_cast<uint32_t>(s.integer("inputs", 1, 1, 2));
    break;
  }
  case OpKind::Softmax:
  case OpKind::Layernorm: {
    RowwiseOp& rw = op.kind() == OpKind::Softmax ? static_cast<RowwiseOp&>(op.as<SoftmaxOp>())
                                                 : op.as<LayernormOp>();
    rw.rows = read_dim(s, "rows");
    rw.cols = read_dim(s, "cols");
    rw.batch = static_cast<uint64_t>(s.integer("batch", 1, 1, int64_t{1} << 24));
    rw.over_rows = s.choice("axis", "cols", {"cols", "rows"}) == "rows";
    break;
  }
  }
}

KernelDesc read_kernel(cfg::Section& s, const std::string& name) {
  KernelDesc d;
  d.name = name;
  s.require("op", "an op such as matmul");
  const std::string op = s.choice("op", "cycles", op_kind_names());
  d.op.shape = op_shape(op_kind_from_name(op));
  d.op.dtype = dtype_from_name(s.choice("dtype", "int8", dtype_names()));
  d.binary_bytes = s.bytes("binary", 4096, 64, 1ull << 30);
  d.hot_loop_bytes = s.bytes("hot_loop", d.binary_bytes, 64, d.binary_bytes);
  d.units = read_units(s, KernelDesc::kAllUnits);
  read_op_sizes(s, d.op);
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

  // An event named under `key` (elapsed's start and end).
  uint32_t named_event(cfg::Section& s, const std::string& key) {
    const cfg::Node& n = s.require(key, "an event name");
    s.accept(key);
    return events.find(scalar_of(n, s.key_path(key), "an event name"), n.loc, s.key_path(key));
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

  Step read_step(const cfg::Node& node, const std::string& path, int depth, bool runs);

  /// What a step reader gets: the step's entry (`kind: value`), the key path of its value,
  /// how deep in repeats it is, and whether it runs (false inside a repeat that never
  /// executes: its records do not count).
  struct StepInput {
    const cfg::MapEntry& entry;
    const std::string& key;
    int depth;
    bool runs;
    const cfg::Node& value() const { return entry.value; }
    cfg::Section section() const { return cfg::Section(&entry.value, key, nullptr); }
  };

  // One reader per kind of step, in the order of kStepKinds.

  Step::Action read_launch(const StepInput& in) {
    cfg::Section s = in.section();
    step::Launch launch;
    launch.kernel = name_ref(s, "kernel", kernels, "a kernel name");
    if (in_list)
      for (const char* own : {"stream", "async"})
        if (s.has(own))
          s.fail(own, "a launch in a command list takes its stream and async from the submit");
    launch.stream = stream_ref(s, "stream");
    launch.async = s.boolean("async", false);
    s.accept("args");
    if (const cfg::Node* args = s.value("args"))
      launch.args = launch_args(s, *args);
    s.finish();
    return launch;
  }

  std::vector<uint32_t> launch_args(cfg::Section& s, const cfg::Node& args) {
    if (!args.is_seq())
      s.fail("args", "expected a list of buffer names");
    // The limit of the command ring's argument block, which the runtime enforces.
    if (args.items.size() > CommandLayout::kMaxArgs)
      s.fail("args", std::to_string(args.items.size()) + " arguments; a launch takes at most " +
                         std::to_string(CommandLayout::kMaxArgs) + " (its " +
                         units::format_bytes(CommandLayout::kArgBytes) +
                         " argument block in the command ring)");
    std::vector<uint32_t> indices;
    for (const auto& a : args.items)
      indices.push_back(buffer_ref(a, s.key_path("args")));
    return indices;
  }

  Step::Action read_memcpy(const StepInput& in) {
    cfg::Section s = in.section();
    step::Memcpy copy;
    copy.dst = buffer_ref(s.require("dst", "a buffer name"), s.key_path("dst"));
    copy.src = buffer_ref(s.require("src", "a buffer name"), s.key_path("src"));
    const uint64_t dst_bytes = tb.buffers[copy.dst].bytes;
    const uint64_t src_bytes = tb.buffers[copy.src].bytes;
    copy.dst_offset = s.bytes("dst_offset", 0, 0, dst_bytes - 1);
    copy.src_offset = s.bytes("src_offset", 0, 0, src_bytes - 1);
    const uint64_t limit = std::min(dst_bytes - copy.dst_offset, src_bytes - copy.src_offset);
    copy.bytes = s.bytes("bytes", limit, 1);
    const auto from = [](uint64_t offset) {
      return offset ? " from offset " + units::format_bytes(offset) : std::string();
    };
    if (copy.bytes > limit)
      s.fail("bytes", units::format_bytes(copy.bytes) + " overruns a buffer (source '" +
                          tb.buffers[copy.src].name + "' " + units::format_bytes(src_bytes) +
                          from(copy.src_offset) + ", destination '" + tb.buffers[copy.dst].name +
                          "' " + units::format_bytes(dst_bytes) + from(copy.dst_offset) + ")");
    copy.stream = stream_ref(s, "stream");
    copy.async = s.boolean("async", false);
    s.finish();
    return copy;
  }

  Step::Action read_repeat(const StepInput& in) {
    cfg::Section s = in.section();
    step::Repeat repeat;
    s.require("count", "a whole number of iterations");
    repeat.count = static_cast<uint64_t>(s.integer("count", 1, 0, kMaxRepeat));
    const bool again = in.runs && repeat.count > 1;
    repeating += again ? 1 : 0;
    repeat.body = read_program(s.require("body", "a list of steps"), s.key_path("body"),
                               in.depth + 1, in.runs && repeat.count > 0);
    repeating -= again ? 1 : 0;
    // An empty body would spin without simulated time or memory to stop it.
    if (repeat.body.empty())
      s.fail("body", "a repeat needs at least one step");
    s.finish();
    return repeat;
  }

  Step::Action read_host_work(const StepInput& in) {
    std::string err;
    const auto d =
        units::parse_time_ps(scalar_of(in.value(), in.key, "a duration such as 50us"), &err);
    if (!d)
      throw InputError(in.value().loc, in.key, err);
    return step::HostWork{*d};
  }

  // record and wait: {event, stream}.
  template <class T> T read_event_on_stream(cfg::Section& s) {
    T result;
    result.event = event_ref(s);
    result.stream = stream_ref(s, "stream");
    s.finish();
    return result;
  }

  Step::Action read_record(const StepInput& in) {
    cfg::Section s = in.section();
    const auto record = read_event_on_stream<step::Record>(s);
    recorded[record.event] = recorded[record.event] || in.runs;
    return record;
  }

  Step::Action read_wait(const StepInput& in) {
    cfg::Section s = in.section();
    const auto wait = read_event_on_stream<step::Wait>(s);
    waits.push_back({wait.event, s.loc("event"), s.key_path("event"),
                     "waited for but never recorded: the wait could never finish"});
    return wait;
  }

  Step::Action read_sync(const StepInput& in) {
    step::Sync sync;
    if (in.value().is_map()) { // sync: {event: e}
      cfg::Section s = in.section();
      sync.event = event_ref(s);
      sync.target = step::Sync::Target::Event;
      s.finish();
      waits.push_back({sync.event, s.loc("event"), s.key_path("event"),
                       "synchronised on but never recorded: the sync would return at once"});
      return sync;
    }
    const std::string target =
        scalar_of(in.value(), in.key, "a stream name, 'device' or {event: name}");
    if (target == "device") {
      sync.target = step::Sync::Target::Device;
    } else if (target != "default") {
      sync.stream = streams.find(target, in.value().loc, in.key) + 1;
      check_not_destroyed(sync.stream, in.value().loc, in.key);
    }
    return sync;
  }

  Step::Action read_query(const StepInput& in) {
    cfg::Section s = in.section();
    step::Query query;
    query.event = event_ref(s);
    query.label = s.string("label", "query " + tb.events[query.event]);
    s.finish();
    return query;
  }

  Step::Action read_elapsed(const StepInput& in) {
    cfg::Section s = in.section();
    step::Elapsed elapsed;
    elapsed.start = named_event(s, "start");
    elapsed.end = named_event(s, "end");
    elapsed.label = s.string("label", tb.events[elapsed.start] + " -> " + tb.events[elapsed.end]);
    s.finish();
    for (const char* k : {"start", "end"})
      waits.push_back({k[0] == 's' ? elapsed.start : elapsed.end, s.loc(k), s.key_path(k),
                       "timed but never recorded: it has no time"});
    return elapsed;
  }

  Step::Action read_command_list(const StepInput& in) {
    cfg::Section s = in.section();
    step::CommandList list;
    const cfg::Node& n = s.require("name", "a command list name");
    const std::string name = scalar_of(n, s.key_path("name"), "a command list name");
    s.accept("name");
    list.list = lists.add(name, n.loc, s.key_path("name"));
    tb.command_lists.push_back(name);
    list_recorded.push_back(in.runs);
    list_buffers.emplace_back();
    in_list = true;
    list.body = read_program(s.require("body", "a list of launches"), s.key_path("body"),
                             in.depth + 1, in.runs);
    in_list = false;
    if (list.body.empty())
      s.fail("body", "a command list needs at least one launch");
    s.finish();
    return list;
  }

  Step::Action read_submit(const StepInput& in) {
    cfg::Section s = in.section();
    step::Submit submit;
    submit.list = name_ref(s, "list", lists, "the name of a command list recorded above");
    if (in.runs && !list_recorded[submit.list])
      throw InputError(s.loc("list"), s.key_path("list"),
                       "command list '" + tb.command_lists[submit.list] +
                           "' is recorded only inside a repeat that never runs");
    for (const uint32_t b : list_buffers[submit.list])
      if (const auto it = freed.find(b); it != freed.end())
        throw InputError(s.loc("list"), s.key_path("list"),
                         "command list '" + tb.command_lists[submit.list] +
                             "' launches with buffer '" + tb.buffers[b].name +
                             "', which was freed at " + it->second.str());
    submit.stream = stream_ref(s, "stream");
    submit.async = s.boolean("async", false);
    s.finish();
    return submit;
  }

  Step::Action read_free(const StepInput& in) {
    const std::string name = scalar_of(in.value(), in.key, "a buffer name");
    const uint32_t buffer = buffers.find(name, in.value().loc, in.key);
    release_once(freed, buffer, "buffer '" + name + "'", "freed", "freeing", in.value().loc, in.key,
                 in.runs);
    return step::Free{buffer};
  }

  Step::Action read_destroy(const StepInput& in) {
    const std::string name = scalar_of(in.value(), in.key, "a stream name");
    if (name == "default" || name == "device")
      throw InputError(in.value().loc, in.key,
                       name == "default" ? "the default stream cannot be destroyed"
                                         : "'device' is not a stream; destroy takes a stream name");
    const uint32_t stream = streams.find(name, in.value().loc, in.key) + 1;
    release_once(destroyed, stream, "stream '" + name + "'", "destroyed", "destroying",
                 in.value().loc, in.key, in.runs);
    return step::Destroy{stream};
  }
};

// The kinds of step: the key that names each in a testbench, its reader, and whether a
// command list may record it. Messages and lookups all derive from this one table.
struct StepKind {
  const char* name;
  Step::Action (Reader::*read)(const Reader::StepInput&);
  bool in_command_list;
};
const StepKind kStepKinds[] = {
    {"launch", &Reader::read_launch, true},    {"memcpy", &Reader::read_memcpy, false},
    {"repeat", &Reader::read_repeat, true},    {"host_work", &Reader::read_host_work, false},
    {"record", &Reader::read_record, false},   {"wait", &Reader::read_wait, false},
    {"sync", &Reader::read_sync, false},       {"query", &Reader::read_query, false},
    {"elapsed", &Reader::read_elapsed, false}, {"command_list", &Reader::read_command_list, false},
    {"submit", &Reader::read_submit, false},   {"free", &Reader::read_free, false},
    {"destroy", &Reader::read_destroy, false},
};

const std::vector<std::string>& step_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const StepKind& k : kStepKinds)
      v.emplace_back(k.name);
    return v;
  }();
  return names;
}

// "launch, memcpy, ..." with `last` ("," or " or") before the last name.
std::string list_step_names(const char* last) {
  const std::vector<std::string>& names = step_names();
  std::string text;
  for (size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "" : i + 1 == names.size() ? std::string(last) + " " : ", ") + names[i];
  return text;
}

Step Reader::read_step(const cfg::Node& node, const std::string& path, int depth, bool runs) {
  if (!node.is_map() || node.entries.size() != 1)
    throw InputError(node.loc, path,
                     "expected one step such as {launch: {...}}; steps are " +
                         list_step_names(","));
  const cfg::MapEntry& e = node.entries.front();
  const std::string key = path + "." + e.key;
  const auto kind = std::find_if(std::begin(kStepKinds), std::end(kStepKinds),
                                 [&](const StepKind& k) { return e.key == k.name; });
  if (kind == std::end(kStepKinds)) {
    const std::string hint = did_you_mean(e.key, step_names());
    throw InputError(e.key_loc, key,
                     "unknown step '" + e.key + "'" +
                         (hint.empty() ? "; expected " + list_step_names(" or")
                                       : "; did you mean '" + hint + "'?"));
  }
  if (in_list && !kind->in_command_list)
    throw InputError(e.key_loc, key,
                     "a command list records launches only (and repeats of them), not '" + e.key +
                         "'");
  Step step;
  step.loc = e.key_loc;
  step.action = (this->*kind->read)(StepInput{e, key, depth, runs});
  return step;
}

// The named entries of the map under `key` (kernels, buffers): each name is declared in
// `names`, then `read` reads its entry (the MapEntry and its Section).
template <class Read>
void read_declarations(cfg::Section& top, const char* key, NameTable& names, Read read) {
  cfg::Section map = top.section(key);
  if (!map.node())
    return;
  for (const auto& e : map.node()->entries) {
    map.accept(e.key);
    names.add(e.key, e.key_loc, map.key_path(e.key));
    cfg::Section s = map.section(e.key);
    read(e, s);
  }
}

void read_kernels(cfg::Section& top, Reader& r) {
  read_declarations(top, "kernels", r.kernels, [&](const cfg::MapEntry& e, cfg::Section& ks) {
    if (!ks.node())
      ks.fail("op", "kernel '" + e.key + "' needs at least an op");
    const cfg::Node* units = ks.node()->find("units");
    r.tb.kernels.push_back({ks.has("fuse") ? read_fused_kernel(ks, e.key, r.kernels, r.tb.kernels)
                                           : read_kernel(ks, e.key),
                            e.key_loc, units ? units->loc : e.key_loc});
  });
}

void read_buffers(cfg::Section& top, Reader& r) {
  read_declarations(top, "buffers", r.buffers, [&](const cfg::MapEntry& e, cfg::Section& bs) {
    Testbench::NamedBuffer b;
    b.name = e.key;
    b.loc = e.key_loc;
    b.size_loc = bs.require("size", "a size such as 1MiB").loc;
    b.bytes = bs.bytes("size", 0, 1, 64ull << 30);
    const std::string memory = bs.choice("memory", "ddr", {"host", "ddr", "sram"});
    b.memory = memory == "host"   ? MemoryKind::Host
               : memory == "sram" ? MemoryKind::Sram
                                  : MemoryKind::Ddr;
    bs.finish();
    r.tb.buffers.push_back(b);
  });
}

// `streams`: a list of names, or a map of name -> {priority}.
void read_streams(cfg::Section& top, Reader& r) {
  top.accept("streams");
  const cfg::Node* streams = top.value("streams");
  if (!streams)
    return;
  auto add = [&](const std::string& name, const SourceLoc& loc, int priority) {
    if (name == "default" || name == "device")
      throw InputError(loc, "streams", "'" + name + "' is reserved");
    r.streams.add(name, loc, "streams." + name);
    r.tb.streams.push_back({name, priority});
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
  read_kernels(top, r);
  read_buffers(top, r);
  read_streams(top, r);
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
  cfg::Node root = cfg::parse_yaml_file(path);
  note_input(path, "the testbench");
  return load_root(std::move(root), path, overrides);
}

Testbench load_testbench_text(const std::string& text, const std::string& origin,
                              const std::vector<std::string>& overrides) {
  return load_root(cfg::parse_yaml_string(text, origin), origin, overrides);
}

} // namespace npu
