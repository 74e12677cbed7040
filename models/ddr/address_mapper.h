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
  /// decode() without the channel (left 0): what a channel's controller needs of the
  /// requests routed to it, without the channel hash.
  DramAddress decode_in_channel(uint64_t addr) const;
  /// The inverse of decode: the first byte of the access at `a`.
  uint64_t encode(const DramAddress& a) const;
  /// Only the channel field (for routing).
  uint32_t channel_of(uint64_t addr) const {
    return channel_field(addr) ^ static_cast<uint32_t>(channel_hash(addr));
  }
  /// The channel as channel_of(), with the hash of addresses that share their bits from
  /// hash_shift() on: `fold` is channel_hash() of any of them.
  uint32_t channel_of(uint64_t addr, uint64_t fold) const {
    return channel_field(addr) ^ static_cast<uint32_t>(fold);
  }
  /// Addresses equal from this bit on have one channel hash (63 without a hash).
  uint32_t hash_shift() const { return m_hash_steps == 0 ? 63 : m_hash_shift; }
  const std::vector<DramField>& order() const { return m_order; }
  /// Width in bits of a field.
  uint32_t bits(DramField f) const { return m_bits[static_cast<size_t>(f)]; }
  /// Position of a field's lowest bit in a byte address.
  uint32_t shift(DramField f) const { return m_shift[static_cast<size_t>(f)]; }

  bool hashed() const { return m_hash; }

  /// The bits above the channel field folded (XOR) to its width: the XOR of their
  /// `bits`-wide chunks. Each step doubles the chunks the low one has taken in, so 64 bits
  /// take about log2(64 / bits) steps rather than one per chunk (every request is decoded).
  /// The steps commute (each XORs in a shifted copy), so they go widest first, their number
  /// counted once at construction (0: no hash).
  uint64_t channel_hash(uint64_t addr) const {
    const uint32_t bits = m_bits[kCh];
    uint64_t x = addr >> m_hash_shift;
    if (m_hash_steps == 0)
      return 0;
    for (uint32_t step = m_hash_steps; step > 0; --step)
      x ^= x >> (bits << (step - 1));
    return x & m_mask[kCh];
  }

private:
  static constexpr size_t kCh = static_cast<size_t>(DramField::Channel);

  uint32_t channel_field(uint64_t addr) const {
    return static_cast<uint32_t>((addr >> m_shift[kCh]) & m_mask[kCh]);
  }
  std::vector<DramField> m_order;
  std::array<uint32_t, 6> m_bits{};
  std::array<uint32_t, 6> m_shift{};
  std::array<uint64_t, 6> m_mask{};
  uint32_t m_top_shift = 0;  ///< bits above every field start here
  uint32_t m_hash_shift = 0; ///< the bits the channel hash folds start here
  uint32_t m_hash_steps = 0; ///< folding steps of the channel hash (0: none)
  bool m_hash = false;
};

} // namespace npu
