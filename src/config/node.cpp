#include "config/node.h"

#include "common/file_identity.h"
#include "common/input_file.h"
#include "common/utf8.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <sstream>

namespace npu::cfg {

const Node* Node::find(const std::string& key) const {
  const MapEntry* e = find_entry(key);
  return e ? &e->value : nullptr;
}

Node* Node::find(const std::string& key) {
  return const_cast<Node*>(static_cast<const Node*>(this)->find(key));
}

const MapEntry* Node::find_entry(const std::string& key) const {
  if (kind != Kind::Map)
    return nullptr;
  for (const auto& e : entries)
    if (e.key == key)
      return &e;
  return nullptr;
}

Node& Node::set(const std::string& key, Node value, const SourceLoc& key_loc) {
  kind = Kind::Map;
  for (auto& e : entries)
    if (e.key == key) {
      e.value = std::move(value);
      e.key_loc = key_loc;
      return e.value;
    }
  entries.push_back({key, key_loc, std::move(value)});
  return entries.back().value;
}

bool Node::erase(const std::string& key) {
  const auto it =
      std::find_if(entries.begin(), entries.end(), [&](const MapEntry& e) { return e.key == key; });
  if (it == entries.end())
    return false;
  entries.erase(it);
  return true;
}

const char* Node::kind_name() const {
  switch (kind) {
  case Kind::Map:
    return "a map";
  case Kind::Seq:
    return "a list";
  case Kind::Scalar:
    return "a value";
  case Kind::Null:
    break;
  }
  return "nothing";
}

namespace {

// Aliases let a small file name a huge tree ("billion laughs"); no real file comes near.
constexpr size_t kMaxValues = 200'000;

InputError too_deep(const SourceLoc& loc) {
  return InputError(loc, "", "nesting deeper than " + std::to_string(kMaxInputDepth) + " levels");
}

SourceLoc loc_of(const YAML::Mark& mark, const std::string& origin) {
  if (mark.line < 0)
    return {origin, 0, 0};
  return {origin, mark.line + 1, mark.column + 1};
}

Node convert(const YAML::Node& y, const std::string& origin, int depth, size_t& values) {
  Node n;
  n.loc = loc_of(y.Mark(), origin);
  if (depth > kMaxInputDepth)
    throw too_deep(n.loc);
  if (++values > kMaxValues)
    throw InputError(n.loc, "",
                     "more than " + std::to_string(kMaxValues) +
                         " values (aliases that repeat a large tree?)");
  switch (y.Type()) {
  case YAML::NodeType::Undefined:
  case YAML::NodeType::Null:
    n.kind = Node::Kind::Null;
    break;
  case YAML::NodeType::Scalar:
    n.kind = Node::Kind::Scalar;
    n.scalar = y.Scalar();
    break;
  case YAML::NodeType::Sequence:
    n.kind = Node::Kind::Seq;
    for (const auto& item : y)
      n.items.push_back(convert(item, origin, depth + 1, values));
    break;
  case YAML::NodeType::Map:
    n.kind = Node::Kind::Map;
    for (const auto& kv : y) {
      const SourceLoc key_loc = loc_of(kv.first.Mark(), origin);
      if (!kv.first.IsScalar())
        throw InputError(key_loc, "", "a map key must be a plain name");
      const std::string key = kv.first.Scalar();
      if (n.find_entry(key))
        throw InputError(key_loc, key,
                         "duplicate key (first defined at line " +
                             std::to_string(n.find_entry(key)->key_loc.line) + ")");
      n.entries.push_back({key, key_loc, convert(kv.second, origin, depth + 1, values)});
    }
    break;
  }
  return n;
}

void check_text(const std::string& text, const std::string& origin) {
  const size_t nul = text.find('\0');
  if (nul != std::string::npos) {
    SourceLoc loc = position_in(text, nul, origin);
    loc.column = 1; // binary data has no meaningful column
    throw InputError(loc, "", "file is binary (contains a NUL byte), not YAML");
  }
  // YAML is Unicode text; names taken from it end up in JSON and CSV outputs, which must
  // stay valid UTF-8.
  const size_t bad = utf8::first_invalid(text);
  if (bad != std::string::npos) {
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(text[bad]));
    throw InputError(position_in(text, bad, origin), "",
                     std::string("invalid UTF-8 (byte ") + byte +
                         "); expected YAML text encoded as UTF-8");
  }
}

// Records where each document of a YAML stream starts (its '---', or its first token).
class DocumentStarts : public YAML::EventHandler {
public:
  std::vector<YAML::Mark> starts;

  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// Where the second document of `text` starts (its '---' line).
YAML::Mark second_document(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts handler;
  while (handler.starts.size() < 2 && parser.HandleNextDocument(handler)) {
  }
  return handler.starts.size() >= 2 ? handler.starts[1] : YAML::Mark::null_mark();
}

void merge_into(Node& base, const Node& over) {
  if (!base.is_map() || !over.is_map()) {
    base = over;
    return;
  }
  for (const auto& e : over.entries) {
    Node* existing = base.find(e.key);
    if (existing && existing->is_map() && e.value.is_null())
      continue; // an empty section in the child keeps the parent's keys
    if (existing && existing->is_map() && e.value.is_map())
      merge_into(*existing, e.value);
    else
      base.set(e.key, e.value, e.key_loc);
  }
}

Node load_chain(const std::string& path, std::vector<std::string>& stack, const SourceLoc& from) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(fs::path(path), ec);
  const std::string id = ec ? path : canonical.string();
  if (std::find(stack.begin(), stack.end(), id) != stack.end())
    throw InputError(from, "extends", "cyclic extends: '" + path + "' extends itself");
  if (stack.size() >= 16)
    throw InputError(from, "extends", "extends chain deeper than 16 files");
  Node root;
  try {
    root = parse_yaml_file(path);
  } catch (const InputFileError& e) {
    if (from.file.empty())
      throw;
    // Name both places: the `extends:` that asked for the file, and the file.
    throw InputError(from, "extends", "file '" + path + "' " + e.reason());
  }
  note_input(path, from.file.empty() ? "the config" : "a config named by extends");
  if (root.is_null())
    return root;
  if (!root.is_map())
    throw InputError(root.loc, "",
                     "expected a map of settings at the top level, got " +
                         std::string(root.kind_name()));
  const MapEntry* ext = root.find_entry("extends");
  if (!ext)
    return root;
  if (!ext->value.is_scalar() || ext->value.scalar.empty())
    throw InputError(ext->value.loc, "extends", "expected a file name");
  const fs::path parent = fs::path(path).parent_path() / ext->value.scalar;
  stack.push_back(id);
  Node base = load_chain(parent.lexically_normal().string(), stack, ext->value.loc);
  stack.pop_back();
  root.erase("extends");
  if (base.is_null())
    return root;
  merge_into(base, root);
  return base;
}

} // namespace

Node parse_yaml_string(const std::string& text, const std::string& origin) {
  check_text(text, origin);
  try {
    const std::vector<YAML::Node> documents = YAML::LoadAll(text);
    if (documents.size() > 1)
      throw InputError(loc_of(second_document(text), origin), "",
                       "a second YAML document starts here; expected one document per file");
    size_t values = 0;
    return convert(documents.empty() ? YAML::Node() : documents.front(), origin, 0, values);
  } catch (const YAML::DeepRecursion& e) { // yaml-cpp's own limit, far beyond ours
    throw too_deep(loc_of(e.mark, origin));
  } catch (const YAML::Exception& e) {
    throw InputError(loc_of(e.mark, origin), "", "invalid YAML: " + e.msg);
  }
}

Node parse_yaml_file(const std::string& path) {
  return parse_yaml_string(read_input_file(path, "a YAML file"), path);
}

Node load_with_extends(const std::string& path) {
  std::vector<std::string> stack;
  return load_chain(path, stack, SourceLoc{});
}

namespace {

std::string key_prefix(const std::vector<std::string>& keys, size_t n) {
  std::string p;
  for (size_t k = 0; k < n; ++k)
    p += (k ? "." : "") + keys[k];
  return p;
}

// keys[i] as an index of a list of `size` entries (0-based), or an InputError.
size_t list_index(const std::vector<std::string>& keys, size_t i, size_t size,
                  const SourceLoc& loc) {
  const std::string& key = keys[i];
  size_t index = 0;
  const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), index);
  const std::string list = i == 0 ? std::string("the file") : "'" + key_prefix(keys, i) + "'";
  if (ec != std::errc() || end != key.data() + key.size())
    throw InputError(loc, key_prefix(keys, i + 1),
                     list + " is a list: expected " +
                         (size == 0
                              ? std::string("nothing (it is empty)")
                              : "an index from 0 to " + std::to_string(size - 1) + " or '*'"));
  if (index >= size)
    throw InputError(loc, key_prefix(keys, i + 1),
                     "index out of range: " + list + " has " + std::to_string(size) +
                         (size == 1 ? " entry" : " entries"));
  return index;
}

void set_path(Node& node, const std::vector<std::string>& keys, size_t i, const Node& value,
              const SourceLoc& loc);

// Sets keys[i + 1..] below `child` (reached from `node` by keys[i]) to `value`.
void set_below(Node& child, const std::vector<std::string>& keys, size_t i, const Node& value,
               const SourceLoc& loc, const std::string& where, const char* how) {
  if (i + 1 == keys.size()) {
    child = value;
    return;
  }
  if (child.is_null()) {
    child.kind = Node::Kind::Map; // an empty section: every key commented out
    child.loc = loc;
  }
  if (!child.is_map() && !child.is_seq())
    throw InputError(loc, where, std::string("is not a section, cannot set a key inside it") + how);
  set_path(child, keys, i + 1, value, loc);
}

// Sets keys[i..] below `node` to `value`. A number indexes a list (from 0); a `*` stands for
// every entry of its map or list.
void set_path(Node& node, const std::vector<std::string>& keys, size_t i, const Node& value,
              const SourceLoc& loc) {
  if (keys[i] == "*") {
    if ((!node.is_map() || node.entries.empty()) && (!node.is_seq() || node.items.empty()))
      throw InputError(loc, key_prefix(keys, i + 1),
                       "'*' matches nothing: " +
                           (i == 0 ? std::string("the file") : "'" + key_prefix(keys, i) + "'") +
                           " has no entries");
    for (MapEntry& e : node.entries)
      set_below(e.value, keys, i, value, loc, key_prefix(keys, i) + "." + e.key,
                " (matched by '*')");
    for (size_t k = 0; k < node.items.size(); ++k)
      set_below(node.items[k], keys, i, value, loc, key_prefix(keys, i) + "." + std::to_string(k),
                " (matched by '*')");
    return;
  }
  if (node.is_seq()) {
    set_below(node.items[list_index(keys, i, node.items.size(), loc)], keys, i, value, loc,
              key_prefix(keys, i + 1), "");
    return;
  }
  if (i + 1 == keys.size()) {
    node.set(keys[i], value, loc);
    return;
  }
  Node* child = node.find(keys[i]);
  if (!child) {
    Node map;
    map.kind = Node::Kind::Map;
    map.loc = loc;
    child = &node.set(keys[i], std::move(map), loc);
  }
  set_below(*child, keys, i, value, loc, key_prefix(keys, i + 1), "");
}

} // namespace

void apply_override(Node& root, const std::string& assignment, const std::string& option) {
  const size_t eq = assignment.find('=');
  const SourceLoc loc{option + " " + assignment, 0, 0};
  if (eq == std::string::npos || eq == 0)
    throw InputError(loc, "", "expected key.path=value");
  const std::string path = assignment.substr(0, eq);
  Node value = parse_yaml_string(assignment.substr(eq + 1), loc.file);
  value.loc = loc;
  if (root.is_null())
    root.kind = Node::Kind::Map;
  std::vector<std::string> keys;
  for (size_t start = 0;;) {
    const size_t dot = path.find('.', start);
    keys.push_back(path.substr(start, dot == std::string::npos ? dot : dot - start));
    if (keys.back().empty())
      throw InputError(loc, path, "empty key in path");
    if (dot == std::string::npos)
      break;
    start = dot + 1;
  }
  set_path(root, keys, 0, value, loc);
}

nlohmann::ordered_json to_json(const Node& node) {
  switch (node.kind) {
  case Node::Kind::Scalar:
    return node.scalar;
  case Node::Kind::Map: {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (const MapEntry& e : node.entries)
      j[e.key] = to_json(e.value);
    return j;
  }
  case Node::Kind::Seq: {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const Node& item : node.items)
      j.push_back(to_json(item));
    return j;
  }
  case Node::Kind::Null:
    break;
  }
  return nullptr;
}

} // namespace npu::cfg
