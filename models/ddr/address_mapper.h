#pragma once

#include "models/ddr/dram_spec.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace npu {

/// One field of a DRAM address, as written in a mapping: Ro, Ba, Bg, Ra, Co, Ch.
enum class DramField { Row, Bank, BankGroup, Rank, Column, Channel };

/// Where a byte address lives inside the DRAM.
struct DramAddress {
  uint32_t channel = 0;
  uint32_t rank = 0;
  uint32_t bankgroup = 0;
  uint32_t bank = 0; ///< bank inside its bank group
  uint64_t row = 0;
  uint32_t column = 0; ///< in units of one access (64 bytes), not device columns

  bool operator==(const DramAddress& o) const {
    return channel == o.channel && rank == o.rank && bankgroup == o.bankgroup && bank == o.bank &&
           row == o.row && column == o.column;
  }
};

/// "Ro" -> DramField::Row, ...; nullopt for anything else.
std::optional<DramField> parse_dram_field(const std::string& name);
const char* dram_field_name(DramField f);
/// Field order of a named scheme, most significant first (RoBaRaCoCh, RoBaCoBg,
/// RoRaBaCoCh, RoCoBaRaCh); nullopt for an unknown name.
std::optional<std::vector<DramField>> dram_mapping_scheme(const std::string& name);
std::vector<std::string> dram_mapping_scheme_names();
/// "" when `order` is usable with `spec`, else why not: every field at most once, and a
/// field may be left out only when it has one value (e.g. Bg without bank groups).
std::string check_dram_mapping(const DramSpec& spec, const std::vector<DramField>& order);

/// Decodes byte addresses by a field order given most to least significant above the
/// access offset (log2 of 64 bytes). Field widths come from the geometry; bits above
/// every field extend the row, so distinct addresses never alias. With `hash`, the
/// channel is XORed with every address bit above it, folded to its width (channel
/// hashing, as SoC memory controllers do), so that strided streams spread over the
/// channels; the mapping stays one-to-one.
class AddressMapper {
public:
  /// Throws std::invalid_argument when check_dram_spec or check_dram_mapping fail.
  AddressMapper(const DramSpec& spec, const std::vector<DramField>& order, bool hash = false);

  DramAddress decode(uint64_t addr) const;
  /// The inverse of decode: the first byte of the access at `a`.
  uint64_t encode(const DramAddress& a) const;
  /// Only the channel field (for routing).
  uint32_t channel_of(uint64_t addr) const {
    const uint64_t ch = (addr >> m_shift[kCh]) & m_mask[kCh];
    return static_cast<uint32_t>(m_hash ? ch ^ channel_hash(addr) : ch);
  }
  const std::vector<DramField>& order() const { return m_order; }
  /// Width in bits of a field.
  uint32_t bits(DramField f) const { return m_bits[static_cast<size_t>(f)]; }

  bool hashed() const { return m_hash; }

private:
  static constexpr size_t kCh = static_cast<size_t>(DramField::Channel);
  /// The bits above the channel field folded (XOR) to its width: one table lookup per
  /// byte of them, since folding is linear over XOR (a bit-by-bit fold costs tens of ns,
  /// and every request is decoded).
  uint64_t channel_hash(uint64_t addr) const {
    const uint32_t above = m_shift[kCh] + m_bits[kCh];
    uint64_t rest = above >= 64 ? 0 : addr >> above;
    uint64_t h = 0;
    for (size_t k = 0; rest != 0; ++k, rest >>= 8)
      h ^= m_fold[k][rest & 0xff];
    return h;
  }

  std::vector<DramField> m_order;
  std::array<uint32_t, 6> m_bits{};
  std::array<uint32_t, 6> m_shift{};
  std::array<uint64_t, 6> m_mask{};
  uint32_t m_top_shift = 0; ///< bits above every field start here
  /// m_fold[k][v]: byte v at byte k of the bits above the channel field, folded.
  std::array<std::array<uint16_t, 256>, 8> m_fold{};
  bool m_hash = false;
};

} // namespace npu
