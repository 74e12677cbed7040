#pragma once

#include <filesystem>
#include <string>

// Publishing an output whole: what npusim writes goes to a temporary name first, and one
// rename makes it appear, so that a reader sees the old output or the whole new one.
namespace npu {

/// Renames `temp` over `target` in one step while the temporary outputs are locked (see
/// lock_temp_outputs in interrupt.h: an interrupt removes the temporary or nothing).
/// `replace_dir`: a directory at `target` is removed first. Returns 0, or the errno of the
/// rename that failed.
int publish_rename(const std::filesystem::path& temp, const std::filesystem::path& target,
                   bool replace_dir = false);

/// Writes `content` to `path` through a temporary sibling and publish_rename; `sync` first
/// flushes it to disk (off for files that a rerun can make again). Throws
/// std::runtime_error naming the file.
void write_file_atomically(const std::filesystem::path& path, const std::string& content,
                           bool sync = true);

} // namespace npu
