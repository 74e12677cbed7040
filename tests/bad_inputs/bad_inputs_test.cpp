// The bad-input corpus: each malformed config, testbench or trace must stop npusim with exit
// code 2 and exactly the error line in its FILE.expected, and leave no output behind.
//
// tests/bad_inputs/KIND/command holds the command line for its folder, with {input} (the
// case's path from the source tree) and {out} (an output directory that must stay absent).
// FILE.args, when present, adds arguments for one case.
#include "tests/integration/cli_helpers.h"

#include <algorithm>

namespace npu::test {
namespace {

struct Case {
  std::string folder; ///< tests/bad_inputs/KIND
  std::string input;  ///< tests/bad_inputs/KIND/FILE
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.input;
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
    text.pop_back();
  return text;
}

std::vector<Case> find_cases() {
  std::vector<Case> cases;
  const fs::path root = fs::path(kSource) / "tests" / "bad_inputs";
  for (const auto& kind : fs::directory_iterator(root)) {
    if (!fs::exists(kind.path() / "command"))
      continue;
    const std::string folder = "tests/bad_inputs/" + kind.path().filename().string();
    for (const auto& file : fs::directory_iterator(kind.path())) {
      const std::string name = file.path().filename().string();
      if (file.is_regular_file() && fs::exists(file.path().string() + ".expected"))
        cases.push_back({folder, folder + "/" + name});
    }
  }
  std::sort(cases.begin(), cases.end(),
            [](const Case& a, const Case& b) { return a.input < b.input; });
  return cases;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

class BadInputTest : public ScratchDirTest, public ::testing::WithParamInterface<Case> {};

TEST_P(BadInputTest, ExitsTwoWithTheExpectedLineAndWritesNothing) {
  const Case& c = GetParam();
  const fs::path source(kSource);
  std::string command = trimmed(slurp(source / c.folder / "command"));
  command = replace_all(command, "{input}", c.input);
  command = replace_all(command, "{out}", (m_dir / "out").string());
  if (fs::exists(source / (c.input + ".args")))
    command += " " + trimmed(slurp(source / (c.input + ".args")));
  // A hang is a failure too: a case gets 60 s.
  const Result r = run_command("timeout 60 " + kBinary + " " + command);
  EXPECT_EQ(r.code, 2) << command << "\n" << r.err;
  EXPECT_EQ(r.err, slurp(source / (c.input + ".expected"))) << command;
  EXPECT_EQ(r.out, "");
  // Nothing but the captured stdout and stderr: no output directory, no temporary one.
  for (const auto& entry : fs::directory_iterator(m_dir)) {
    const std::string name = entry.path().filename().string();
    EXPECT_TRUE(name == "stdout.txt" || name == "stderr.txt") << "left behind: " << name;
  }
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name = info.param.input.substr(std::string("tests/bad_inputs/").size());
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)))
      ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Corpus, BadInputTest, ::testing::ValuesIn(find_cases()), case_name);

TEST(BadInputCorpus, HasConfigsTestbenchesAndTracesSixtyInAll) {
  const std::vector<Case> cases = find_cases();
  EXPECT_GE(cases.size(), 60u);
  for (const char* kind : {"config", "testbench", "trace"})
    EXPECT_GE(std::count_if(cases.begin(), cases.end(),
                            [&](const Case& c) {
                              return c.folder == std::string("tests/bad_inputs/") + kind;
                            }),
              10)
        << kind;
}

} // namespace
} // namespace npu::test
