#pragma once

#include "common/launch_record.h"

#include <vector>

namespace npu {

/// Every launch's record, indexed by launch id. The host driver opens a record
/// at t0; the scheduler and units fill t3..t5; the driver closes it at t6.
class LaunchLog {
public:
  LaunchRecord& open() {
    m_records.emplace_back();
    m_records.back().launch_id = m_records.size() - 1;
    return m_records.back();
  }
  LaunchRecord& at(uint64_t launch_id) { return m_records.at(launch_id); }
  const std::vector<LaunchRecord>& records() const { return m_records; }
  std::vector<LaunchRecord>& records() { return m_records; }

private:
  std::vector<LaunchRecord> m_records;
};

} // namespace npu
