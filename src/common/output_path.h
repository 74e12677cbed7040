#pragma once

#include "common/file_identity.h"

#include <string>
#include <vector>

namespace npu {

/// One output of a run (`--out DIR`, `--trace FILE`): checked before the run starts,
/// published only once complete, never left half-written.
///
/// A file goes to a temporary sibling that commit() renames over the target, so that a
/// reader never sees part of it; a character device or a FIFO (/dev/null, a pipe) is
/// written directly instead, and nothing is renamed. A directory is created whole by one
/// rename, or, when it already exists, has its files replaced one by one. A symbolic link
/// is followed to what it names. Anything else is refused with an InputError (exit 2)
/// before the run: an empty path, a missing parent folder, a dangling link, a directory
/// where a file is expected and the reverse, a block device or socket, a name too long.
///
/// An output that resolves to an input of the command (see file_identity.h) is refused
/// before anything is written: for a directory, each of the files it will hold (`names`).
///
/// While it lives the output is locked (TARGET.lock beside it, removed afterwards): a
/// second run writing the same target at the same time is refused. The temporary
/// siblings that earlier runs left when they were killed outright are removed.
class OutputPath {
public:
  enum class Kind { File, Dir };

  /// `option` names the output in messages ("--out", "--trace"); `names` are the files a
  /// directory will hold.
  OutputPath(std::string option, const std::string& path, Kind kind,
             const std::vector<std::string>& names = {});
  ~OutputPath();
  OutputPath(const OutputPath&) = delete;
  OutputPath& operator=(const OutputPath&) = delete;

  /// Where the output appears (a symbolic link resolved).
  const std::string& target() const { return m_target; }
  /// Written in place: a character device or a FIFO.
  bool direct() const { return m_direct; }
  /// The temporary file or directory the output is written into before commit(); the
  /// target itself for a direct output.
  const std::string& work_path() const { return m_direct ? m_target : m_temp; }

  /// Opens the file to write (the temporary one, or the device or FIFO): a file
  /// descriptor. A FIFO without a reader is refused rather than waited on.
  int open_file() const;

  /// Throws an InputError when DIR/name exists and is not a file that may be replaced.
  void check_replaceable(const std::vector<std::string>& names) const;

  /// Publishes the output: the temporary file or directory becomes the target (for an
  /// existing directory, `names` are moved into it one by one). Throws OutputError.
  void commit(const std::vector<std::string>& names = {});

  /// Removes what writers of `target` that were killed outright left beside it: their
  /// temporary siblings, and its lock file when no one holds it.
  static void remove_leftovers(const std::string& target);

  /// A sibling of `path` named after it with `suffix` (at most 32 bytes): "out" ->
  /// "out.lock"; a name too long for NAME_MAX with the suffix is cut and given a hash.
  static std::string sibling(const std::string& path, const std::string& suffix);

private:
  [[noreturn]] void refuse(const std::string& message) const;
  void resolve(const std::string& path);
  void lock();
  void unlock();
  void make_temp();
  void claim(const std::string& path, const std::vector<std::string>& names);

  std::string m_option;
  Kind m_kind;
  std::string m_target;
  std::string m_temp;
  std::string m_lock_path;
  int m_lock_fd = -1;
  bool m_direct = false;
  bool m_existed = false;
  bool m_committed = false;
  std::vector<OutputClaim> m_claims; ///< the files written, kept apart from the inputs
};

} // namespace npu
