#pragma once

#include "config/section.h"
#include "models/common/energy_params.h"

#include <string>

namespace npu {

struct PlatformConfig;

/// Reads the top-level `technology` and `energy` sections of `top` into every block's
/// energy parameters; defaults (models/common/energy_params.h) are scaled to the
/// technology, values a config gives are taken as they are. Throws InputError.
void read_energy_config(cfg::Section& top, PlatformConfig& config);

/// "defaults (45 nm, 0.9 V)" or "7 nm, 0.75 V": what the energy figures assume.
std::string describe_technology(const Technology& technology);

} // namespace npu
