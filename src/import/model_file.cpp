#include "import/model_file.h"

#include "common/error.h"
#include "common/file_identity.h"
#include "common/input_file.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

namespace npu::onnx_import {
namespace {

constexpr int kMaxDepth = 64;

[[noreturn]] void malformed(const std::string& origin) {
  throw InputError(SourceLoc{origin, 0, 0}, "",
                   "not an ONNX model: the file does not parse as an ONNX protobuf (truncated, "
                   "or another format)");
}

// Bytes read in order, with skips; reads past the end are errors.
class Source {
public:
  Source(std::string origin, uint64_t size) : m_origin(std::move(origin)), m_size(size) {}
  virtual ~Source() = default;
  uint64_t pos() const { return m_pos; }
  const std::string& origin() const { return m_origin; }
  /// Appends `n` bytes to `out`.
  void read(uint64_t n, std::string* out) {
    if (n > m_size - m_pos)
      malformed(m_origin);
    fetch(n, out);
    m_pos += n;
  }
  void skip(uint64_t n) {
    if (n > m_size - m_pos)
      malformed(m_origin);
    jump(n);
    m_pos += n;
  }
  uint8_t byte() {
    std::string b;
    read(1, &b);
    return static_cast<uint8_t>(b[0]);
  }

protected:
  virtual void fetch(uint64_t n, std::string* out) = 0;
  virtual void jump(uint64_t n) = 0;

private:
  std::string m_origin;
  uint64_t m_size;
  uint64_t m_pos = 0;
};

class MemorySource : public Source {
public:
  MemorySource(std::string_view bytes, const std::string& origin)
      : Source(origin, bytes.size()), m_bytes(bytes) {}

private:
  void fetch(uint64_t n, std::string* out) override {
    out->append(m_bytes.substr(m_at, n));
    m_at += n;
  }
  void jump(uint64_t n) override { m_at += n; }
  std::string_view m_bytes;
  size_t m_at = 0;
};

// A file read through a buffer; skips past the buffer seek.
class FileSource : public Source {
public:
  FileSource(int fd, uint64_t size, const std::string& origin)
      : Source(origin, size), m_fd(fd), m_buffer(1 << 16, '\0') {}
  ~FileSource() override { ::close(m_fd); }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

private:
  void fetch(uint64_t n, std::string* out) override {
    while (n > 0) {
      if (m_at == m_end)
        fill();
      const size_t take = static_cast<size_t>(std::min<uint64_t>(n, m_end - m_at));
      out->append(m_buffer, m_at, take);
      m_at += take;
      n -= take;
    }
  }
  void jump(uint64_t n) override {
    if (n <= m_end - m_at) {
      m_at += static_cast<size_t>(n);
      return;
    }
    n -= m_end - m_at;
    m_at = m_end = 0;
    if (::lseek(m_fd, static_cast<off_t>(n), SEEK_CUR) < 0)
      throw InputFileError(origin(), std::string("cannot be read (") + std::strerror(errno) + ")");
  }
  void fill() {
    while (true) {
      const ssize_t got = ::read(m_fd, m_buffer.data(), m_buffer.size());
      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0)
        throw InputFileError(origin(),
                             std::string("cannot be read (") + std::strerror(errno) + ")");
      if (got == 0)
        malformed(origin()); // the file shrank while it was read
      m_at = 0;
      m_end = static_cast<size_t>(got);
      return;
    }
  }
  int m_fd;
  std::string m_buffer;
  size_t m_at = 0, m_end = 0;
};

// The messages of onnx.proto whose fields lead to tensors.
enum class Msg { Model, Graph, Node, Attribute, Tensor, Sparse, Function, Other };

Msg child(Msg parent, uint64_t field) {
  switch (parent) {
  case Msg::Model:
    return field == 7 ? Msg::Graph : field == 25 ? Msg::Function : Msg::Other;
  case Msg::Graph:
    return field == 1    ? Msg::Node
           : field == 5  ? Msg::Tensor
           : field == 15 ? Msg::Sparse
                         : Msg::Other;
  case Msg::Node:
    return field == 5 ? Msg::Attribute : Msg::Other;
  case Msg::Attribute:
    return field == 5 || field == 10    ? Msg::Tensor
           : field == 6 || field == 11  ? Msg::Graph
           : field == 22 || field == 23 ? Msg::Sparse
                                        : Msg::Other;
  case Msg::Function:
    return field == 7 ? Msg::Node : Msg::Other;
  case Msg::Sparse:
    return field == 1 || field == 2 ? Msg::Tensor : Msg::Other;
  default:
    return Msg::Other;
  }
}

// TensorProto's payload fields: float_data, int32_data, string_data, int64_data, raw_data,
// double_data, uint64_data.
bool payload(uint64_t field) {
  return field == 4 || field == 5 || field == 6 || field == 7 || field == 9 || field == 10 ||
         field == 11;
}

uint64_t varint(Source& src, uint64_t end) {
  uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (src.pos() >= end)
      malformed(src.origin());
    const uint8_t b = src.byte();
    value |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80))
      return value;
  }
  malformed(src.origin());
}

void put_varint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

std::string message(Source& src, uint64_t length, Msg kind, int depth);

// One field of a message of `kind` whose tag was read: appends what is kept to `out`.
void field(Source& src, uint64_t end, Msg kind, uint64_t tag, int depth, uint64_t* payload_bytes,
           std::string* out) {
  const uint64_t number = tag >> 3;
  const bool data = kind == Msg::Tensor && payload(number);
  std::string bytes;
  switch (tag & 7) {
  case 0:
    put_varint(varint(src, end), &bytes);
    break;
  case 1:
  case 5: {
    const uint64_t n = (tag & 7) == 1 ? 8 : 4;
    if (n > end - src.pos())
      malformed(src.origin());
    src.read(n, &bytes);
    break;
  }
  case 2: {
    const uint64_t length = varint(src, end);
    if (length > end - src.pos())
      malformed(src.origin());
    const Msg inner = child(kind, number);
    if (inner != Msg::Other) {
      const std::string content = message(src, length, inner, depth + 1);
      put_varint(tag, out);
      put_varint(content.size(), out);
      out->append(content);
      return;
    }
    if (data && *payload_bytes + length > kKeptPayloadBytes) {
      *payload_bytes = kKeptPayloadBytes + 1; // the tensor keeps no payload from here on
      src.skip(length);
      return;
    }
    put_varint(length, &bytes);
    src.read(length, &bytes);
    break;
  }
  default:
    malformed(src.origin()); // groups and unknown wire types are not in onnx.proto
  }
  if (data) {
    if (*payload_bytes + bytes.size() > kKeptPayloadBytes) {
      *payload_bytes = kKeptPayloadBytes + 1;
      return;
    }
    *payload_bytes += bytes.size();
  }
  put_varint(tag, out);
  out->append(bytes);
}

std::string message(Source& src, uint64_t length, Msg kind, int depth) {
  if (depth > kMaxDepth)
    throw InputError(SourceLoc{src.origin(), 0, 0}, "",
                     "the model nests graphs and tensors more than " + std::to_string(kMaxDepth) +
                         " levels deep");
  const uint64_t end = src.pos() + length;
  std::string out;
  uint64_t payload_bytes = 0;
  while (src.pos() < end) {
    const uint64_t tag = varint(src, end);
    if ((tag >> 3) == 0)
      malformed(src.origin());
    field(src, end, kind, tag, depth, &payload_bytes, &out);
  }
  return out;
}

} // namespace

std::string strip_model_bytes(const std::string& bytes, const std::string& origin) {
  MemorySource src(bytes, origin);
  return message(src, bytes.size(), Msg::Model, 0);
}

std::string read_model_file(const std::string& path) {
  uint64_t size = 0;
  const int fd = open_input_file(path, "an ONNX model", &size);
  note_input(path, "an ONNX model", true); // no output of this command may replace it
  FileSource src(fd, size, path);
  if (size > kMaxModelBytes)
    throw InputFileError(path, "is larger than 4GiB, the limit on ONNX models; keep the weights "
                               "of a larger model in external data files beside it");
  return message(src, size, Msg::Model, 0);
}

} // namespace npu::onnx_import
