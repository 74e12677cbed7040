// What a command reads and writes: an output that is one of its inputs (by inode, or by real
// path when it does not exist yet) is refused before anything is written.
#include "common/file_identity.h"
#include "common/input_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace npu {
namespace {

namespace fs = std::filesystem;

class FileIdentityTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("npusim-identity-" + std::to_string(::getpid()));
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
    std::ofstream(m_dir / "tb.yaml") << "name: t\n";
  }
  void TearDown() override { fs::remove_all(m_dir); }

  std::string path(const std::string& name) const { return (m_dir / name).string(); }

  // The message of the InputError that claiming `output` throws, or "" when it is allowed.
  static std::string refusal(const std::string& output) {
    try {
      const OutputClaim claim("--trace", output);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }

  fs::path m_dir;
  FileIdentityScope m_scope; // a fresh record per test
};

TEST_F(FileIdentityTest, AFileReadIsAnInputAndCannotBeWritten) {
  read_input_file(path("tb.yaml"), "a YAML file");
  note_input(path("tb.yaml"), "the testbench");
  const std::string message = refusal(path("tb.yaml"));
  EXPECT_NE(message.find("--trace: error: '" + path("tb.yaml") + "' is the input '" +
                         path("tb.yaml") + "' (the testbench)"),
            std::string::npos)
      << message;
  EXPECT_EQ(refusal(path("other.json")), "");
}

TEST_F(FileIdentityTest, ALaterGenericReadKeepsTheRole) {
  note_input(path("tb.yaml"), "the testbench");
  read_input_file(path("tb.yaml"), "a YAML file");
  EXPECT_NE(refusal(path("tb.yaml")).find("(the testbench)"), std::string::npos);
}

TEST_F(FileIdentityTest, LinksAndOtherSpellingsAreTheSameFile) {
  note_input(path("tb.yaml"), "the testbench");
  fs::create_symlink(path("tb.yaml"), path("link.yaml"));
  fs::create_hard_link(path("tb.yaml"), path("hard.yaml"));
  fs::create_directories(m_dir / "sub");
  for (const std::string& other :
       {path("link.yaml"), path("hard.yaml"), path("sub/../tb.yaml"), path("./tb.yaml")})
    EXPECT_NE(refusal(other), "") << other;
}

TEST_F(FileIdentityTest, AnInputReachedThroughALinkIsKnownByItsTarget) {
  fs::create_symlink(path("tb.yaml"), path("link.yaml"));
  note_input(path("link.yaml"), "the testbench");
  EXPECT_NE(refusal(path("tb.yaml")), "");
}

TEST_F(FileIdentityTest, AMissingFileIsNoInput) {
  note_input(path("missing.yaml"), "the testbench");
  EXPECT_EQ(refusal(path("missing.yaml")), "");
  EXPECT_TRUE(recorded_inputs().empty());
}

TEST_F(FileIdentityTest, TwoOutputsOfOneFileAreRefusedWhileBothLive) {
  {
    const OutputClaim first("--out", path("out/launches.csv"));
    const std::string message = refusal(path("out/launches.csv"));
    EXPECT_NE(message.find("is also written by --out"), std::string::npos) << message;
  }
  EXPECT_EQ(refusal(path("out/launches.csv")), ""); // the first claim has ended
}

TEST_F(FileIdentityTest, AFolderThatHoldsAnInputIsRefused) {
  fs::create_directories(m_dir / "points" / "0000");
  std::ofstream(m_dir / "points" / "0000" / "cfg.yaml") << "name: c\n";
  note_input(path("points/0000/cfg.yaml"), "the config");
  EXPECT_THROW(check_no_input_inside("--out", path("points")), InputError);
  EXPECT_NO_THROW(check_no_input_inside("--out", path("poin")));
  EXPECT_NO_THROW(check_no_input_inside("--out", path("points/0001")));
}

TEST_F(FileIdentityTest, AScopeStartsAfreshAndGivesTheOldRecordBack) {
  note_input(path("tb.yaml"), "the testbench");
  {
    const FileIdentityScope inner;
    EXPECT_EQ(refusal(path("tb.yaml")), "");
  }
  EXPECT_NE(refusal(path("tb.yaml")), "");
}

} // namespace
} // namespace npu
