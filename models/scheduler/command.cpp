#include "models/scheduler/command.h"

#include <cstring>

namespace npu {
namespace {

// Descriptors are little-endian: on a little-endian host a field is a plain copy (the
// byte loops below cost more than the rest of a launch's decode).
constexpr bool kLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

template <typename T> void put(uint8_t* p, T v) {
  if constexpr (kLittleEndian) {
    std::memcpy(p, &v, sizeof v);
  } else {
    for (size_t i = 0; i < sizeof v; ++i)
      p[i] = static_cast<uint8_t>(v >> (8 * i));
  }
}
template <typename T> T get(const uint8_t* p) {
  T v = 0;
  if constexpr (kLittleEndian) {
    std::memcpy(&v, p, sizeof v);
  } else {
    for (size_t i = 0; i < sizeof v; ++i)
      v |= static_cast<T>(static_cast<T>(p[i]) << (8 * i));
  }
  return v;
}
void put32(uint8_t* p, uint32_t v) {
  put(p, v);
}
void put64(uint8_t* p, uint64_t v) {
  put(p, v);
}
uint32_t get32(const uint8_t* p) {
  return get<uint32_t>(p);
}
uint64_t get64(const uint8_t* p) {
  return get<uint64_t>(p);
}

/// The four type-dependent words of a descriptor (bytes 16..47), arg_bytes and units.
struct Words {
  std::array<uint64_t, 4> w{};
  uint32_t arg_bytes = 0;
  uint32_t units = 1;
};

Words words_of(const CommandBody& body) {
  Words out;
  if (const auto* k = std::get_if<KernelCommand>(&body)) {
    out.w = {k->binary_addr, k->binary_bytes, k->kernel, k->launch_id};
    out.arg_bytes = k->arg_bytes;
    out.units = k->units;
  } else if (const auto* c = std::get_if<CopyCommand>(&body)) {
    out.w = {c->src, c->dst, c->bytes, 0};
  } else if (const auto* r = std::get_if<EventRecordCommand>(&body)) {
    out.w = {0, 0, r->event, 0};
  } else if (const auto* e = std::get_if<EventWaitCommand>(&body)) {
    out.w = {0, 0, e->event, e->records};
  }
  return out;
}

CommandBody body_of(CommandType type, const Words& in) {
  const auto& w = in.w;
  switch (type) {
  case CommandType::Kernel:
    return KernelCommand{w[0], w[1], w[2], w[3], in.arg_bytes, in.units};
  case CommandType::Copy:
    return CopyCommand{w[0], w[1], w[2]};
  case CommandType::EventRecord:
    return EventRecordCommand{w[2]};
  case CommandType::EventWait:
    return EventWaitCommand{w[2], w[3]};
  }
  return {};
}

} // namespace

std::array<uint8_t, Descriptor::kBytes> Descriptor::encode() const {
  std::array<uint8_t, kBytes> out{};
  const Words words = words_of(body);
  put32(&out[0], static_cast<uint32_t>(type()));
  put32(&out[4], queue);
  put64(&out[8], command_id);
  for (size_t i = 0; i < words.w.size(); ++i)
    put64(&out[16 + 8 * i], words.w[i]);
  put32(&out[48], words.arg_bytes);
  put32(&out[52], words.units);
  put32(&out[56], static_cast<uint32_t>(priority));
  return out;
}

bool Descriptor::decode(const uint8_t* bytes, Descriptor* out) {
  const uint32_t type = get32(&bytes[0]);
  if (type < 1 || type > std::variant_size_v<CommandBody>)
    return false;
  Words words;
  for (size_t i = 0; i < words.w.size(); ++i)
    words.w[i] = get64(&bytes[16 + 8 * i]);
  words.arg_bytes = get32(&bytes[48]);
  words.units = get32(&bytes[52]);
  out->queue = get32(&bytes[4]);
  out->command_id = get64(&bytes[8]);
  out->priority = static_cast<int32_t>(get32(&bytes[56]));
  out->body = body_of(static_cast<CommandType>(type), words);
  return words.arg_bytes <= CommandLayout::kArgBytes;
}

std::vector<uint8_t> encode_args(const std::vector<Region>& regions) {
  if (regions.empty())
    return {}; // nothing to pass: the descriptor says arg_bytes = 0 and no block is written
  std::vector<uint8_t> out(8 + 16 * regions.size());
  put32(&out[0], static_cast<uint32_t>(regions.size()));
  for (size_t i = 0; i < regions.size(); ++i) {
    put64(&out[8 + 16 * i], regions[i].addr);
    put64(&out[16 + 16 * i], regions[i].bytes);
  }
  return out;
}

bool decode_args(const uint8_t* bytes, uint32_t len, std::vector<Region>* out) {
  out->clear();
  if (len < 8)
    return len == 0;
  const uint32_t n = get32(bytes);
  if (8 + 16ull * n > len)
    return false;
  for (uint32_t i = 0; i < n; ++i)
    out->push_back({get64(&bytes[8 + 16 * i]), get64(&bytes[16 + 16 * i])});
  return true;
}

} // namespace npu
