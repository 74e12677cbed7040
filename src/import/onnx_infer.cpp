#include "import/onnx_infer.h"

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <deque>
#include <stdexcept>
#include <unordered_map>

namespace npu::onnx_import {

namespace si = onnx::shape_inference;

namespace {

std::unordered_map<std::string, int> opsets_of(const onnx::ModelProto& model) {
  std::unordered_map<std::string, int> opsets;
  for (const auto& o : model.opset_import())
    opsets[o.domain()] = static_cast<int>(o.version());
  return opsets;
}

} // namespace

struct NodeInference::Impl {
  explicit Impl(const onnx::ModelProto& model);

  int opset(const std::string& domain) const;
  void update(const std::string& name, onnx::TypeProto* inferred);
  void run_inference(const onnx::OpSchema& schema, onnx::NodeProto& node);
  bool inputs_typed(const onnx::NodeProto& node) const;

  std::unordered_map<std::string, int> opsets;
  int ir_version = 0;
  std::deque<onnx::TypeProto> owned; ///< the types below point here (stable addresses)
  std::unordered_map<std::string, onnx::TypeProto*> types;
  std::unordered_map<std::string, const onnx::TensorProto*> data;
  std::unordered_map<std::string, const onnx::SparseTensorProto*> sparse;
  std::unordered_map<std::string, onnx::TensorShapeProto> generated; ///< data propagation
  si::SymbolTableImpl symbols;
  si::ModelLocalFunctionsMap functions;
  onnx::ShapeInferenceOptions options{false, 0, true};
  const onnx::ISchemaRegistry* registry = onnx::OpSchemaRegistry::Instance();
  si::GraphInferenceContext graphs; ///< for the subgraphs of If, Loop, Scan
};

NodeInference::Impl::Impl(const onnx::ModelProto& model)
    : opsets(opsets_of(model)), ir_version(static_cast<int>(model.ir_version())),
      graphs(types, opsets, &symbols, functions, registry, &generated, ir_version) {
  for (const auto& f : model.functions())
    functions[f.domain() + ":" + f.name()] = &f;
  si::TraverseGraphsToAddExistingSymbols(model.graph(), symbols);
  for (const auto* list : {&model.graph().input(), &model.graph().output()})
    for (const auto& v : *list)
      if (v.has_type()) {
        owned.push_back(v.type());
        types[v.name()] = &owned.back();
      }
}

int NodeInference::Impl::opset(const std::string& domain) const {
  auto it = opsets.find(domain);
  if (it == opsets.end() && domain.empty())
    it = opsets.find("ai.onnx");
  return it == opsets.end() ? -1 : it->second;
}

// ONNX's merge of an inferred type into what is known of the tensor.
void NodeInference::Impl::update(const std::string& name, onnx::TypeProto* inferred) {
  if (inferred->value_case() == onnx::TypeProto::VALUE_NOT_SET)
    return;
  si::MaterializeSymbolicShape(inferred, symbols);
  onnx::TypeProto*& existing = types[name];
  if (!existing) {
    owned.emplace_back();
    existing = &owned.back();
  }
  si::mergeShapesAndTypes(*inferred, existing);
}

bool NodeInference::Impl::inputs_typed(const onnx::NodeProto& node) const {
  for (const auto& name : node.input()) {
    if (name.empty())
      continue;
    const auto it = types.find(name);
    if (it == types.end() || !it->second ||
        it->second->value_case() == onnx::TypeProto::VALUE_NOT_SET)
      return false;
  }
  return true;
}

void NodeInference::Impl::run_inference(const onnx::OpSchema& schema, onnx::NodeProto& node) {
  si::InferenceContextImpl ctx(node, types, data, sparse, &generated, &graphs);
  try {
    if (schema.has_type_and_shape_inference_function())
      schema.GetTypeAndShapeInferenceFunction()(ctx);
    else if (schema.HasFunction())
      si::InferShapeForFunctionNode(*schema.GetFunction(), registry, ctx, options, functions,
                                    &symbols, &generated);
    else
      return;
  } catch (const onnx::InferenceError&) {
    return; // as ONNX's error mode 0: the node's outputs stay unknown
  }
  try {
    for (int i = 0; i < node.output_size(); ++i)
      if (!node.output(i).empty())
        update(node.output(i), ctx.getOutputType(static_cast<size_t>(i)));
    // A data propagation function takes its inputs' types as known (ONNX runs it over a
    // graph whose every tensor has one); with one missing it would read through null.
    if (schema.has_data_propagation_function() && inputs_typed(node)) {
      si::DataPropagationContextImpl propagation(node, types, data, generated);
      schema.GetDataPropagationFunction()(propagation);
    }
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(si::GetErrorWithNodeInfo(node, e));
  }
}

NodeInference::NodeInference(const onnx::ModelProto& model) : m(std::make_unique<Impl>(model)) {}

NodeInference::~NodeInference() = default;

void NodeInference::constant(const onnx::TensorProto& tensor) {
  m->data[tensor.name()] = &tensor;
  if (m->types.count(tensor.name()))
    return; // a graph input of that name: its declared type wins, as in ONNX
  onnx::TypeProto type;
  auto* t = type.mutable_tensor_type();
  t->set_elem_type(tensor.data_type());
  auto* shape = t->mutable_shape();
  for (const int64_t d : tensor.dims())
    shape->add_dim()->set_dim_value(d);
  m->owned.push_back(std::move(type));
  m->types[tensor.name()] = &m->owned.back();
}

void NodeInference::infer(onnx::NodeProto& node) {
  const int version = m->opset(node.domain());
  if (version < 0)
    return;
  if (node.op_type() == "Constant" && node.output_size() == 1) {
    for (const auto& a : node.attribute()) {
      if (a.name() == "value" && a.type() == onnx::AttributeProto::TENSOR && a.has_t())
        m->data[node.output(0)] = &a.t();
      else if (a.name() == "value" && a.has_sparse_tensor())
        m->sparse[node.output(0)] = &a.sparse_tensor();
    }
  }
  const auto* schema = m->registry->GetSchema(node.op_type(), version, node.domain());
  if (schema)
    m->run_inference(*schema, node);
}

void NodeInference::learn(const std::string& name, const onnx::TypeProto& type) {
  onnx::TypeProto copy = type;
  m->update(name, &copy);
}

const onnx::TypeProto* NodeInference::type(const std::string& name) const {
  const auto it = m->types.find(name);
  return it == m->types.end() ? nullptr : it->second;
}

} // namespace npu::onnx_import
