#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace npu {

/// Where a value came from: a file position (1-based) or a command-line option.
struct SourceLoc {
  std::string file; ///< file path, or "--set" for a command-line override
  int line = 0;     ///< 0 when there is no position
  int column = 0;

  /// "file:line:col", "file" or "" depending on what is known.
  std::string str() const;
};

/// A problem with user input (config, testbench, command line). The CLI prints
/// what() as one line and exits with code 2.
class InputError : public std::runtime_error {
public:
  /// `key` is the dotted key path, may be empty.
  InputError(const SourceLoc& loc, const std::string& key, const std::string& message);
  explicit InputError(const std::string& message);

  const SourceLoc& loc() const { return m_loc; }
  const std::string& key() const { return m_key; }

private:
  SourceLoc m_loc;
  std::string m_key;
};

/// A workload that cannot proceed in simulation (deadlock, access to an unmapped
/// address, out of device memory). Caused by the input, so also exit code 2.
class SimulationError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// An output that could not be written although its path was fine when the run began (a
/// full disk, an I/O error): the system's fault, not the input's. The CLI prints what() as
/// one "npusim: error: ..." line and exits with code 1.
class OutputError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Closest candidate to `word` by edit distance, or "" when none is close enough.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

} // namespace npu
