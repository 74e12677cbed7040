#pragma once
// What a command reads and what it writes, so that no output ever replaces an input.
//
// Every file read through read_input_file() is recorded as an input of the command, with
// its device and inode and its real path; a caller may name its role ("the testbench").
// Before an output is written, check_output() refuses it when it resolves to one of the
// inputs (the same device and inode, or, for a file not yet there, the same real path),
// or to a file another output of the same command writes.

#include <string>
#include <vector>

namespace npu {

/// Records `path` as an input of the command, as `role` ("the testbench", "a YAML file"). A
/// file recorded before takes the new role unless `keep_role`. A path that does not exist is
/// not recorded (reading it fails on its own).
void note_input(const std::string& path, const std::string& role, bool keep_role = false);

/// A file the command is about to write, claimed for as long as this object lives.
class OutputClaim {
public:
  OutputClaim() = default;
  /// Throws InputError at `option` when `path` is one of the command's inputs or a file
  /// another of its outputs claims, naming both (the output as `shown`, by default `path`);
  /// else claims it for `option`.
  OutputClaim(const std::string& option, const std::string& path, const std::string& shown = {});
  ~OutputClaim();
  OutputClaim(OutputClaim&& other) noexcept;
  OutputClaim& operator=(OutputClaim&& other) noexcept;
  OutputClaim(const OutputClaim&) = delete;
  OutputClaim& operator=(const OutputClaim&) = delete;

private:
  unsigned long m_id = 0; ///< 0: nothing claimed
};

/// Throws InputError at `option` when an input of the command lies inside `folder`, which
/// the command replaces or empties (a sweep's points/ folder).
void check_no_input_inside(const std::string& option, const std::string& folder);

/// The files recorded so far as inputs: their paths as first given.
std::vector<std::string> recorded_inputs();

/// A fresh record of inputs and outputs for one command, for a process that runs many
/// (the Python module): the record before it comes back when the scope ends.
class FileIdentityScope {
public:
  FileIdentityScope();
  ~FileIdentityScope();
  FileIdentityScope(const FileIdentityScope&) = delete;
  FileIdentityScope& operator=(const FileIdentityScope&) = delete;

private:
  void* m_saved;
};

} // namespace npu
