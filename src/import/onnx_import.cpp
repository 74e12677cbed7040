#include "import/onnx_import.h"

#include "common/error.h"
#include "common/escape.h"
#include "import/import_plan.h"
#include "import/model_file.h"
#include "import/onnx_graph.h"
#include "import/onnx_layers.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

namespace npu::onnx_import {
namespace {

// A kernel with at least this many MACs or vector operations spans every unit (its
// `units` left at `all`), as scripts/gen_workloads.py splits large layers.
constexpr uint64_t kSplitOps = uint64_t{1} << 18;
// What the testbench loader accepts in one launch: ops of a fused kernel, buffer arguments
// (a launch's argument block), and bytes of one buffer.
constexpr size_t kMaxFusedOps = 4096;
constexpr size_t kMaxLaunchArgs = 63;
constexpr uint64_t kMaxBufferBytes = uint64_t{64} << 30;

uint64_t dtype_bytes(const std::string& dtype) {
  return dtype == "int8" ? 1 : dtype == "fp32" ? 4 : 2;
}

std::string giga(uint64_t macs) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f G", static_cast<double>(macs) / 1e9);
  return text;
}

class Importer {
public:
  Importer(const OnnxGraph& g, const ImportOptions& o) : m_g(g), m_o(o) {}
  ImportResult run();

private:
  /// `base` made a name, unique among `taken` (kernels, buffers and events apart).
  /// Kernels keep the model's names (escaped; the testbench quotes them), buffers and
  /// events are made plain names.
  static std::string unique(const std::string& base, std::set<std::string>& taken,
                            bool sanitize = true);
  uint64_t bytes_of(const std::string& tensor) const {
    const uint64_t bytes = elements_of(m_g, tensor) * dtype_bytes(m_o.dtype);
    if (bytes > kMaxBufferBytes)
      m_g.fail("tensor '" + escape(tensor) + "' takes " + std::to_string(bytes >> 30) + " GiB in " +
               m_o.dtype + ", above the 64 GiB a testbench buffer may hold");
    return bytes;
  }
  std::string buffer_for(const std::string& tensor);
  std::string weights_for(const std::string& kernel, uint64_t elements);
  std::string stream_for(const onnx::NodeProto& n);
  void depend(const std::string& tensor, const std::string& stream);
  void visit(int node);
  std::string kernel_name(int node) const;
  PlanKernel add_kernel(const std::string& base, const LayerOp& op);
  void launch(int node, const std::vector<LayerOp>& parts);
  bool fuse(const onnx::NodeProto& n, const std::string& part, const std::string& weights);
  void generic(int node);
  void copy(int node);
  void memcpy(const std::string& dst, uint64_t dst_offset, const std::string& src,
              uint64_t src_offset, uint64_t bytes, const std::string& stream);
  std::vector<std::string> data_inputs(const onnx::NodeProto& n) const;
  void inputs_and_outputs(bool outputs);

  const OnnxGraph& m_g;
  const ImportOptions& m_o;
  Plan m_plan;
  ImportResult m_result;
  std::set<std::string> m_kernel_names, m_buffer_names, m_event_names;
  std::map<std::string, std::string> m_buffer;  ///< tensor -> buffer holding it
  std::map<std::string, std::string> m_stream;  ///< tensor -> stream that writes it
  std::map<std::string, size_t> m_launch;       ///< tensor -> step of the launch writing it
  std::map<std::string, size_t> m_written;      ///< tensor -> step that writes it
  std::set<std::string> m_continued;            ///< tensors whose stream a consumer took
  std::set<std::string> m_conv_out;             ///< outputs of Conv launches
  std::map<std::string, std::string> m_event;   ///< tensor -> event recorded after it
  std::map<std::string, size_t> m_fused;        ///< fused kernels -> their ops
  std::map<std::string, size_t> m_generic;      ///< op types run as generic vector passes
  std::map<std::string, size_t> m_kernel_index; ///< kernel -> its place in m_plan.kernels
  size_t m_next_stream = 0;
};

std::string Importer::unique(const std::string& base, std::set<std::string>& taken, bool sanitize) {
  const std::string stem = sanitize ? sanitize_name(base) : base;
  std::string name = stem;
  for (int i = 2; taken.count(name); ++i)
    name = stem + "_" + std::to_string(i);
  taken.insert(name);
  return name;
}

std::string Importer::buffer_for(const std::string& tensor) {
  if (const auto it = m_buffer.find(tensor); it != m_buffer.end())
    return it->second;
  const std::string name = unique(tensor, m_buffer_names);
  m_plan.buffers.push_back({name, bytes_of(tensor), false});
  return m_buffer[tensor] = name;
}

std::string Importer::weights_for(const std::string& kernel, uint64_t elements) {
  const std::string name = unique("w_" + kernel, m_buffer_names);
  m_plan.buffers.push_back({name, elements * dtype_bytes(m_o.dtype), false});
  return name;
}

std::vector<std::string> Importer::data_inputs(const onnx::NodeProto& n) const {
  std::vector<std::string> in;
  for (const auto& t : n.input())
    if (!t.empty() && m_g.is_data(t))
      in.push_back(t);
  return in;
}

// The stream of a node: its first input's, unless another consumer continued that
// branch already; then the next stream. Joins wait on an event.
std::string Importer::stream_for(const onnx::NodeProto& n) {
  const auto in = data_inputs(n);
  std::string stream = m_plan.streams[0];
  if (m_plan.streams.size() > 1) {
    if (!in.empty() && !m_continued.count(in[0]) && m_stream.count(in[0]))
      stream = m_stream[in[0]];
    else
      stream = m_plan.streams[m_next_stream++ % m_plan.streams.size()];
    if (!in.empty())
      m_continued.insert(in[0]);
  }
  for (const auto& t : in)
    depend(t, stream);
  return stream;
}

void Importer::depend(const std::string& tensor, const std::string& stream) {
  const auto it = m_stream.find(tensor);
  if (it == m_stream.end() || it->second == stream)
    return;
  auto event = m_event.find(tensor);
  if (event == m_event.end()) {
    event = m_event.emplace(tensor, unique("e_" + tensor, m_event_names)).first;
    PlanStep record{PlanStep::Kind::Record, {}, {}, {}, {}, 0, 0, 0, it->second, event->second};
    m_plan.steps.push_back(record);
  }
  m_plan.steps.push_back({PlanStep::Kind::Wait, {}, {}, {}, {}, 0, 0, 0, stream, event->second});
}

void Importer::memcpy(const std::string& dst, uint64_t dst_offset, const std::string& src,
                      uint64_t src_offset, uint64_t bytes, const std::string& stream) {
  m_plan.steps.push_back(
      {PlanStep::Kind::Memcpy, {}, {}, dst, src, dst_offset, src_offset, bytes, stream, {}});
}

void Importer::visit(int node) {
  const auto& n = m_g.graph().node(node);
  const bool writes_data = std::any_of(n.output().begin(), n.output().end(),
                                       [&](const std::string& t) { return m_g.is_data(t); });
  if (!writes_data)
    return; // shape arithmetic and constants fold away
  const NodeRole role = node_role(n.op_type());
  const std::string in = data_inputs(n).empty() ? std::string() : data_inputs(n)[0];
  const bool fold_bn =
      n.op_type() == "BatchNormalization" && m_conv_out.count(in) && m_g.consumers(in) == 1;
  if (n.output(0).empty())
    m_g.fail(m_g.describe(node) + ": its first output has no name");
  if ((role == NodeRole::View || fold_bn) && !in.empty()) {
    // The output is the input's bytes seen differently (a BatchNorm folds into its conv).
    const std::string& out = n.output(0);
    m_buffer[out] = buffer_for(in);
    if (m_stream.count(in))
      m_stream[out] = m_stream[in];
    if (m_launch.count(in))
      m_launch[out] = m_launch[in];
    if (m_written.count(in))
      m_written[out] = m_written[in];
    if (fold_bn)
      m_conv_out.insert(out);
    return;
  }
  if (role == NodeRole::Control && n.op_type() == "Scan")
    m_g.fail(m_g.describe(node) + ": npusim does not follow Scan; it follows an If whose "
                                  "condition and a Loop whose trip count fold to constants");
  if (role == NodeRole::Control && n.op_type() == "Loop") {
    const bool trips_known = n.input_size() == 0 || n.input(0).empty() || m_g.value(n.input(0));
    m_g.fail(m_g.describe(node) + ": its " + (trips_known ? "condition" : "trip count") +
             " depends on the model's input data, so npusim cannot tell how many iterations it "
             "runs (it follows a Loop only when its trip count and condition fold to constants)");
  }
  if (role == NodeRole::Control)
    m_g.fail(m_g.describe(node) + ": its condition depends on the model's input data, so npusim "
                                  "cannot tell which work it does (it follows an If or a Loop "
                                  "only when that folds to a constant)");
  if (role == NodeRole::Compute)
    return launch(node, map_compute(m_g, node));
  if (role == NodeRole::Generic)
    return generic(node);
  copy(node);
}

// An op npusim has no mapping for: a vector pass over its elements (a warning lists such
// ops), a copy with --unsupported=memcpy, an error with --unsupported=error.
void Importer::generic(int node) {
  const auto& n = m_g.graph().node(node);
  if (m_o.unsupported == Unsupported::Error)
    m_g.fail(m_g.describe(node) + ": op " + escape(n.op_type()) +
             " has no mapping to a testbench op (--unsupported=error); by default it runs as a "
             "vector pass over its elements");
  ++m_generic[escape(n.op_type())];
  for (const auto& out : n.output())
    if (!out.empty() && m_g.is_data(out))
      m_g.shape(out); // its shape must be known either way
  if (m_o.unsupported == Unsupported::Memcpy)
    return copy(node);
  launch(node, {map_generic(m_g, node)});
}

std::string Importer::kernel_name(int node) const {
  const auto& n = m_g.graph().node(node);
  return n.name().empty() ? escape(n.op_type()) + "_" + std::to_string(node + 1) : escape(n.name());
}

PlanKernel Importer::add_kernel(const std::string& base, const LayerOp& op) {
  PlanKernel k;
  k.name = unique(base, m_kernel_names, false);
  k.fields = op.fields;
  k.fields.emplace_back("dtype", m_o.dtype);
  if (std::max(op.macs, op.vector_ops) < kSplitOps)
    k.fields.emplace_back("units", "1");
  k.macs = op.macs;
  k.vector_ops = op.vector_ops;
  k.binary_bytes = op.binary_bytes;
  m_kernel_index[k.name] = m_plan.kernels.size();
  m_plan.kernels.push_back(k);
  m_result.macs += op.macs;
  return k;
}

// One launch of the node's kernel: its only op, or a fused kernel of its parts.
void Importer::launch(int node, const std::vector<LayerOp>& parts) {
  const auto& n = m_g.graph().node(node);
  const std::string base = kernel_name(node);
  std::vector<std::string> weights;
  std::string kernel;
  if (parts.size() == 1) {
    kernel = add_kernel(base, parts[0]).name;
  } else {
    PlanKernel group;
    for (size_t i = 0; i < parts.size(); ++i)
      group.fuse.push_back(add_kernel(base + "/" + std::to_string(i + 1), parts[i]).name);
    group.name = unique(base, m_kernel_names, false);
    m_fused[group.name] = parts.size();
    m_kernel_index[group.name] = m_plan.kernels.size();
    m_plan.kernels.push_back(group);
    kernel = group.name;
  }
  for (const auto& p : parts)
    if (p.weight_elements)
      weights.push_back(weights_for(kernel, p.weight_elements));
  if (m_o.fuse == Fuse::Elementwise && parts.size() == 1 && parts[0].elementwise &&
      fuse(n, kernel, weights.empty() ? "" : weights[0]))
    return;
  PlanStep step{PlanStep::Kind::Launch, kernel, {}, {}, {}, 0, 0, 0, stream_for(n), {}};
  for (const auto& t : data_inputs(n))
    step.args.push_back(buffer_for(t));
  step.args.insert(step.args.end(), weights.begin(), weights.end());
  step.args.push_back(buffer_for(n.output(0)));
  if (step.args.size() > kMaxLaunchArgs) // many inputs (a Concat-like op): the first ones
    step.args.erase(step.args.begin() + static_cast<long>(kMaxLaunchArgs - 1), step.args.end() - 1);
  // Every output the kernel writes (an LSTM's last states, TopK's indices) is ready when it
  // ends; the first is the one its launch stores.
  for (const auto& out : n.output())
    if (!out.empty() && m_g.is_data(out)) {
      buffer_for(out);
      m_stream[out] = step.stream;
      m_written[out] = m_plan.steps.size();
    }
  m_launch[n.output(0)] = m_plan.steps.size(); // what --fuse elementwise may join
  if (n.op_type() == "Conv")
    m_conv_out.insert(n.output(0));
  m_plan.steps.push_back(step);
  ++m_result.kernels;
}

// An elementwise node joins the launch that wrote its first input when nothing else reads
// that input: the launch runs a fused kernel and writes this node's output instead. A
// fused kernel stays within what a launch holds (ops, arguments).
bool Importer::fuse(const onnx::NodeProto& n, const std::string& part, const std::string& weights) {
  const auto in = data_inputs(n);
  if (in.empty() || !m_launch.count(in[0]) || m_g.consumers(in[0]) != 1)
    return false;
  const size_t at = m_launch[in[0]];
  PlanStep& step = m_plan.steps[at];
  // The other operands must be ready where the launch stands, on its stream.
  for (size_t i = 1; i < in.size(); ++i)
    if (!m_written.count(in[i]) || m_written[in[i]] >= at || m_stream[in[i]] != step.stream)
      return false;
  const size_t ops = m_fused.count(step.kernel) ? m_fused[step.kernel] : 1;
  if (ops + 1 > kMaxFusedOps ||
      step.args.size() + in.size() - 1 + !weights.empty() > kMaxLaunchArgs)
    return false;
  if (!m_fused.count(step.kernel)) {
    PlanKernel group;
    group.name = unique(step.kernel + "_fused", m_kernel_names, false);
    group.fuse = {step.kernel};
    m_fused[group.name] = 1;
    m_kernel_index[group.name] = m_plan.kernels.size();
    m_plan.kernels.push_back(group);
    step.kernel = group.name;
  }
  // The testbench lists fused kernels after the others (parts are declared first).
  m_plan.kernels[m_kernel_index[step.kernel]].fuse.push_back(part);
  ++m_fused[step.kernel];
  step.args.pop_back();
  for (size_t i = 1; i < in.size(); ++i)
    step.args.push_back(buffer_for(in[i]));
  if (!weights.empty())
    step.args.push_back(weights);
  step.args.push_back(buffer_for(n.output(0)));
  m_stream[n.output(0)] = step.stream;
  m_launch[n.output(0)] = m_written[n.output(0)] = at;
  return true;
}

// Data movement through the DMA: Concat gathers its inputs into the output, Split
// scatters its input, the others (and unsupported ops with --unsupported=memcpy) copy
// their first operand into each output.
void Importer::copy(int node) {
  const auto& n = m_g.graph().node(node);
  const std::string stream = stream_for(n);
  std::string src;
  uint64_t src_bytes = 0;
  if (!n.input().empty() && !n.input(0).empty() && !m_g.is_data(n.input(0))) { // a table
    src_bytes = bytes_of(n.input(0));
    src = weights_for(sanitize_name(n.input(0)), elements_of(m_g, n.input(0)));
  } else if (const auto in = data_inputs(n); !in.empty()) {
    src = buffer_for(in[0]);
    src_bytes = bytes_of(in[0]);
  }
  uint64_t offset = 0;
  if (n.op_type() == "Concat") {
    const std::string out = buffer_for(n.output(0));
    for (const auto& t : n.input()) {
      if (m_g.is_data(t))
        memcpy(out, offset, buffer_for(t), 0, bytes_of(t), stream);
      offset += m_g.has_shape(t) ? bytes_of(t) : 0;
    }
  } else {
    for (const auto& t : n.output()) {
      if (t.empty() || !m_g.is_data(t))
        continue;
      const bool split = n.op_type() == "Split";
      const uint64_t bytes = split ? bytes_of(t) : std::min(bytes_of(t), src_bytes);
      if (!src.empty() && bytes > 0)
        memcpy(buffer_for(t), 0, src, split ? offset : 0, std::min(bytes, src_bytes - offset),
               stream);
      else
        buffer_for(t);
      offset += split ? bytes : 0;
    }
  }
  for (const auto& t : n.output())
    if (!t.empty() && m_g.is_data(t)) {
      m_stream[t] = stream;
      m_written[t] = m_plan.steps.size() - 1;
    }
  ++m_result.copies;
}

// Inputs: a host buffer copied to the device first. Outputs: copied back last.
void Importer::inputs_and_outputs(bool outputs) {
  const auto& g = m_g.graph();
  for (const auto& v : outputs ? g.output() : g.input()) {
    if (!m_g.is_data(v.name()) || (!outputs && m_g.is_initializer(v.name())))
      continue;
    const std::string host = unique(v.name() + "_host", m_buffer_names);
    m_plan.buffers.push_back({host, bytes_of(v.name()), true});
    const std::string device = buffer_for(v.name());
    if (outputs) {
      memcpy(host, 0, device, 0, bytes_of(v.name()), m_stream[v.name()]);
      continue;
    }
    memcpy(device, 0, host, 0, bytes_of(v.name()), m_plan.streams[0]);
    m_stream[v.name()] = m_plan.streams[0];
    m_written[v.name()] = m_plan.steps.size() - 1;
  }
}

ImportResult Importer::run() {
  m_plan.name = sanitize_name(m_o.name);
  if (m_o.streams <= 1)
    m_plan.streams = {"infer"};
  for (uint32_t i = 0; i < m_o.streams && m_o.streams > 1; ++i)
    m_plan.streams.push_back("s" + std::to_string(i));
  inputs_and_outputs(false);
  for (const int node : m_g.order())
    visit(node);
  inputs_and_outputs(true);
  m_result.warnings = m_g.warnings();
  if (!m_generic.empty()) {
    std::string list;
    size_t total = 0;
    for (const auto& [op, count] : m_generic) {
      list += (list.empty() ? "" : ", ") + op + (count > 1 ? " x" + std::to_string(count) : "");
      total += count;
    }
    m_result.warnings.push_back(
        std::to_string(total) + " node(s) of ops npusim has no mapping for run as " +
        (m_o.unsupported == Unsupported::Memcpy ? "copies" : "vector passes over their elements") +
        ": " + list);
  }
  PlanStep sync{PlanStep::Kind::Sync, {}, {}, {}, {}, 0, 0, 0, {}, {}};
  sync.stream = m_plan.streams.size() > 1 ? "device" : m_plan.streams[0];
  m_plan.steps.push_back(sync);
  m_result.nodes = m_g.nodes_in_file();
  const std::string file = escape(std::filesystem::path(m_g.path()).filename().string());
  m_plan.comment = {"Imported from " + file + " by npusim import (ONNX opset " +
                        std::to_string(m_g.opset()) + "), " + m_o.dtype + ", fuse " +
                        (m_o.fuse == Fuse::None ? "none" : "elementwise") + ", " +
                        std::to_string(m_plan.streams.size()) + " stream(s).",
                    std::to_string(m_result.nodes) + " nodes: " + std::to_string(m_result.kernels) +
                        " launches, " + std::to_string(m_result.copies) + " copies, " +
                        giga(m_result.macs) + " MACs. Binary sizes are estimates per op kind."};
  m_result.yaml = write_testbench(m_plan);
  return m_result;
}

} // namespace

namespace {

ImportResult import_stripped(const std::string& bytes, const std::string& origin,
                             const ImportOptions& options) {
  ImportOptions o = options;
  if (o.name.empty())
    o.name = std::filesystem::path(origin).stem().string();
  if (o.dtype != "int8" && o.dtype != "fp16" && o.dtype != "fp32" && o.dtype != "bf16")
    throw InputError("--dtype " + o.dtype + ": expected int8, fp16, bf16 or fp32");
  if (o.streams < 1 || o.streams > 64)
    throw InputError("--streams " + std::to_string(o.streams) + ": expected 1 to 64");
  const OnnxGraph graph(origin, bytes, o);
  return Importer(graph, o).run();
}

} // namespace

ImportResult import_onnx_bytes(const std::string& bytes, const std::string& origin,
                               const ImportOptions& options) {
  return import_stripped(strip_model_bytes(bytes, origin), origin, options);
}

ImportResult import_onnx(const std::string& model_path, const ImportOptions& options) {
  return import_stripped(read_model_file(model_path), model_path, options);
}

} // namespace npu::onnx_import
