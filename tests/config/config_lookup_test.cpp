// Configs by name: `--config edge-npu` finds the file from where the executable is, not
// from the working directory; paths keep working as given.
#include "platform/config_lookup.h"
#include "test_util.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace npu {
namespace {

namespace fs = std::filesystem;
using test::contains;
using test::input_error;
using test::TempDir;

const fs::path kSourceConfigs = fs::path(NPU_SOURCE_DIR) / "configs";

// This binary runs from the build tree, so names resolve in the source tree's configs/.
TEST(ConfigLookup, NameWithOrWithoutSuffixFindsTheSourceTreesConfig) {
  const std::string expected = fs::canonical(kSourceConfigs / "edge-npu.yaml").string();
  EXPECT_EQ(find_config("edge-npu"), expected);
  EXPECT_EQ(find_config("edge-npu.yaml"), expected);
  EXPECT_EQ(find_config("datacenter-npu"),
            fs::canonical(kSourceConfigs / "datacenter-npu.yaml").string());
}

TEST(ConfigLookup, PathsAreTakenAsGiven) {
  EXPECT_EQ(find_config("configs/edge-npu.yaml"), "configs/edge-npu.yaml");
  EXPECT_EQ(find_config("no/such/file.yaml"), "no/such/file.yaml"); // its reader says so
  EXPECT_EQ(find_config(""), "");
}

TEST(ConfigLookup, AFileInTheWorkingDirectoryWinsOverAName) {
  const TempDir dir;
  dir.write("edge-npu.yaml", "name: mine\n");
  const fs::path before = fs::current_path();
  fs::current_path(dir.path());
  const std::string found = find_config("edge-npu.yaml");
  fs::current_path(before);
  EXPECT_EQ(found, "edge-npu.yaml");
}

TEST(ConfigLookup, ThePackageFolderComesBeforeTheSourceTree) {
  const TempDir dir;
  const std::string mine = dir.write("configs/edge-npu.yaml", "name: mine\n");
  dir.write("configs/only-here.yaml", "name: only-here\n");
  EXPECT_EQ(find_config("edge-npu", dir.path().string()), fs::canonical(mine).string());
  EXPECT_EQ(find_config("datacenter-gpu", dir.path().string()),
            fs::canonical(kSourceConfigs / "datacenter-gpu.yaml").string());
  EXPECT_EQ(config_names(dir.path().string()),
            (std::vector<std::string>{"datacenter-gpu", "datacenter-npu", "edge-npu", "only-here",
                                      "tpu-v3-core"}));
}

TEST(ConfigLookup, AnUnknownNameListsTheConfigsAndGuesses) {
  const InputError e = input_error([] { find_config("edge-npux"); });
  EXPECT_EQ(std::string(e.what()),
            "--config edge-npux: error: no such file, and no config of that name; expected a "
            "path or one of datacenter-gpu, datacenter-npu, edge-npu, tpu-v3-core (the configs "
            "in " +
                fs::canonical(kSourceConfigs).string() + "); did you mean 'edge-npu'?");
  const InputError far = input_error([] { find_config("tpu"); });
  EXPECT_FALSE(contains(far.what(), "did you mean")) << far.what();
  EXPECT_TRUE(contains(far.what(), "one of datacenter-gpu, datacenter-npu, edge-npu, tpu-v3-core"))
      << far.what();
}

} // namespace
} // namespace npu
