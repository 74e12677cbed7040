#pragma once

#include "common/error.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace npu::cfg {

struct MapEntry;

/// A YAML value with the position it came from. Maps keep their key order and the
/// position of each key, so errors can point at the key a user typed.
struct Node {
  enum class Kind { Null, Scalar, Map, Seq };

  Kind kind = Kind::Null;
  std::string scalar;            ///< Kind::Scalar
  std::vector<MapEntry> entries; ///< Kind::Map, in file order
  std::vector<Node> items;       ///< Kind::Seq
  SourceLoc loc;                 ///< where the value starts

  bool is_map() const { return kind == Kind::Map; }
  bool is_seq() const { return kind == Kind::Seq; }
  bool is_scalar() const { return kind == Kind::Scalar; }
  bool is_null() const { return kind == Kind::Null; }

  /// Map lookup; nullptr when absent or not a map.
  const Node* find(const std::string& key) const;
  Node* find(const std::string& key);
  const MapEntry* find_entry(const std::string& key) const;
  /// Inserts or replaces `key` in a map.
  Node& set(const std::string& key, Node value, const SourceLoc& key_loc);
  /// Removes `key` from a map; returns whether it was there.
  bool erase(const std::string& key);
  /// "map", "list", "value" or "nothing", for error messages.
  const char* kind_name() const;
};

struct MapEntry {
  std::string key;
  SourceLoc key_loc;
  Node value;
};

/// Parses one YAML document. Errors (syntax, duplicate keys, anchors gone wrong,
/// unreadable file, binary garbage) throw InputError with the position.
Node parse_yaml_file(const std::string& path);
Node parse_yaml_string(const std::string& text, const std::string& origin);

/// Loads a config file and resolves `extends:` chains (relative to the extending
/// file; cycles and depth > 16 are errors). The child's keys override the parent's,
/// maps merge key by key. The result has no `extends` key.
Node load_with_extends(const std::string& path);

/// Applies a `--set key.path=value` override; the value is parsed as YAML. A `*` key
/// stands for every entry of its map (`kernels.*.units=8`). `option` names the
/// command-line option in error positions.
void apply_override(Node& root, const std::string& assignment, const std::string& option = "--set");

/// The tree as JSON: maps as objects in file order, lists as arrays, values as the text
/// written (strings), nothing as null.
nlohmann::ordered_json to_json(const Node& node);

} // namespace npu::cfg
