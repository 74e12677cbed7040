#include "import/import_plan.h"

#include <cctype>
#include <sstream>

namespace npu::onnx_import {
namespace {

// "{a: 1, b: 2}"
std::string flow_map(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string s = "{";
  for (size_t i = 0; i < fields.size(); ++i)
    s += (i ? ", " : "") + fields[i].first + ": " + fields[i].second;
  return s + "}";
}

std::string list(const std::vector<std::string>& items) {
  std::string s = "[";
  for (size_t i = 0; i < items.size(); ++i)
    s += (i ? ", " : "") + items[i];
  return s + "]";
}

// A double-quoted YAML scalar: any name reads back as itself.
std::string quoted(const std::string& text) {
  static const char* kHex = "0123456789abcdef";
  std::string s = "\"";
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\')
      s += std::string("\\") + ch;
    else if (c < 0x20 || c == 0x7f)
      s += std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
    else
      s += ch;
  }
  return s + "\"";
}

std::string kernel_line(const PlanKernel& k) {
  auto fields = k.fields;
  if (!k.fuse.empty()) {
    std::vector<std::string> parts;
    for (const auto& p : k.fuse)
      parts.push_back(quoted(p));
    fields = {{"fuse", list(parts)}};
  } else {
    fields.emplace_back("binary", std::to_string(k.binary_bytes));
  }
  return "  " + quoted(k.name) + ": " + flow_map(fields) + "\n";
}

std::string step_line(const PlanStep& s) {
  using Kind = PlanStep::Kind;
  switch (s.kind) {
  case Kind::Launch:
    return "  - launch: " +
           flow_map({{"kernel", quoted(s.kernel)},
                     {"stream", s.stream},
                     {"async", "true"},
                     {"args", list(s.args)}}) +
           "\n";
  case Kind::Memcpy: {
    std::vector<std::pair<std::string, std::string>> f{{"dst", s.dst}};
    if (s.dst_offset_bytes)
      f.emplace_back("dst_offset", std::to_string(s.dst_offset_bytes));
    f.emplace_back("src", s.src);
    if (s.src_offset_bytes)
      f.emplace_back("src_offset", std::to_string(s.src_offset_bytes));
    f.emplace_back("bytes", std::to_string(s.bytes));
    f.emplace_back("stream", s.stream);
    f.emplace_back("async", "true");
    return "  - memcpy: " + flow_map(f) + "\n";
  }
  case Kind::Record:
    return "  - record: " + flow_map({{"event", s.event}, {"stream", s.stream}}) + "\n";
  case Kind::Wait:
    return "  - wait: " + flow_map({{"event", s.event}, {"stream", s.stream}}) + "\n";
  case Kind::Sync:
    return "  - sync: " + s.stream + "\n";
  }
  return {};
}

} // namespace

std::string sanitize_name(const std::string& text) {
  std::string s;
  for (const char c : text)
    s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])))
    s = "t" + s;
  return s;
}

std::string write_testbench(const Plan& plan) {
  std::ostringstream out;
  for (const auto& line : plan.comment)
    out << "# " << line << "\n";
  out << "name: " << plan.name << "\nkernels:\n";
  // Fused kernels after the others: their parts are declared first.
  for (const bool fused : {false, true})
    for (const auto& k : plan.kernels)
      if (k.fuse.empty() != fused)
        out << kernel_line(k);
  out << "buffers:\n";
  for (const auto& b : plan.buffers)
    out << "  " << b.name << ": {size: " << b.size_bytes
        << ", memory: " << (b.host ? "host" : "ddr") << "}\n";
  out << "streams: " << list(plan.streams) << "\nprogram:\n";
  for (const auto& s : plan.steps)
    out << step_line(s);
  return out.str();
}

} // namespace npu::onnx_import
