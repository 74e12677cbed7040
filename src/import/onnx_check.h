#pragma once
// Checks of an ONNX model before anything computes with it (ONNX's own shape inference
// divides by strides and multiplies dimensions): single assignment of every name across
// the graph and its subgraphs, graph inputs and initializers declared once, attributes
// within their operator's specification, external data locations inside the model's
// folder. Errors name the node, its op, the attribute and its value.

#include <onnx/onnx_pb.h>

#include <string>

namespace npu::onnx_import {

/// Throws InputError at `path` for the first problem found.
void check_model(const onnx::ModelProto& model, const std::string& path);

/// "node 'conv1' (Conv, node 3 of 120)" for node `index` of `graph`, its name escaped;
/// `where` (may be empty) follows: ", in the then_branch of ...".
std::string describe_node(const onnx::GraphProto& graph, int index, const std::string& where);

} // namespace npu::onnx_import
