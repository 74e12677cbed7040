#include "models/scheduler/command.h"

#include <cstring>

namespace npu {
namespace {

void put32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = static_cast<uint8_t>(v >> (8 * i));
}
void put64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint32_t get32(const uint8_t* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}
uint64_t get64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}

} // namespace

std::array<uint8_t, Descriptor::kBytes> Descriptor::encode() const {
  std::array<uint8_t, kBytes> out{};
  put32(&out[0], static_cast<uint32_t>(type));
  put32(&out[4], queue);
  put64(&out[8], command_id);
  put64(&out[16], a);
  put64(&out[24], b);
  put64(&out[32], c);
  put64(&out[40], d);
  put32(&out[48], arg_bytes);
  put32(&out[52], units);
  put32(&out[56], static_cast<uint32_t>(priority));
  return out;
}

bool Descriptor::decode(const uint8_t* bytes, Descriptor* out) {
  const uint32_t type = get32(&bytes[0]);
  if (type < 1 || type > 4)
    return false;
  out->type = static_cast<CommandType>(type);
  out->queue = get32(&bytes[4]);
  out->command_id = get64(&bytes[8]);
  out->a = get64(&bytes[16]);
  out->b = get64(&bytes[24]);
  out->c = get64(&bytes[32]);
  out->d = get64(&bytes[40]);
  out->arg_bytes = get32(&bytes[48]);
  out->units = get32(&bytes[52]);
  out->priority = static_cast<int32_t>(get32(&bytes[56]));
  return out->arg_bytes <= CommandLayout::kArgBytes;
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
