// A whole platform config from YAML, for the tests that build blocks from one (they link
// npu_platform_config).
#pragma once

#include "config/node.h"
#include "platform/platform_config.h"

#include <string>

namespace npu::test {

/// A whole platform config from a YAML string (defaults for every absent key).
inline PlatformConfig config_from_yaml(const std::string& yaml) {
  return read_platform_config(cfg::parse_yaml_string(yaml, "test.yaml"), "test.yaml");
}

} // namespace npu::test
