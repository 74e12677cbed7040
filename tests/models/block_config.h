// A block's config for its block tests: one section of a config text read by the block's
// own reader, as the platform reads it (no platform config, no other block's section).
#pragma once

#include "config/node.h"
#include "config/section.h"

#include <nlohmann/json.hpp>

#include <string>

namespace npu::test {

/// Section `name` of `text` read by `read` (a block's reader, called with the section);
/// `effective` (may be null) receives every value read.
template <typename Read>
auto block_config(const std::string& text, const std::string& name, Read read,
                  nlohmann::ordered_json* effective = nullptr) {
  const cfg::Node root = cfg::parse_yaml_string(text, "t.yaml");
  cfg::Section top(&root, "", effective);
  cfg::Section section = top.section(name);
  return read(section);
}

} // namespace npu::test
