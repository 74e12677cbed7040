#pragma once
// Where npusim's data lives (configs/, scripts/): found from the running executable, so
// that no lookup depends on the working directory.

#include <string>
#include <vector>

namespace npu {

/// Folders holding npusim's configs/ and scripts/, in the order they are searched: the
/// installed share folder beside the running executable (BIN/../share/npusim), then
/// `package_dir` (the share folder of the installed package a host program was built
/// against; may be empty), then the source tree when the executable runs from the build
/// tree. Only folders that exist, each once.
std::vector<std::string> data_dirs(const std::string& package_dir = {});

} // namespace npu
