#pragma once

#include <string>
#include <vector>

namespace npu {

/// The config file that `name` (a --config value) stands for. A path where something
/// exists, or any name with a '/', is taken as given. Otherwise `name` is a config's name,
/// with or without .yaml: DIR/configs/NAME.yaml in the first of data_dirs(package_dir)
/// that has it. A name that matches nothing throws InputError listing the configs there
/// are.
std::string find_config(const std::string& name, const std::string& package_dir = {});

/// Names of the configs in data_dirs(package_dir) (file names without .yaml), sorted.
std::vector<std::string> config_names(const std::string& package_dir = {});

} // namespace npu
