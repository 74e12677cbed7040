// The bad-input corpus: each malformed config, testbench or trace must stop npusim with exit
// code 2 and exactly the error line in its FILE.expected, and leave no output behind.
//
// tests/bad_inputs/KIND/command holds the command line for its folder, with {input} (the
// case's path from the source tree) and {out} (an output directory that must stay absent).
// FILE.args, when present, adds arguments for one case; FILE.command replaces the folder's
// command line for one case. Two more placeholders put the case into a scratch folder
// first: {copy} is a copy of it (which must come out unchanged: an input npusim must not
// overwrite), {dir:NAME} a folder holding it as NAME (a report folder, a sweep directory).
// The scratch folder's path reads {scratch} in FILE.expected.
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

// The command line of a case, its placeholders filled; copies the case where they ask,
// into scratch/in, and counts the copies in `copies`.
std::string command_of(const Case& c, const fs::path& scratch, size_t& copies) {
  const fs::path source(kSource);
  const fs::path own = source / (c.input + ".command");
  std::string command = trimmed(slurp(fs::exists(own) ? own : source / c.folder / "command"));
  if (fs::exists(source / (c.input + ".args")))
    command += " " + trimmed(slurp(source / (c.input + ".args")));
  const fs::path in = scratch / "in";
  const auto copy_as = [&](const std::string& name) {
    fs::create_directories(in);
    if (!fs::exists(in / name)) {
      fs::copy_file(source / c.input, in / name);
      ++copies;
    }
  };
  const std::string name = fs::path(c.input).filename().string();
  if (command.find("{copy}") != std::string::npos) {
    copy_as(name);
    command = replace_all(command, "{copy}", (in / name).string());
  }
  for (size_t at = command.find("{dir:"); at != std::string::npos; at = command.find("{dir:")) {
    const size_t end = command.find('}', at);
    copy_as(command.substr(at + 5, end - at - 5));
    command.replace(at, end - at + 1, in.string());
  }
  command = replace_all(command, "{input}", c.input);
  return replace_all(command, "{out}", (scratch / "out").string());
}

TEST_P(BadInputTest, ExitsTwoWithTheExpectedLineAndWritesNothing) {
  const Case& c = GetParam();
  const fs::path source(kSource);
  size_t copies = 0;
  const std::string command = command_of(c, m_dir, copies);
  // A hang is a failure too: a case gets 60 s.
  const Result r = run_command("timeout 60 " + kBinary + " " + command);
  EXPECT_EQ(r.code, 2) << command << "\n" << r.err;
  EXPECT_EQ(replace_all(r.err, m_dir.string(), "{scratch}"),
            slurp(source / (c.input + ".expected")))
      << command;
  EXPECT_EQ(r.out, "");
  // Nothing but the captured stdout and stderr (and the case's copies): no output
  // directory, no temporary one.
  for (const auto& entry : fs::directory_iterator(m_dir)) {
    const std::string entry_name = entry.path().filename().string();
    EXPECT_TRUE(entry_name == "stdout.txt" || entry_name == "stderr.txt" ||
                (entry_name == "in" && copies > 0))
        << "left behind: " << entry_name;
  }
  // The copies are inputs: each comes out as it went in, and nothing joins them.
  if (copies == 0)
    return;
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(m_dir / "in")) {
    ++files;
    EXPECT_TRUE(entry.is_regular_file()) << entry.path();
    EXPECT_EQ(slurp(entry.path()), slurp(source / c.input)) << entry.path() << " was overwritten";
  }
  EXPECT_EQ(files, copies);
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
