#include "models/ddr/address_mapper.h"

#include <map>
#include <stdexcept>

namespace npu {
namespace {

uint32_t log2_exact(uint64_t v) {
  uint32_t bits = 0;
  while ((uint64_t{1} << bits) < v)
    ++bits;
  return bits;
}

using F = DramField;

const std::map<std::string, std::vector<DramField>>& schemes() {
  static const std::map<std::string, std::vector<DramField>> table = {
      // Ramulator 2's default: lines go to channels first, then columns of one row.
      {"RoBaRaCoCh", {F::Row, F::Bank, F::BankGroup, F::Rank, F::Column, F::Channel}},
      // Consecutive lines alternate bank groups, so streams run at tCCD_S.
      {"RoBaCoBg", {F::Row, F::Bank, F::Rank, F::Column, F::BankGroup, F::Channel}},
      {"RoRaBaCoCh", {F::Row, F::Rank, F::Bank, F::BankGroup, F::Column, F::Channel}},
      {"RoCoBaRaCh", {F::Row, F::Column, F::Bank, F::BankGroup, F::Rank, F::Channel}},
  };
  return table;
}

// Number of distinct values of a field per channel-rank geometry.
uint64_t field_count(const DramSpec& s, DramField f) {
  switch (f) {
  case F::Row:
    return s.rows;
  case F::Bank:
    return s.banks_per_group;
  case F::BankGroup:
    return s.bank_groups;
  case F::Rank:
    return s.ranks;
  case F::Column:
    return s.row_bytes() / s.access_bytes;
  case F::Channel:
    return s.channels;
  }
  return 1;
}

} // namespace

std::optional<DramField> parse_dram_field(const std::string& name) {
  static const std::map<std::string, DramField> names = {{"Ro", F::Row},       {"Ba", F::Bank},
                                                         {"Bg", F::BankGroup}, {"Ra", F::Rank},
                                                         {"Co", F::Column},    {"Ch", F::Channel}};
  const auto it = names.find(name);
  if (it == names.end())
    return std::nullopt;
  return it->second;
}

const char* dram_field_name(DramField f) {
  static const char* const names[] = {"Ro", "Ba", "Bg", "Ra", "Co", "Ch"};
  return names[static_cast<size_t>(f)];
}

std::optional<std::vector<DramField>> dram_mapping_scheme(const std::string& name) {
  const auto it = schemes().find(name);
  if (it == schemes().end())
    return std::nullopt;
  return it->second;
}

std::vector<std::string> dram_mapping_scheme_names() {
  std::vector<std::string> names;
  for (const auto& [name, order] : schemes())
    names.push_back(name);
  return names;
}

std::string check_dram_mapping(const DramSpec& spec, const std::vector<DramField>& order) {
  std::array<int, 6> seen{};
  for (DramField f : order) {
    if (seen[static_cast<size_t>(f)]++)
      return std::string("field ") + dram_field_name(f) + " appears more than once";
  }
  for (size_t i = 0; i < seen.size(); ++i) {
    const auto f = static_cast<DramField>(i);
    if (!seen[i] && field_count(spec, f) > 1)
      return std::string("field ") + dram_field_name(f) + " is missing (the device has " +
             std::to_string(field_count(spec, f)) + " of them)";
  }
  return "";
}

AddressMapper::AddressMapper(const DramSpec& spec, const std::vector<DramField>& order, bool hash)
    : m_order(order), m_hash(hash) {
  std::string error = check_dram_spec(spec);
  if (error.empty())
    error = check_dram_mapping(spec, order);
  if (!error.empty())
    throw std::invalid_argument("address mapping: " + error);
  uint32_t shift = log2_exact(spec.access_bytes);
  // Least significant field first.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const size_t i = static_cast<size_t>(*it);
    m_bits[i] = log2_exact(field_count(spec, *it));
    m_shift[i] = shift;
    m_mask[i] = (uint64_t{1} << m_bits[i]) - 1;
    shift += m_bits[i];
  }
  m_top_shift = shift;
  const size_t ch = static_cast<size_t>(F::Channel);
  const uint32_t above = m_shift[ch] + m_bits[ch];
  if (m_hash && m_bits[ch] > 0 && above < 64) {
    m_hash_shift = above;
    for (uint32_t s = m_bits[ch]; s < 64; s <<= 1)
      ++m_hash_steps;
  }
}

DramAddress AddressMapper::decode(uint64_t addr) const {
  DramAddress a = decode_in_channel(addr);
  a.channel = channel_of(addr);
  return a;
}

DramAddress AddressMapper::decode_in_channel(uint64_t addr) const {
  const auto field = [&](DramField f) {
    const size_t i = static_cast<size_t>(f);
    return (addr >> m_shift[i]) & m_mask[i];
  };
  DramAddress a;
  a.rank = static_cast<uint32_t>(field(F::Rank));
  a.bankgroup = static_cast<uint32_t>(field(F::BankGroup));
  a.bank = static_cast<uint32_t>(field(F::Bank));
  a.column = static_cast<uint32_t>(field(F::Column));
  const size_t ro = static_cast<size_t>(F::Row);
  a.row = field(F::Row) | (m_top_shift >= 64 ? 0 : (addr >> m_top_shift) << m_bits[ro]);
  return a;
}

uint64_t AddressMapper::encode(const DramAddress& a) const {
  const auto put = [&](DramField f, uint64_t v) {
    const size_t i = static_cast<size_t>(f);
    return (v & m_mask[i]) << m_shift[i];
  };
  const size_t ro = static_cast<size_t>(F::Row);
  uint64_t addr = put(F::Rank, a.rank) | put(F::BankGroup, a.bankgroup) | put(F::Bank, a.bank) |
                  put(F::Column, a.column) | put(F::Row, a.row);
  if (m_top_shift < 64)
    addr |= (a.row >> m_bits[ro]) << m_top_shift;
  // The channel hash covers only bits above the channel field: all set by now.
  return addr | put(F::Channel, a.channel ^ channel_hash(addr));
}

} // namespace npu
