#pragma once
// `npusim import`: an ONNX model as a testbench (one kernel per compute node, buffers
// for weights and activations, the launches in topological order).

#include <cstdint>
#include <string>
#include <vector>

namespace npu::onnx_import {

enum class Fuse { None, Elementwise };
/// What an op without a mapping becomes: a vector pass over its elements (the default, with
/// a warning listing such ops), a copy, or an error.
enum class Unsupported { Vector, Memcpy, Error };

struct ImportOptions {
  uint64_t batch = 0; ///< binds the first dimension of every input; 0: as the model says
  std::string dtype = "int8";
  Fuse fuse = Fuse::None;          ///< Elementwise: an elementwise node joins its producer's kernel
  uint32_t streams = 1;            ///< independent branches go to different streams
  std::string name;                ///< the testbench's name; empty: the model file's stem
  std::vector<std::string> dims;   ///< NAME=VALUE: a symbolic dimension's value
  std::vector<std::string> shapes; ///< INPUT=1x3x224x224: an input's whole shape
  Unsupported unsupported = Unsupported::Vector;
};

struct ImportResult {
  std::string yaml;
  uint64_t macs = 0;
  size_t nodes = 0;                  ///< nodes of the graph
  size_t kernels = 0;                ///< kernels launched
  size_t copies = 0;                 ///< device-to-device memcpys (data movement)
  std::vector<std::string> warnings; ///< sentences (unbound dimensions, ops without mapping)
};

/// Reads `model_path` and writes the testbench. Throws InputError (exit 2) for a file that
/// is not ONNX, a graph it cannot map, or options that do not fit the model.
ImportResult import_onnx(const std::string& model_path, const ImportOptions& options);
/// The same for a model's bytes; `origin` names it in messages and the testbench.
ImportResult import_onnx_bytes(const std::string& bytes, const std::string& origin,
                               const ImportOptions& options);

} // namespace npu::onnx_import
