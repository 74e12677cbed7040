#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace npu {

/// One named statistic with a unit and a description (collected into the report).
struct StatEntry {
  std::string name;
  double value = 0;
  std::string unit; ///< "count", "bytes", "ns", "ratio", "GB/s", ...
  std::string description;
};

/// The statistics of one block instance, e.g. "icache" or "compute.unit0".
struct StatGroup {
  std::string block;
  std::vector<StatEntry> stats;

  void add(std::string name, double value, std::string unit, std::string description) {
    stats.push_back({std::move(name), value, std::move(unit), std::move(description)});
  }
};

class StatList;

/// Something a block reports: registers itself with a list when constructed and
/// writes its entries when the report is collected. Neither copied nor moved: the list
/// holds its address.
class StatItem {
public:
  StatItem(const StatItem&) = delete;
  StatItem& operator=(const StatItem&) = delete;
  virtual ~StatItem() = default;

  /// Appends this item's entries to `out`; `simulated_ps` is the length of the run.
  virtual void emit(StatGroup& out, uint64_t simulated_ps) const = 0;

protected:
  StatItem() = default;
  explicit StatItem(StatList& list);
};

/// Items in the order they were registered. A list registered in another list keeps a
/// place there for items registered later (e.g. per-region statistics of a router whose
/// regions are mapped after construction).
class StatList : public StatItem {
public:
  StatList() = default;
  explicit StatList(StatList& parent) : StatItem(parent) {}

  void emit(StatGroup& out, uint64_t simulated_ps) const override {
    for (const StatItem* item : m_items)
      item->emit(out, simulated_ps);
  }

private:
  friend class StatItem;
  std::vector<const StatItem*> m_items;
};

inline StatItem::StatItem(StatList& list) {
  list.m_items.push_back(this);
}

/// The statistics of one block instance: every item registered with it, in order.
class StatRegistry : public StatList {
public:
  explicit StatRegistry(std::string block) : m_block(std::move(block)) {}

  const std::string& block() const { return m_block; }
  /// The report entries of every registered item, in registration order.
  StatGroup collect(uint64_t simulated_ps = 0) const {
    StatGroup g{m_block, {}};
    emit(g, simulated_ps);
    return g;
  }

private:
  std::string m_block;
};

/// A counter declared once with its report entry: name, unit and description.
class Stat : public StatItem {
public:
  Stat(StatList& list, std::string name, std::string unit, std::string description)
      : StatItem(list), m_name(std::move(name)), m_unit(std::move(unit)),
        m_description(std::move(description)) {}

  Stat& operator++() {
    ++m_count;
    return *this;
  }
  Stat& operator+=(uint64_t n) {
    m_count += n;
    return *this;
  }
  uint64_t count() const { return m_count; }

  void emit(StatGroup& out, uint64_t /*simulated_ps*/) const override {
    out.add(m_name, reported(), m_unit, m_description);
  }

protected:
  virtual double reported() const { return static_cast<double>(m_count); }

private:
  std::string m_name;
  std::string m_unit;
  std::string m_description;
  uint64_t m_count = 0;
};

/// A duration summed in picoseconds and reported in nanoseconds (unit "ns").
class TimeStat : public Stat {
public:
  TimeStat(StatList& list, std::string name, std::string description)
      : Stat(list, std::move(name), "ns", std::move(description)) {}

  uint64_t ps() const { return count(); }

protected:
  double reported() const override { return static_cast<double>(count()) / 1000.0; }
};

/// A figure computed from other state when the report is collected (a ratio, a rate, a
/// sum over channels), declared once where it falls in the report's order.
class DerivedStat : public StatItem {
public:
  using Formula = std::function<double(uint64_t simulated_ps)>;

  DerivedStat(StatList& list, std::string name, std::string unit, std::string description,
              Formula formula)
      : StatItem(list), m_name(std::move(name)), m_unit(std::move(unit)),
        m_description(std::move(description)), m_formula(std::move(formula)) {}

  void emit(StatGroup& out, uint64_t simulated_ps) const override {
    out.add(m_name, m_formula(simulated_ps), m_unit, m_description);
  }

private:
  std::string m_name;
  std::string m_unit;
  std::string m_description;
  Formula m_formula;
};

} // namespace npu
