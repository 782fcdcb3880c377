#include "onnx/lowering.h"

#include <onnx/defs/parser.h>

#include <unordered_map>

#include "ir/ir_util.h"
#include "xport/core/error.h"
#include "xport/onnx/onnx.h"
#include "xport/tensor/result_type.h"

namespace xport::onnx {
namespace {

const ir::Argument& arg_of(const ir::Node& node, const char* name) { return node.arg(name); }

std::string node_label(const ir::Node& node) {
  std::string label = node.op()->qualified_name + " (node %" + node.name();
  if (!node.meta().source.empty()) label += " at " + node.meta().source;
  return label + ")";
}

}  // namespace

std::vector<int64_t> per_dim(const NodeLowering& n, const char* name, size_t count) {
  std::vector<int64_t> v = n.integers(name);
  if (v.size() == 1 && count > 1) v.assign(count, v[0]);
  return v;
}

std::vector<int64_t> twice(const std::vector<int64_t>& v) {
  std::vector<int64_t> out = v;
  out.insert(out.end(), v.begin(), v.end());
  return out;
}

void NodeLowering::refuse(const std::string& why) const {
  XPORT_FAIL(UnsupportedOp, "onnx: ", node_label(node_), ": ", why);
}

const std::string& NodeLowering::tensor(const char* name) const {
  const ir::Argument& a = arg_of(node_, name);
  const auto* ref = std::get_if<ir::ValueRef>(&a.value);
  if (ref == nullptr) refuse(std::string("argument '") + name + "' is not a tensor");
  return g.value(*ref);
}

const ir::TensorSpec& NodeLowering::spec(const char* name) const {
  const auto& ref = std::get<ir::ValueRef>(arg_of(node_, name).value);
  return ref.node->outputs().at(static_cast<size_t>(ref.index));
}

std::vector<std::string> NodeLowering::tensors(const char* name) const {
  std::vector<std::string> out;
  for (const ir::Argument& a : std::get<std::vector<ir::Argument>>(arg_of(node_, name).value)) {
    out.push_back(a.is_none() ? std::string() : g.value(std::get<ir::ValueRef>(a.value)));
  }
  return out;
}

std::vector<const ir::TensorSpec*> NodeLowering::specs(const char* name) const {
  std::vector<const ir::TensorSpec*> out;
  for (const ir::Argument& a : std::get<std::vector<ir::Argument>>(arg_of(node_, name).value)) {
    if (a.is_none()) {
      out.push_back(nullptr);
      continue;
    }
    const auto& ref = std::get<ir::ValueRef>(a.value);
    out.push_back(&ref.node->outputs().at(static_cast<size_t>(ref.index)));
  }
  return out;
}

sym::ExprPtr NodeLowering::size(const char* name) const {
  const ir::Argument& a = arg_of(node_, name);
  if (const auto* e = std::get_if<sym::ExprPtr>(&a.value)) return *e;
  if (const auto* b = std::get_if<bool>(&a.value)) return sym::integer(*b ? 1 : 0);
  refuse(std::string("argument '") + name + "' is not an integer: " + a.str());
}

std::vector<sym::ExprPtr> NodeLowering::sizes(const char* name) const {
  const ir::Argument& a = arg_of(node_, name);
  std::vector<sym::ExprPtr> out;
  if (const auto* e = std::get_if<sym::ExprPtr>(&a.value)) return {*e};  // `int[1]` given one
  for (const ir::Argument& x : std::get<std::vector<ir::Argument>>(a.value)) {
    const auto* e = std::get_if<sym::ExprPtr>(&x.value);
    if (e == nullptr) refuse(std::string("argument '") + name + "' holds " + x.str());
    out.push_back(*e);
  }
  return out;
}

int64_t NodeLowering::integer(const char* name) const {
  const sym::ExprPtr e = size(name);
  const std::optional<int64_t> v = sym::as_int(e);
  if (!v) refuse(std::string("argument '") + name + "' is symbolic (" + sym::str(e) + ")");
  return *v;
}

std::optional<int64_t> NodeLowering::optional_integer(const char* name) const {
  if (is_none(name)) return std::nullopt;
  return integer(name);
}

std::vector<int64_t> NodeLowering::integers(const char* name) const {
  std::vector<int64_t> out;
  if (is_none(name)) return out;
  for (sym::ExprPtr e : sizes(name)) {
    const std::optional<int64_t> v = sym::as_int(e);
    if (!v) refuse(std::string("argument '") + name + "' is symbolic (" + sym::str(e) + ")");
    out.push_back(*v);
  }
  return out;
}

double NodeLowering::real(const char* name) const {
  if (std::optional<double> v = constant_scalar(name)) return *v;
  refuse(std::string("argument '") + name + "' is not a constant number");
}

std::vector<bool> NodeLowering::bools(const char* name) const {
  std::vector<bool> out;
  for (const ir::Argument& a : std::get<std::vector<ir::Argument>>(arg_of(node_, name).value)) {
    const auto* b = std::get_if<bool>(&a.value);
    if (b == nullptr) refuse(std::string("argument '") + name + "' holds " + a.str());
    out.push_back(*b);
  }
  return out;
}

bool NodeLowering::flag(const char* name) const {
  const ir::Argument& a = arg_of(node_, name);
  if (const auto* b = std::get_if<bool>(&a.value)) return *b;
  if (a.is_none()) return false;
  return integer(name) != 0;
}

std::optional<DType> NodeLowering::dtype(const char* name) const {
  const ir::Argument& a = arg_of(node_, name);
  if (const auto* d = std::get_if<DType>(&a.value)) return *d;
  return std::nullopt;
}

std::string NodeLowering::str(const char* name) const {
  const ir::Argument& a = arg_of(node_, name);
  if (const auto* s = std::get_if<std::string>(&a.value)) return *s;
  return {};
}

std::optional<double> NodeLowering::constant_scalar(const char* name) const {
  const ir::Argument& a = arg_of(node_, name);
  if (const auto* d = std::get_if<double>(&a.value)) return *d;
  if (const auto* b = std::get_if<bool>(&a.value)) return *b ? 1.0 : 0.0;
  if (const auto* e = std::get_if<sym::ExprPtr>(&a.value)) {
    if (auto v = sym::as_int(*e)) return static_cast<double>(*v);
  }
  return std::nullopt;
}

bool NodeLowering::scalar_is_float(const char* name) const {
  const ir::Argument& a = arg_of(node_, name);
  if (std::holds_alternative<double>(a.value)) return true;
  if (const auto* ref = std::get_if<ir::ValueRef>(&a.value)) {
    return is_floating(ref->node->outputs().at(static_cast<size_t>(ref->index)).dtype);
  }
  return false;
}

bool NodeLowering::takes_tensor(const char* name) const {
  const OpDef& op = *node_.op();
  const int position = op.arg_position(name);
  XPORT_CHECK(position >= 0, Internal, "onnx: ", op.qualified_name, " has no argument ", name);
  return op.parsed.arguments[static_cast<size_t>(position)].type.base == BaseType::Tensor;
}

DType NodeLowering::promoted(std::initializer_list<const char*> names) const {
  ResultType rt;
  for (const char* name : names) {
    const ir::Argument& a = arg_of(node_, name);
    const auto* ref = std::get_if<ir::ValueRef>(&a.value);
    if (ref != nullptr && takes_tensor(name)) {
      const ir::TensorSpec& s = ref->node->outputs().at(static_cast<size_t>(ref->index));
      rt.tensor(s.dtype, !s.sizes.empty());
    } else if (std::holds_alternative<bool>(a.value)) {
      rt.scalar(Scalar(true));
    } else {
      rt.scalar(scalar_is_float(name) ? Scalar(1.0) : Scalar(int64_t{1}));
    }
  }
  return rt.get();
}

std::string NodeLowering::scalar(const char* name, DType dtype) const {
  const ir::Argument& a = arg_of(node_, name);
  if (const auto* e = std::get_if<sym::ExprPtr>(&a.value)) {
    if (const std::optional<int64_t> v = sym::as_int(*e)) return g.integer(dtype, *v);
  }
  if (std::optional<double> v = constant_scalar(name)) return g.scalar(dtype, *v);
  if (const auto* e = std::get_if<sym::ExprPtr>(&a.value)) {
    const std::string v = g.sym_scalar(*e);
    return g.cast(v, DType::Int64, dtype);
  }
  if (const auto* ref = std::get_if<ir::ValueRef>(&a.value)) {
    const ir::TensorSpec& s = ref->node->outputs().at(static_cast<size_t>(ref->index));
    return g.cast(g.value(*ref), s.dtype, dtype);
  }
  refuse(std::string("argument '") + name + "' is not a number: " + a.str());
}

std::string NodeLowering::out_name(int index) const {
  return g.model().fresh(index == 0 ? node_.name() : node_.name() + "_out" + std::to_string(index));
}

void NodeLowering::set(int index, const std::string& value) const {
  g.bind(node_.out(index), value);
}

void NodeLowering::emit(const std::string& op_type, std::vector<std::string> inputs,
                        std::vector<::onnx::AttributeProto> attrs) const {
  std::vector<std::string> outs;
  for (int i = 0; i < num_outputs(); ++i) {
    outs.push_back(out_name(i));
    set(i, outs.back());
  }
  g.add_to(op_type, std::move(inputs), std::move(outs), std::move(attrs));
}

namespace {

UsedValues used_values(const ir::Graph& graph) {
  UsedValues used;
  for (const auto& node : graph.nodes()) {
    for (const ir::Argument& a : node->args()) {
      ir::detail::for_each_ref(a, [&](const ir::ValueRef& r) { used.insert({r.node, r.index}); });
    }
  }
  return used;
}

struct Table {
  std::unordered_map<const OpDef*, LowerFn> lowerings;
  Table() {
    for (auto list : {pointwise_lowerings, shape_lowerings, reduction_lowerings, nn_lowerings,
                      convolution_lowerings, pooling_lowerings, embedding_lowerings,
                      factory_lowerings, control_flow_lowerings, spectral_lowerings,
                      quantize_lowerings}) {
      for (auto& [name, fn] : list()) {
        const auto [it, added] = lowerings.emplace(&find_op(name), std::move(fn));
        XPORT_CHECK(added, Internal, "onnx: two lowerings of ", name);
      }
    }
  }
};

// A custom op (a Library's) as a node of the domain its namespace names: tensor arguments are
// its inputs, the others attributes; or a call of the ONNX function Options::functions gives.
void lower_custom(NodeLowering& n) {
  const OpDef& op = *n.node().op();
  ModelState& model = n.g.model();
  const std::string& qualified = op.qualified_name;
  std::string domain = op.parsed.ns;
  std::string name = op.parsed.name;
  if (!op.parsed.overload.empty() && op.parsed.overload != "default") {
    name += "_" + op.parsed.overload;
  }
  const std::string base_name = op.parsed.ns + "::" + op.parsed.name;
  auto fn = model.options->functions.find(qualified);
  if (fn == model.options->functions.end()) fn = model.options->functions.find(base_name);
  if (fn != model.options->functions.end()) {
    ::onnx::FunctionProto function;
    const auto status = ::onnx::OnnxParser::Parse(function, fn->second.c_str());
    XPORT_CHECK(status.IsOK(), InvalidInput, "onnx: the function given for ", qualified,
                " does not parse: ", status.ErrorMessage());
    domain = function.domain();
    name = function.name();
    if (model.functions.insert(domain + "::" + name).second) {
      *model.model->add_functions() = function;
    }
  }
  std::vector<std::string> inputs;
  std::vector<::onnx::AttributeProto> attrs;
  for (const xport::Argument& schema_arg : op.parsed.arguments) {
    const char* arg = schema_arg.name.c_str();
    if (n.is_none(arg)) {
      // A missing optional tensor keeps its place as an empty input, as ONNX spells it.
      if (schema_arg.type.base == BaseType::Tensor) inputs.emplace_back();
      continue;
    }
    const ir::Argument& a = n.node().arg(arg);
    if (std::holds_alternative<ir::ValueRef>(a.value)) {
      inputs.push_back(n.tensor(arg));
    } else if (const auto* d = std::get_if<double>(&a.value)) {
      attrs.push_back(attr(schema_arg.name, *d));
    } else if (const auto* s = std::get_if<std::string>(&a.value)) {
      attrs.push_back(attr(schema_arg.name, *s));
    } else if (std::holds_alternative<std::vector<ir::Argument>>(a.value) &&
               schema_arg.type.base == BaseType::Tensor) {
      for (const std::string& t : n.tensors(arg)) inputs.push_back(t);
    } else if (std::holds_alternative<std::vector<ir::Argument>>(a.value)) {
      attrs.push_back(attr(schema_arg.name, n.integers(arg)));
    } else {
      attrs.push_back(attr(schema_arg.name, n.integer(arg)));
    }
  }
  std::vector<std::string> outs;
  for (int i = 0; i < n.num_outputs(); ++i) {
    outs.push_back(n.out_name(i));
    n.set(i, outs.back());
  }
  auto& version = model.domains[domain];
  version = std::max(version, 1);
  n.g.add_to(name, std::move(inputs), std::move(outs), std::move(attrs), domain);
}

// Gives the unbacked symbols a node defines their values: item()'s value, nonzero's size.
void bind_unbacked(const ir::Node& node, GraphBuilder& g) {
  for (const ir::UnbackedBinding& b : node.unbacked_bindings()) {
    const std::string& value = g.value(node.out(b.output));
    const DType dtype = node.outputs().at(static_cast<size_t>(b.output)).dtype;
    std::string v;
    if (b.dim < 0) {
      v = g.cast(g.add("Reshape", {value, g.ints({1})}, {}, "unbacked"), dtype, DType::Int64);
    } else {
      v = g.add("Shape", {value}, {attr("start", b.dim), attr("end", b.dim + 1)}, "unbacked");
    }
    g.bind_symbol(b.symbol, v);
  }
}

}  // namespace

const LowerFn* find_lowering(const OpDef& op) {
  static const Table table;
  auto it = table.lowerings.find(&op);
  return it == table.lowerings.end() ? nullptr : &it->second;
}

std::vector<std::string> lower_calls(const ir::Graph& graph, GraphBuilder& g) {
  const UsedValues used = used_values(graph);
  std::vector<std::string> results;
  for (const auto& node : graph.nodes()) {
    if (node->kind() == ir::NodeKind::Output) {
      for (const ir::Argument& a : node->args()) {
        const auto* ref = std::get_if<ir::ValueRef>(&a.value);
        XPORT_CHECK(ref != nullptr, UnsupportedOp, "onnx: the program returns ", a.str(),
                    "; ONNX graphs return tensors only");
        results.push_back(g.value(*ref));
      }
      continue;
    }
    if (node->kind() != ir::NodeKind::Call) continue;
    const OpDef& op = *node->op();
    // The contract's assertions cannot be checked by ONNX: they are kept in metadata_props.
    if (has_tag(op, Tag::RuntimeAssert)) continue;
    NodeLowering n(g, *node, used);
    if (const LowerFn* lower = find_lowering(op)) {
      (*lower)(n);
    } else if (op.user_defined) {
      lower_custom(n);
    } else {
      n.refuse("no ONNX lowering for this op");
    }
    for (int i = 0; i < n.num_outputs(); ++i) {
      XPORT_CHECK(n.unused(i) || node->outputs()[static_cast<size_t>(i)].none ||
                      g.has_value(node->out(i)),
                  Internal, "onnx: the lowering of ", op.qualified_name, " left result ", i,
                  " of %", node->name(), " without a value");
    }
    bind_unbacked(*node, g);
  }
  return results;
}

::onnx::ValueInfoProto value_info(const std::string& name, const ir::TensorSpec& spec,
                                  ShapeDetail detail,
                                  const std::function<std::string(sym::ExprPtr)>& dim_name) {
  ::onnx::ValueInfoProto info;
  info.set_name(name);
  auto* tensor = info.mutable_type()->mutable_tensor_type();
  // A complex value is a real one with a trailing dim of 2 (spectral_lowerings.cpp).
  const bool complex = is_complex(spec.dtype);
  tensor->set_elem_type(onnx_type(complex ? complex_part(spec.dtype) : spec.dtype));
  if (detail == ShapeDetail::kNone) return info;
  auto* shape = tensor->mutable_shape();
  for (sym::ExprPtr s : spec.sizes) {
    auto* dim = shape->add_dim();
    if (auto v = sym::as_int(s)) {
      dim->set_dim_value(*v);
    } else if (detail == ShapeDetail::kFull) {
      dim->set_dim_param(sym::str(s, dim_name));
    }
  }
  if (complex) shape->add_dim()->set_dim_value(2);
  return info;
}

::onnx::GraphProto lower_body(
    const ir::Graph& subgraph, GraphBuilder& parent, const std::vector<std::string>& inputs,
    const std::vector<std::pair<std::string, const ir::TensorSpec*>>& body_inputs,
    const std::string& name) {
  ::onnx::GraphProto body;
  body.set_name(parent.model().fresh(name));
  GraphBuilder g(&body, parent.model(), &parent);
  for (const auto& [input, spec] : body_inputs) {
    *body.add_input() = value_info(input, *spec, ShapeDetail::kNone);
  }
  const std::vector<const ir::Node*> placeholders = subgraph.placeholders();
  XPORT_CHECK(placeholders.size() == inputs.size(), Internal, "onnx: a body of ",
              placeholders.size(), " inputs is given ", inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) g.bind(placeholders[i]->out(), inputs[i]);
  const std::vector<std::string> results = lower_calls(subgraph, g);
  const ir::Node* output = subgraph.output();
  for (size_t i = 0; i < results.size(); ++i) {
    // A body's outputs are its own values: a result that is an input or an enclosing graph's
    // value goes through Identity. ONNX Runtime's Scan needs each output's rank stated, which
    // its shape inference cannot always find (a Reshape to a computed shape).
    const std::string out = g.add("Identity", {results[i]}, {}, body.name() + "_out");
    const auto& ref = std::get<ir::ValueRef>(output->args()[i].value);
    *body.add_output() = value_info(out, ref.node->outputs().at(static_cast<size_t>(ref.index)),
                                    ShapeDetail::kRank);
  }
  return body;
}

}  // namespace xport::onnx
