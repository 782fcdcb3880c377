// Which registered op a node of a PT2 archive calls, numbers where the op takes tensors, and the
// node's metadata (source line, module path).

#include <algorithm>
#include <cctype>

#include "serde/program_reader.h"
#include "serde/pt2_format.h"
#include "xport/core/error.h"
#include "xport/tensor/result_type.h"

namespace xport::serde {
namespace {

// Ops that PyTorch's own quantization flows leave in an archive and that xport refuses on
// purpose: what to do instead.
const char* why_refused(const std::string& qualified) {
  if (qualified == "export::access_subclass_inner_tensor") {
    return "The archive keeps tensor subclass weights (torchao's quantized tensors), pickled so "
           "that only Python with torchao can read them. Save the program after "
           "`ep = ep.run_decompositions()`: its weights are then plain tensors and their "
           "dequantization ATen ops, which xport runs on its integer kernels "
           "(docs/QUANTIZATION.md)";
  }
  if (qualified == "aten::_weight_int4pack_mm_for_cpu") {
    return "Its weights were packed by aten::_convert_weight_to_int4pack_for_cpu, whose layout "
           "depends on the instruction set of the machine that packed them (PyTorch's AVX-512, "
           "AVX2 and plain builds write different layouts), so no reader can know it. Quantize "
           "with torchao's IntxWeightOnlyConfig(weight_dtype=torch.int4, "
           "granularity=PerGroup(32)) instead: xport runs it on its int4 kernels";
  }
  return nullptr;
}

}  // namespace

// "torch.ops.aten.add.Tensor" -> the registered op, or UnsupportedOp.
const OpDef& GraphReader::op_of(const Field& target_field) {
  const std::string& target = target_field.to_string();
  // Higher-order ops have no overload: torch.ops.higher_order.cond.
  const std::string hop_prefix = "torch.ops.higher_order.";
  if (target.rfind(hop_prefix, 0) == 0) {
    const std::string qualified = "higher_order::" + target.substr(hop_prefix.size());
    const OpDef* op = try_find_op(qualified);
    XPORT_CHECK(op != nullptr && op->higher_order, UnsupportedOp, target_field.path(),
                ": higher-order op ", target,
                " is not one xport runs (it has cond, map_impl and while_loop)");
    return *op;
  }
  // Python's operators on SymFloats (`_operator.mul`); those on SymInts never get here (their
  // results are expressions in sym_int_values).
  const std::string operator_prefix = "_operator.";
  if (target.rfind(operator_prefix, 0) == 0) {
    const OpDef* op = try_find_op("_operator::" + target.substr(operator_prefix.size()));
    XPORT_CHECK(op != nullptr, UnsupportedOp, target_field.path(), ": ", target,
                " on floats is not one xport runs (it has add, sub, mul, truediv and neg)");
    return *op;
  }
  const std::string prefix = "torch.ops.";
  const size_t last = target.rfind('.');
  const size_t ns_end = target.find('.', prefix.size());
  if (target.rfind(prefix, 0) != 0 || last == std::string::npos || ns_end == std::string::npos ||
      ns_end >= last) {
    target_field.fail("target '" + target +
                      "' is not of the form torch.ops.<namespace>.<op>.<overload>");
  }
  const std::string ns = target.substr(prefix.size(), ns_end - prefix.size());
  const std::string name = target.substr(ns_end + 1, last - ns_end - 1);
  const std::string overload = target.substr(last + 1);
  const std::string qualified = ns + "::" + name + (overload == "default" ? "" : "." + overload);
  const OpDef* op = try_find_op(qualified);
  const char* refused = op == nullptr ? why_refused(qualified) : nullptr;
  XPORT_CHECK(refused == nullptr, UnsupportedOp, target_field.path(), ": op ", qualified, " (",
              target, ") is not one xport runs. ", refused);
  XPORT_CHECK(op != nullptr, UnsupportedOp, target_field.path(), ": op ", qualified, " (", target,
              ") is not registered in xport. ",
              ns == "aten" ? std::string("xport has no such ATen op; `xport ops` lists those it "
                                         "has")
                           : "Its library defines it: link the code that registers it (an "
                             "xport::Library for namespace '" + ns +
                                 "') into your program before loading, or with the xport tool "
                                 "pass --ops lib" + ns + ".so (a shared library that registers "
                                 "it when loaded)");
  return *op;
}

// PyTorch's graphs may pass a number where the schema says Tensor (`aten.add.Tensor(x, 1)`:
// the dispatcher wraps it as a scalar). xport calls the op's Scalar overload instead (add.Scalar,
// mul_.Scalar, pow.Scalar, ...), whose type promotion is that of a wrapped number; where none
// fits (`aten.sub.Tensor(5, x)`), materialise_numbers makes the number a tensor.
const OpDef& GraphReader::scalar_overload_for_numbers(const OpDef& op, const Field& inputs) {
  std::vector<std::string> number_args;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto [kind, value] = inputs.at(i)["arg"].to_union();
    if (kind != "as_int" && kind != "as_float" && kind != "as_bool" && kind != "as_sym_float")
      continue;
    const std::string& name = inputs.at(i)["name"].to_string();
    for (const Argument& a : op.parsed.arguments) {
      if (a.name == name && a.type.base == BaseType::Tensor && !a.type.list)
        number_args.push_back(name);
    }
  }
  if (number_args.empty()) return op;
  const Schema& s = op.parsed;
  const OpDef* scalar = try_find_op(s.ns + "::" + s.name + ".Scalar");
  bool fits = scalar && scalar->parsed.arguments.size() == s.arguments.size();
  for (size_t i = 0; fits && i < s.arguments.size(); ++i) {
    const Argument& a = s.arguments[i];
    const Argument& b = scalar->parsed.arguments[i];
    const bool number = std::find(number_args.begin(), number_args.end(), a.name) !=
                        number_args.end();
    fits = a.name == b.name &&
           (number ? b.type.base == BaseType::Scalar : a.type.str() == b.type.str());
  }
  return fits ? *scalar : op;
}

// A number left in a Tensor argument becomes a 0-dim tensor of the dtype the op computes in
// (aten::scalar_tensor), which promotes with the op's other operands exactly as the wrapped
// number would: the result type of the tensors and numbers together.
// The new nodes are named after the op's node (`sub_45_number_0`): PyTorch's later node names
// (`scalar_tensor_3`) stay free.
void GraphReader::materialise_numbers(const OpDef& op, const std::string& node_name,
                         std::vector<ir::Argument>& args, const ir::NodeMeta& meta) {
  const auto is_number = [](const ir::Argument& a) {
    return std::holds_alternative<sym::ExprPtr>(a.value) ||
           std::holds_alternative<double>(a.value) || std::holds_alternative<bool>(a.value);
  };
  const auto& params = op.parsed.arguments;
  ResultType promotion;
  bool any = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (params[i].type.base != BaseType::Tensor || params[i].type.list) continue;
    if (const auto* ref = std::get_if<ir::ValueRef>(&args[i].value)) {
      const ir::TensorSpec& spec = ref->node->outputs()[ref->index];
      promotion.tensor(spec.dtype, !spec.sizes.empty());
    } else if (is_number(args[i])) {
      any = true;
      if (const auto* d = std::get_if<double>(&args[i].value))
        promotion.scalar(Scalar(*d));
      else if (const auto* b = std::get_if<bool>(&args[i].value))
        promotion.scalar(Scalar(*b));
      else
        promotion.scalar(Scalar(int64_t{0}));  // an integer, constant or symbolic
    }
  }
  if (!any) return;
  const DType dtype = promotion.get();
  const OpDef& scalar_tensor = find_op("aten::scalar_tensor");
  for (size_t i = 0; i < args.size(); ++i) {
    if (params[i].type.base != BaseType::Tensor || params[i].type.list || !is_number(args[i]))
      continue;
    std::vector<ir::Argument> st_args = {args[i], dtype};
    for (size_t k = 2; k < scalar_tensor.parsed.arguments.size(); ++k)
      st_args.emplace_back();  // layout, device, pin_memory: None
    ir::Node* node = graph.add_named_call(
        node_name + "_number_" + std::to_string(i), scalar_tensor, std::move(st_args),
        {ir::TensorSpec::contiguous(dtype, {})}, meta);
    args[i] = node->out();
  }
}

std::string GraphReader::source_of_stack_trace(const std::string& trace) {
  // The innermost frame: the last `File "<file>", line <n>`.
  const size_t at = trace.rfind("File \"");
  if (at == std::string::npos) return "";
  const size_t file_begin = at + 6;
  const size_t file_end = trace.find('"', file_begin);
  if (file_end == std::string::npos) return "";
  std::string source = trace.substr(file_begin, file_end - file_begin);
  const std::string line_marker = ", line ";
  if (trace.compare(file_end + 1, line_marker.size(), line_marker) == 0) {
    const size_t digits = file_end + 1 + line_marker.size();
    size_t end = digits;
    while (end < trace.size() && std::isdigit(static_cast<unsigned char>(trace[end]))) ++end;
    if (end > digits) source += ":" + trace.substr(digits, end - digits);
  }
  return source;
}

ir::NodeMeta GraphReader::node_meta(const Field& metadata) {
  ir::NodeMeta meta;
  if (auto trace = metadata.optional("stack_trace"))
    meta.source = source_of_stack_trace(trace->to_string());
  if (auto stack = metadata.optional("nn_module_stack")) {
    const std::string& text = stack->to_string();
    size_t begin = 0;
    while (begin < text.size()) {
      size_t end = text.find(';', begin);
      if (end == std::string::npos) end = text.size();
      const std::string item = text.substr(begin, end - begin);
      const size_t c1 = item.find(',');
      const size_t c2 = c1 == std::string::npos ? c1 : item.find(',', c1 + 1);
      if (c2 == std::string::npos) stack->fail("entry '" + item + "' is not 'key,path,type'");
      meta.module_stack.emplace_back(item.substr(c1 + 1, c2 - c1 - 1), item.substr(c2 + 1));
      begin = end + 1;
    }
    if (!meta.module_stack.empty()) meta.module_path = meta.module_stack.back().first;
  }
  return meta;
}

}  // namespace xport::serde
