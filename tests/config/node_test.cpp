// The YAML tree: positions, strict parsing, `extends:` chains and `--set` overrides.
#include "common/input_file.h"
#include "config/node.h"
#include "test_util.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace npu::cfg {
namespace {

using test::contains;
using test::input_error;
using test::TempDir;

std::vector<std::string> keys_of(const Node& map) {
  std::vector<std::string> out;
  for (const auto& e : map.entries)
    out.push_back(e.key);
  return out;
}

TEST(NodeParse, KindsAndPositions) {
  const Node root =
      parse_yaml_string("name: x\ndma:\n  channels: 4\nlist: [1, 2]\nnone:\n", "t.yaml");
  ASSERT_TRUE(root.is_map());
  EXPECT_EQ(keys_of(root), (std::vector<std::string>{"name", "dma", "list", "none"}));
  const Node* dma = root.find("dma");
  ASSERT_NE(dma, nullptr);
  ASSERT_TRUE(dma->is_map());
  const MapEntry* channels = dma->find_entry("channels");
  ASSERT_NE(channels, nullptr);
  EXPECT_EQ(channels->value.scalar, "4");
  EXPECT_EQ(channels->key_loc.str(), "t.yaml:3:3");
  EXPECT_EQ(channels->value.loc.str(), "t.yaml:3:13");
  const Node* list = root.find("list");
  ASSERT_TRUE(list && list->is_seq());
  ASSERT_EQ(list->items.size(), 2u);
  EXPECT_EQ(list->items[1].scalar, "2");
  EXPECT_EQ(list->items[1].loc.str(), "t.yaml:4:11");
  EXPECT_TRUE(root.find("none")->is_null());
  EXPECT_EQ(root.find("missing"), nullptr);
  EXPECT_EQ(root.find("name")->find("x"), nullptr); // not a map
}

TEST(NodeParse, KindNames) {
  const Node root = parse_yaml_string("a: 1\nb: [1]\nc: {}\nd:\n", "t.yaml");
  EXPECT_STREQ(root.find("a")->kind_name(), "a value");
  EXPECT_STREQ(root.find("b")->kind_name(), "a list");
  EXPECT_STREQ(root.find("c")->kind_name(), "a map");
  EXPECT_STREQ(root.find("d")->kind_name(), "nothing");
}

TEST(NodeParse, EmptyDocumentIsNull) {
  EXPECT_TRUE(parse_yaml_string("", "t.yaml").is_null());
  EXPECT_TRUE(parse_yaml_string("# only a comment\n", "t.yaml").is_null());
}

TEST(NodeParse, SyntaxErrorCarriesPosition) {
  const InputError e = input_error([] { parse_yaml_string("a: 1\nb: [1, 2\n", "bad.yaml"); });
  const std::string what = e.what();
  EXPECT_TRUE(contains(what, "invalid YAML")) << what;
  EXPECT_EQ(e.loc().file, "bad.yaml");
  EXPECT_GE(e.loc().line, 2) << what;
  EXPECT_GE(e.loc().column, 1) << what;
  EXPECT_TRUE(contains(what, "bad.yaml:" + std::to_string(e.loc().line) + ":" +
                                 std::to_string(e.loc().column) + ": error: "))
      << what;
  EXPECT_EQ(what.find('\n'), std::string::npos) << what;
}

TEST(NodeParse, TabIndentationErrorCarriesLine) {
  const InputError e = input_error([] { parse_yaml_string("a:\n  b: 1\n c: 2\n", "bad.yaml"); });
  EXPECT_EQ(e.loc().file, "bad.yaml");
  EXPECT_EQ(e.loc().line, 3) << e.what();
}

TEST(NodeParse, DuplicateKeyNamesFirstLine) {
  const InputError e = input_error([] { parse_yaml_string("a: 1\nb: 2\na: 3\n", "dup.yaml"); });
  const std::string what = e.what();
  EXPECT_TRUE(contains(what, "dup.yaml:3:1: error: a: duplicate key (first defined at line 1)"))
      << what;
  EXPECT_EQ(e.key(), "a");
}

TEST(NodeParse, DuplicateNestedKey) {
  const InputError e = input_error([] {
    parse_yaml_string("x: 0\ndma:\n  channels: 1\n  burst: 64B\n  channels: 2\n", "d.yaml");
  });
  const std::string what = e.what();
  EXPECT_TRUE(contains(what, "d.yaml:5:3")) << what;
  EXPECT_TRUE(contains(what, "first defined at line 3")) << what;
}

TEST(NodeParse, NulByteRejectedWithLine) {
  const std::string text("a: 1\nb: \0x\n", 10);
  const InputError e = input_error([&] { parse_yaml_string(text, "bin.yaml"); });
  const std::string what = e.what();
  EXPECT_TRUE(contains(what, "bin.yaml:2:1")) << what;
  EXPECT_TRUE(contains(what, "NUL byte")) << what;
}

TEST(NodeParse, NonScalarKeyRejected) {
  const InputError e = input_error([] { parse_yaml_string("? [a, b]\n: 1\n", "k.yaml"); });
  EXPECT_TRUE(contains(e.what(), "a map key must be a plain name")) << e.what();
}

TEST(NodeParse, DeepNestingRejected) {
  const auto nested = [](size_t depth) {
    return "x: " + std::string(depth, '[') + std::string(depth, ']') + "\n";
  };
  EXPECT_NO_THROW(parse_yaml_string(nested(kMaxInputDepth - 1), "deep.yaml"));
  const InputError e = input_error([&] { parse_yaml_string(nested(300), "deep.yaml"); });
  EXPECT_EQ(std::string(e.what()), "deep.yaml:1:260: error: nesting deeper than 256 levels");
  // Past yaml-cpp's own limit: the same message, never a crash.
  const InputError deeper = input_error([&] { parse_yaml_string(nested(100000), "deep.yaml"); });
  EXPECT_TRUE(contains(deeper.what(), "deep.yaml:1:")) << deeper.what();
  EXPECT_TRUE(contains(deeper.what(), "error: nesting deeper than 256 levels")) << deeper.what();
  // Block nesting counts the same as flow nesting.
  std::string block;
  for (int i = 0; i < 300; ++i)
    block += std::string(static_cast<size_t>(i), ' ') + "k:\n";
  EXPECT_TRUE(contains(input_error([&] { parse_yaml_string(block, "deep.yaml"); }).what(),
                       "nesting deeper than 256 levels"));
}

TEST(NodeFile, MissingFileAndDirectory) {
  TempDir dir;
  const std::string missing = (dir.path() / "nope.yaml").string();
  InputError e = input_error([&] { parse_yaml_file(missing); });
  EXPECT_TRUE(contains(e.what(), missing + ": error: file does not exist")) << e.what();
  e = input_error([&] { parse_yaml_file(dir.path().string()); });
  EXPECT_TRUE(contains(e.what(), "is a directory")) << e.what();
}

TEST(NodeFile, PositionsNameTheFile) {
  TempDir dir;
  const std::string path = dir.write("c.yaml", "a: 1\nb:\n  c: 2\n  c: 3\n");
  const InputError e = input_error([&] { parse_yaml_file(path); });
  EXPECT_TRUE(contains(e.what(), path + ":4:3")) << e.what();
}

TEST(NodeSetErase, SetReplacesInPlaceAndAppends) {
  Node root = parse_yaml_string("a: 1\nb: 2\n", "t.yaml");
  Node v;
  v.kind = Node::Kind::Scalar;
  v.scalar = "9";
  root.set("a", v, SourceLoc{"x", 1, 1});
  root.set("c", v, SourceLoc{"x", 2, 1});
  EXPECT_EQ(keys_of(root), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(root.find("a")->scalar, "9");
  EXPECT_EQ(root.find_entry("a")->key_loc.str(), "x:1:1");
  EXPECT_TRUE(root.erase("b"));
  EXPECT_FALSE(root.erase("b"));
  EXPECT_EQ(keys_of(root), (std::vector<std::string>{"a", "c"}));
}

TEST(NodeExtends, ChildOverridesParentAndMapsMerge) {
  TempDir dir;
  dir.write("base.yaml", "name: base\ndma: {channels: 2, burst: 128B}\nsram: {size: 256KiB}\n");
  const std::string child =
      dir.write("sub/child.yaml", "extends: ../base.yaml\nname: child\ndma: {channels: 8}\n"
                                  "compute: {units: 2}\n");
  const Node root = load_with_extends(child);
  ASSERT_TRUE(root.is_map());
  EXPECT_EQ(root.find("extends"), nullptr);
  EXPECT_EQ(keys_of(root), (std::vector<std::string>{"name", "dma", "sram", "compute"}));
  EXPECT_EQ(root.find("name")->scalar, "child");
  const Node* dma = root.find("dma");
  ASSERT_NE(dma, nullptr);
  EXPECT_EQ(dma->find("channels")->scalar, "8");
  EXPECT_EQ(dma->find("burst")->scalar, "128B"); // kept from the parent
  EXPECT_EQ(root.find("sram")->find("size")->scalar, "256KiB");
  EXPECT_EQ(root.find("compute")->find("units")->scalar, "2");
  // Overridden values point at the child, inherited ones at the parent.
  EXPECT_TRUE(contains(dma->find("channels")->loc.file, "child.yaml"));
  EXPECT_TRUE(contains(dma->find("burst")->loc.file, "base.yaml"));
}

TEST(NodeExtends, ChainResolvedRelativeToEachFile) {
  TempDir dir;
  dir.write("a/grand.yaml", "x: 1\ny: {p: 1, q: 1}\n");
  dir.write("b/parent.yaml", "extends: ../a/grand.yaml\ny: {q: 2}\nz: 2\n");
  const std::string child = dir.write("c/d/child.yaml", "extends: ../../b/parent.yaml\nz: 3\n");
  const Node root = load_with_extends(child);
  EXPECT_EQ(root.find("x")->scalar, "1");
  EXPECT_EQ(root.find("y")->find("p")->scalar, "1");
  EXPECT_EQ(root.find("y")->find("q")->scalar, "2");
  EXPECT_EQ(root.find("z")->scalar, "3");
  EXPECT_EQ(root.find("extends"), nullptr);
}

TEST(NodeExtends, ScalarReplacesMapAndMapReplacesScalar) {
  TempDir dir;
  dir.write("base.yaml", "a: {k: 1}\nb: 5\n");
  const std::string child = dir.write("child.yaml", "extends: base.yaml\na: 7\nb: {k: 2}\n");
  const Node root = load_with_extends(child);
  EXPECT_TRUE(root.find("a")->is_scalar());
  EXPECT_EQ(root.find("a")->scalar, "7");
  ASSERT_TRUE(root.find("b")->is_map());
  EXPECT_EQ(root.find("b")->find("k")->scalar, "2");
}

TEST(NodeExtends, EmptyParentGivesChild) {
  TempDir dir;
  dir.write("empty.yaml", "# nothing\n");
  const std::string child = dir.write("child.yaml", "extends: empty.yaml\na: 1\n");
  const Node root = load_with_extends(child);
  EXPECT_EQ(keys_of(root), (std::vector<std::string>{"a"}));
}

TEST(NodeExtends, NoExtendsIsPlainLoad) {
  TempDir dir;
  const std::string path = dir.write("plain.yaml", "a: 1\n");
  EXPECT_EQ(load_with_extends(path).find("a")->scalar, "1");
}

TEST(NodeExtends, MutualCycleRejected) {
  TempDir dir;
  const std::string a = dir.write("a.yaml", "extends: b.yaml\nx: 1\n");
  dir.write("b.yaml", "extends: a.yaml\ny: 1\n");
  const InputError e = input_error([&] { load_with_extends(a); });
  const std::string what = e.what();
  EXPECT_TRUE(contains(what, "cyclic extends")) << what;
  EXPECT_TRUE(contains(what, "b.yaml:1:10")) << what; // the `extends:` that closes the cycle
  EXPECT_EQ(e.key(), "extends");
}

TEST(NodeExtends, SelfExtendRejected) {
  TempDir dir;
  const std::string self = dir.write("self.yaml", "extends: self.yaml\n");
  const InputError e = input_error([&] { load_with_extends(self); });
  EXPECT_TRUE(contains(e.what(), "cyclic extends")) << e.what();
  EXPECT_TRUE(contains(e.what(), "self.yaml:1:10")) << e.what();
}

TEST(NodeExtends, SelfExtendThroughOtherSpellingRejected) {
  TempDir dir;
  const std::string self = dir.write("sub/self.yaml", "extends: ../sub/./self.yaml\n");
  const InputError e = input_error([&] { load_with_extends(self); });
  EXPECT_TRUE(contains(e.what(), "cyclic extends")) << e.what();
}

TEST(NodeExtends, MissingParentRejected) {
  TempDir dir;
  const std::string child = dir.write("child.yaml", "name: c\nextends: nope.yaml\n");
  const InputError e = input_error([&] { load_with_extends(child); });
  const std::string what = e.what();
  EXPECT_TRUE(contains(what, "does not exist")) << what;
  EXPECT_TRUE(contains(what, "nope.yaml")) << what;
  EXPECT_TRUE(contains(what, child + ":2:10")) << what;
}

TEST(NodeExtends, NonScalarExtendsRejected) {
  TempDir dir;
  const std::string child = dir.write("child.yaml", "extends: [a.yaml]\n");
  const InputError e = input_error([&] { load_with_extends(child); });
  EXPECT_TRUE(contains(e.what(), "expected a file name")) << e.what();
}

TEST(NodeExtends, TopLevelMustBeAMap) {
  TempDir dir;
  const std::string path = dir.write("list.yaml", "- 1\n- 2\n");
  const InputError e = input_error([&] { load_with_extends(path); });
  EXPECT_TRUE(contains(e.what(), "expected a map of settings at the top level, got a list"))
      << e.what();
}

TEST(NodeExtends, SixteenFilesAllowedSeventeenRejected) {
  TempDir dir;
  auto chain = [&](const std::string& prefix, int files) {
    for (int i = 0; i < files; ++i) {
      std::string text = "v" + std::to_string(i) + ": " + std::to_string(i) + "\n";
      if (i + 1 < files)
        text += "extends: " + prefix + std::to_string(i + 1) + ".yaml\n";
      dir.write(prefix + std::to_string(i) + ".yaml", text);
    }
    return (dir.path() / (prefix + "0.yaml")).string();
  };
  const Node ok = load_with_extends(chain("ok", 16));
  EXPECT_EQ(ok.entries.size(), 16u);
  EXPECT_EQ(ok.find("v15")->scalar, "15");
  const InputError e = input_error([&] { load_with_extends(chain("deep", 17)); });
  EXPECT_TRUE(contains(e.what(), "extends chain deeper than 16 files")) << e.what();
}

TEST(NodeOverride, ReplacesExistingValue) {
  Node root = parse_yaml_string("dma: {channels: 2, burst: 64B}\n", "t.yaml");
  apply_override(root, "dma.channels=4");
  const Node* channels = root.find("dma")->find("channels");
  ASSERT_NE(channels, nullptr);
  EXPECT_EQ(channels->scalar, "4");
  EXPECT_EQ(channels->loc.file, "--set dma.channels=4");
  EXPECT_EQ(root.find("dma")->find("burst")->scalar, "64B");
  EXPECT_EQ(keys_of(*root.find("dma")), (std::vector<std::string>{"channels", "burst"}));
}

TEST(NodeOverride, StarSetsTheKeyInEveryEntry) {
  Node root =
      parse_yaml_string("kernels:\n  a: {op: cycles, units: 4}\n  b: {op: matmul}\n", "t.yaml");
  apply_override(root, "kernels.*.units=8", "--tb-set");
  for (const char* k : {"a", "b"}) {
    const Node* units = root.find("kernels")->find(k)->find("units");
    ASSERT_NE(units, nullptr) << k;
    EXPECT_EQ(units->scalar, "8");
  }
  EXPECT_EQ(root.find("kernels")->find("a")->find("op")->scalar, "cycles");
  apply_override(root, "kernels.*={op: cycles}", "--tb-set"); // `*` last: every value
  EXPECT_EQ(root.find("kernels")->find("b")->find("op")->scalar, "cycles");
}

TEST(NodeOverride, StarThatMatchesNothingSaysSo) {
  Node root = parse_yaml_string("kernels: {}\nstreams: [s1]\nname: x\n", "t.yaml");
  std::string e =
      input_error([&] { apply_override(root, "kernels.*.units=8", "--tb-set"); }).what();
  EXPECT_EQ(e, "--tb-set kernels.*.units=8: error: kernels.*: '*' matches nothing: 'kernels' has "
               "no entries");
  e = input_error([&] { apply_override(root, "missing.*.units=8", "--tb-set"); }).what();
  EXPECT_TRUE(contains(e, "'*' matches nothing: 'missing' has no entries")) << e;
  e = input_error([&] { apply_override(root, "name.*=8", "--tb-set"); }).what();
  EXPECT_TRUE(contains(e, "name: is not a section, cannot set a key inside it")) << e;
}

TEST(NodeOverride, NumbersIndexListsAndStarCoversEveryItem) {
  Node root = parse_yaml_string(
      "program:\n  - repeat: {count: 25000, body: [{launch: {kernel: a}}]}\n  - sync: device\n"
      "streams: [s1, s2]\n",
      "t.yaml");
  apply_override(root, "program.0.repeat.count=1000", "--tb-set");
  const Node& repeat = *root.find("program")->items[0].find("repeat");
  EXPECT_EQ(repeat.find("count")->scalar, "1000");
  EXPECT_EQ(repeat.find("count")->loc.file, "--tb-set program.0.repeat.count=1000");
  apply_override(root, "program.0.repeat.body.0.launch.kernel=b", "--tb-set");
  EXPECT_EQ(repeat.find("body")->items[0].find("launch")->find("kernel")->scalar, "b");
  apply_override(root, "streams.*=s9", "--tb-set");
  for (const Node& stream : root.find("streams")->items)
    EXPECT_EQ(stream.scalar, "s9");
  EXPECT_EQ(root.find("program")->items[1].find("sync")->scalar, "device");

  std::string e = input_error([&] { apply_override(root, "program.2.x=1", "--tb-set"); }).what();
  EXPECT_EQ(e, "--tb-set program.2.x=1: error: program.2: index out of range: 'program' has 2 "
               "entries");
  e = input_error([&] { apply_override(root, "program.first.x=1", "--tb-set"); }).what();
  EXPECT_EQ(e, "--tb-set program.first.x=1: error: program.first: 'program' is a list: expected "
               "an index from 0 to 1 or '*'");
  e = input_error([&] { apply_override(root, "streams.0.name=x", "--tb-set"); }).what();
  EXPECT_TRUE(contains(e, "streams.0: is not a section, cannot set a key inside it")) << e;
}

TEST(NodeOverride, CreatesNestedMaps) {
  Node root = parse_yaml_string("name: x\n", "t.yaml");
  apply_override(root, "compute.array.rows=16");
  const Node* compute = root.find("compute");
  ASSERT_TRUE(compute && compute->is_map());
  const Node* array = compute->find("array");
  ASSERT_TRUE(array && array->is_map());
  EXPECT_EQ(array->find("rows")->scalar, "16");
  EXPECT_EQ(keys_of(root), (std::vector<std::string>{"name", "compute"}));
}

TEST(NodeOverride, NullRootBecomesMap) {
  Node root;
  apply_override(root, "scheduler.policy=affinity");
  ASSERT_TRUE(root.is_map());
  EXPECT_EQ(root.find("scheduler")->find("policy")->scalar, "affinity");
}

TEST(NodeOverride, ValueIsYaml) {
  Node root;
  apply_override(root, "compute.array={rows: 8, cols: 4}");
  const Node* array = root.find("compute")->find("array");
  ASSERT_TRUE(array && array->is_map());
  EXPECT_EQ(array->find("cols")->scalar, "4");
  apply_override(root, "list=[1, 2, 3]");
  ASSERT_TRUE(root.find("list")->is_seq());
  EXPECT_EQ(root.find("list")->items.size(), 3u);
  apply_override(root, "url=a=b");
  EXPECT_EQ(root.find("url")->scalar, "a=b"); // split at the first '='
}

// An empty section (`dma:` with every key commented out) reads as an empty map
// everywhere else, so an override must be able to set a key inside it.
TEST(NodeOverride, SetsKeyInsideEmptySection) {
  Node root = parse_yaml_string("name: x\ndma:\n", "t.yaml");
  ASSERT_TRUE(root.find("dma")->is_null());
  apply_override(root, "dma.channels=4");
  const Node* dma = root.find("dma");
  ASSERT_TRUE(dma && dma->is_map());
  ASSERT_NE(dma->find("channels"), nullptr);
  EXPECT_EQ(dma->find("channels")->scalar, "4");
}

TEST(NodeOverride, MissingEqualsRejected) {
  Node root;
  for (const char* bad : {"dma.channels", "=4"}) {
    const InputError e = input_error([&] { apply_override(root, bad); });
    EXPECT_TRUE(contains(e.what(), "expected key.path=value")) << e.what();
    EXPECT_TRUE(contains(e.what(), std::string("--set ") + bad)) << e.what();
  }
}

TEST(NodeOverride, InsideScalarRejected) {
  Node root = parse_yaml_string("dma: {channels: 2}\n", "t.yaml");
  const InputError e = input_error([&] { apply_override(root, "dma.channels.x=1"); });
  EXPECT_TRUE(contains(e.what(), "dma.channels: is not a section, cannot set a key inside it"))
      << e.what();
  EXPECT_EQ(root.find("dma")->find("channels")->scalar, "2");
}

TEST(NodeOverride, EmptyKeyRejected) {
  Node root;
  for (const char* bad : {"dma..x=1", "dma.=1", ".x=1"}) {
    const InputError e = input_error([&] { apply_override(root, bad); });
    EXPECT_TRUE(contains(e.what(), "empty key in path")) << bad << ": " << e.what();
  }
}

TEST(NodeOverride, BadValueYamlRejected) {
  Node root;
  const InputError e = input_error([&] { apply_override(root, "a=[1, 2"); });
  EXPECT_TRUE(contains(e.what(), "invalid YAML")) << e.what();
  EXPECT_TRUE(contains(e.what(), "--set a=[1, 2")) << e.what();
}

TEST(SourceLocAndError, Formatting) {
  EXPECT_EQ((SourceLoc{"f.yaml", 3, 7}).str(), "f.yaml:3:7");
  EXPECT_EQ((SourceLoc{"f.yaml", 0, 0}).str(), "f.yaml");
  EXPECT_EQ(SourceLoc{}.str(), "");
  const InputError e(SourceLoc{"f.yaml", 3, 7}, "dma.channels", "must be at least 1");
  EXPECT_STREQ(e.what(), "f.yaml:3:7: error: dma.channels: must be at least 1");
  EXPECT_EQ(e.key(), "dma.channels");
  EXPECT_EQ(e.loc().line, 3);
  EXPECT_STREQ(InputError("plain").what(), "error: plain");
}

} // namespace
} // namespace npu::cfg
