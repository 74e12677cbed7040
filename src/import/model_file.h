#pragma once
// Reading an ONNX model without its weights' bytes: the protobuf is streamed and every
// tensor's payload above a few KiB is skipped (its dims and type stay), so a model of
// gigabytes imports in the memory of its graph. Small tensors (shape constants) keep their
// data for folding.

#include <cstdint>
#include <string>

namespace npu::onnx_import {

/// The largest model file npusim imports: 4 GiB (weights in the file; larger models keep
/// their weights in external data files beside the model, which are never read).
inline constexpr uint64_t kMaxModelBytes = uint64_t{4} << 30;

/// Tensor payloads (raw_data, float_data, ...) up to this many bytes are kept.
inline constexpr uint64_t kKeptPayloadBytes = 4096;

/// The model file `path` as protobuf bytes with large tensor payloads left out. Throws
/// InputError (at the file) for a file that is not a regular file, is over
/// kMaxModelBytes, or is not a well-formed protobuf.
std::string read_model_file(const std::string& path);

/// The same for a model already in memory; `origin` names it in messages.
std::string strip_model_bytes(const std::string& bytes, const std::string& origin);

} // namespace npu::onnx_import
