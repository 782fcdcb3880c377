// Each step of a plan as C++: a typed kernel's call with its literal arguments, a view, a step
// the runtime runs, control flow, the runtime's packed kernels and elementwise chains.

#include "aot/generator.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "core/dtype_enumerator.h"
#include "ir/argument_value.h"
#include "ir/ir_util.h"
#include "ir/passes/constant_graph.h"
#include "program/write_back.h"
#include "runtime/compiled_graph.h"
#include "runtime/execution_plan.h"
#include "runtime/prepared_graph.h"
#include "runtime/run_inputs.h"

namespace xport::aot::detail {

void Generator::emit_step(size_t index) {
  const PlannedStep& planned = g_->plan->steps[index];
  const runtime::CompiledStep& step = *planned.step;
  const ir::Node& node = *step.node;
  if (planned.sized_at_run || step.kind == StepKind::Composite) {
    emit_runtime_step(index);
    return;
  }
  if (step.kind == StepKind::HigherOrder) {
    emit_control_flow(index);
    return;
  }
  const auto first = static_cast<size_t>(step.first_slot);
  if (step.kind == StepKind::View) {
    for (size_t o = 0; o < planned.outputs.size(); ++o) {
      view(index, o, static_cast<size_t>(planned.alias_slot));
    }
    return;
  }
  for (size_t o = 0; o < planned.outputs.size(); ++o) place(index, o);
  const bool sized_by_symbols = sizes_mention_symbol(node);
  if (!planned.run_kernel && !sized_by_symbols) return;
  g_->run << "  // " << where(node) << "\n";
  // A result empty for some values of the symbols runs no kernel, as in the runtime.
  const std::string guard =
      sized_by_symbols ? "if (sh.runs(" + std::to_string(index) + ")) " : "";
  std::vector<std::string> outs;
  for (size_t o = 0; o < planned.outputs.size(); ++o) outs.push_back(g_->expr[first + o]);
  // Only the program's graph is prepared (weights packed, elementwise chains fused).
  const auto it = prepared_.packed.find(&node);
  if (g_->program && it != prepared_.packed.end()) {
    emit_packed(index, it->second, outs, guard);
    return;
  }
  const KernelSymbol& symbol = step.op->kernel.symbol;
  if (step.kernel != &step.op->kernel.fn || symbol.name.empty()) {
    refuse(node, "its kernel (" + step.op->qualified_name + ") has no named C++ function");
  }
  std::set<size_t> sized;  // arguments the symbols decide: bound for each run's values
  for (size_t a = 0; a < node.args().size(); ++a) {
    if (mentions_symbol(node.args()[a])) sized.insert(a);
  }
  g_->run << "  " << guard
          << call(symbol, planned.args, hole_exprs(planned), outs, index, sized) << ";\n";
  ++kernel_calls_;
  if (step.binds) {  // item(): later sizes use the value it read
    g_->run << "  sh.bind(" << index << ", " << list_literal(outs, identity)
            << ", run_symbols);\n";
    g_->run_symbols = true;
  }
}

std::string Generator::where(const ir::Node& node) {
  return ir::detail::node_label(node) +
         (node.meta().source.empty() ? "" : " at " + node.meta().source);
}

// A step sized when it runs, or a composite op (compile() decomposes them first), as eager
// execution runs it (aot::Shape::run_step). It reads its arguments from the table of slots.
void Generator::emit_runtime_step(size_t index) {
  const PlannedStep& planned = g_->plan->steps[index];
  g_->run << "  // " << where(*planned.step->node) << ": "
          << (planned.sized_at_run ? "sized when it runs" : "a composite op")
          << ", by the runtime\n";
  fill_slots(index);
  take_results(index, "sh.run_step(" + std::to_string(index) + ", slots, run_symbols)");
  ++runtime_steps_;
}

// A higher-order op (cond, map, while_loop): the op's kernel runs in the runtime
// (aot::Shape::run_control_flow) and calls each subgraph's generated function.
void Generator::emit_control_flow(size_t index) {
  const PlannedStep& planned = g_->plan->steps[index];
  const runtime::CompiledStep& step = *planned.step;
  std::vector<std::string> bodies;
  for (size_t k = 0; k < step.subgraphs.size(); ++k) {
    bodies.push_back(emit_graph(*step.subgraphs[k].second, *planned.subplans.at(k), false));
  }
  g_->run << "  // " << where(*step.node) << ": subgraphs " << list_literal(bodies, identity)
          << "\n";
  fill_slots(index);
  std::string call = "sh.run_control_flow(" + std::to_string(index) + ", slots, {";
  for (size_t k = 0; k < bodies.size(); ++k) {
    call += std::string(k ? "," : "") +
            "\n      [this, &run_symbols](const xport::aot::Shape& s, "
            "const std::vector<xport::Tensor>& in) { return " +
            bodies[k] + "(s, in, run_symbols); }";
  }
  take_results(index, call + "}, run_symbols)");
  ++control_flow_steps_;
}

// Stores the tensors step `index` reads in the table of slots.
void Generator::fill_slots(size_t index) {
  for (const runtime::TensorHole& hole : g_->plan->steps[index].holes) {
    const std::vector<int> read = hole.list ? hole.list_slots : std::vector<int>{hole.slot};
    for (const int s : read) {
      if (s < 0) continue;
      g_->run << "  slots[" << s << "] = " << g_->expr[static_cast<size_t>(s)] << ";\n";
    }
  }
  g_->run_symbols = true;
}

// Step `index`'s outputs: what `call` returns, made in each run.
void Generator::take_results(size_t index, const std::string& call) {
  const runtime::CompiledStep& step = *g_->plan->steps[index].step;
  const std::string results = "r" + std::to_string(index);
  g_->run << "  const std::vector<xport::Tensor> " << results << " = " << call << ";\n";
  const auto first = static_cast<size_t>(step.first_slot);
  for (size_t o = 0; o < step.node->outputs().size(); ++o) {
    g_->expr[first + o] = results + "[" + std::to_string(o) + "]";
  }
}

// Step `index`'s output `o` in its Shape: a layout the run's symbols decide.
std::string Generator::shape_layout(size_t index, size_t o) {
  return "sh.layout(" + std::to_string(index) + ", " + std::to_string(o) + ")";
}

// A view's tensor: made with each frame where the plan keeps it there (its base is in the
// frame or a weight), else per run.
void Generator::view(size_t index, size_t o, size_t base) {
  const size_t slot = static_cast<size_t>(g_->plan->steps[index].step->first_slot) + o;
  if (!g_->plan->slot_per_run[slot]) {
    const int over = g_->root[base];  // a placeholder's storage, or -1: the arena
    g_->root[slot] = over;
    g_->expr[slot] = frame_tensor(index, o, over);
    return;
  }
  g_->expr[slot] = "v" + std::to_string(slot);
  g_->run << "  const xport::Tensor " << g_->expr[slot] << " = xport::aot::tensor_in("
          << g_->expr[base] << ".storage(), " << shape_layout(index, o) << ");\n";
  ++run_views_;
}

// A kernel's output `o`: in the frame's arena, fresh per run, the argument it updates, or none.
void Generator::place(size_t index, size_t o) {
  const PlannedStep& planned = g_->plan->steps[index];
  const size_t slot = static_cast<size_t>(planned.step->first_slot) + o;
  switch (planned.placement[o]) {
    case Placement::Arena:
      g_->expr[slot] = frame_tensor(index, o, -1);
      break;
    case Placement::Heap:
      g_->expr[slot] = "v" + std::to_string(slot);
      g_->run << "  const xport::Tensor " << g_->expr[slot] << " = xport::aot::fresh_tensor("
              << shape_layout(index, o) << ");\n";
      break;
    case Placement::Alias:
      g_->expr[slot] = g_->expr[static_cast<size_t>(planned.alias_slot)];
      g_->root[slot] = g_->root[static_cast<size_t>(planned.alias_slot)];
      break;
    case Placement::None:
      g_->expr[slot] = "kNone";
      break;
    case Placement::Returned:
      refuse(*planned.step->node, "its kernel returns its results");
  }
}

// A tensor every frame holds: over the arena (`over` -1) or over a placeholder's storage.
std::string Generator::frame_tensor(size_t index, size_t o, int over) {
  g_->frame << "    {" << index << ", " << o << ", " << over << "},\n";
  return "f.t[" + std::to_string(g_->frame_count++) + "]";
}

// Each tensor argument's expression, by argument index (list arguments: "{a, b}").
std::map<size_t, std::string> Generator::hole_exprs(const PlannedStep& planned) const {
  std::map<size_t, std::string> out;
  for (const runtime::TensorHole& hole : planned.holes) {
    if (!hole.list) {
      const std::string& e = g_->expr[static_cast<size_t>(hole.slot)];
      out[hole.arg] = hole.number ? "xport::aot::scalar_of(" + e + ")" : e;
      continue;
    }
    std::string list = "{";
    for (size_t i = 0; i < hole.list_slots.size(); ++i) {
      const int s = hole.list_slots[i];
      list += (i ? ", " : "") + (s < 0 ? std::string("kNone") : g_->expr[static_cast<size_t>(s)]);
    }
    out[hole.arg] = list + "}";
  }
  return out;
}

// `name(arguments..., outputs...)` for a typed kernel; literals of vectors and strings become
// constants of the translation unit.
// Arguments in `sized` are the symbols' to decide: the run's Shape has them bound.
std::string Generator::call(const KernelSymbol& symbol, const std::vector<Value>& args,
                 const std::map<size_t, std::string>& tensors,
                 const std::vector<std::string>& outs, size_t step,
                 const std::set<size_t>& sized) {
  std::string out = symbol.name + "(";
  for (size_t i = 0; i < symbol.parameters.size(); ++i) {
    if (i) out += ", ";
    if (i >= args.size()) {
      out += outs.at(i - args.size());
      continue;
    }
    const std::string type = bare_type(symbol.parameters[i]);
    out += sized.count(i) ? sized_argument(type, step, i) : argument(type, args[i], tensors, i);
  }
  return out + ")";
}

std::string Generator::sized_argument(const std::string& type, size_t step, size_t index) {
  const std::string inner = unwrap_optional(type);
  const std::string value =
      "sh.arg(" + std::to_string(step) + ", " + std::to_string(index) + ")";
  if (inner == "int64_t") return value + ".to_int()";
  if (inner == "std::vector<int64_t>") return value + ".to_int_list()";
  if (inner == "xport::Scalar") return value + ".to_scalar()";
  if (inner == "double") return value + ".to_double()";
  XPORT_FAIL(Internal, "aot: no sized argument of type ", type);
}

std::string Generator::argument(const std::string& type, const Value& v,
                     const std::map<size_t, std::string>& tensors, size_t index) {
  const std::string inner = unwrap_optional(type);
  if (inner.find("xport::Tensor") != std::string::npos) {
    if (const auto it = tensors.find(index); it != tensors.end()) {
      if (inner == "std::vector<std::optional<xport::Tensor>>") {
        return "xport::aot::optional_tensors(" + it->second + ")";
      }
      if (inner.rfind("std::vector", 0) == 0) return "std::vector<xport::Tensor>" + it->second;
      return it->second;
    }
    XPORT_CHECK(v.is_none(), Internal, "aot: a tensor argument that is not a graph value");
    return inner == type ? "kNone" : "std::nullopt";
  }
  if (const auto it = tensors.find(index); it != tensors.end()) {  // a computed number
    if (inner == "double") return it->second + ".to_double()";
    return it->second;
  }
  if (v.is_none()) return "std::nullopt";
  if (inner == "xport::Scalar") return scalar_literal(v.to_scalar());
  if (inner == "int64_t") return int_literal(v.to_int());
  if (inner == "double") return double_literal(v.to_double());
  if (inner == "bool") return v.to_bool() ? "true" : "false";
  if (inner == "xport::DType") {
    return std::string("xport::DType::") + dtype_enumerator(v.to_dtype());
  }
  std::string literal;
  if (inner == "std::string") {
    literal = string_literal(v.to_string_value());
  } else if (inner == "std::vector<int64_t>") {
    literal = "std::vector<int64_t>" + list_literal(v.to_int_list(), int_literal);
  } else if (inner == "std::vector<double>") {
    literal = "std::vector<double>" + list_literal(v.to_double_list(), double_literal);
  } else if (inner == "std::vector<bool>") {
    literal = "std::vector<bool>" + list_literal(v.to_bool_list(), [](bool b) {
                return std::string(b ? "true" : "false");
              });
  } else {
    XPORT_FAIL(Internal, "aot: no literal for a parameter of type ", type);
  }
  return constant(type, literal);
}

// A constant of the translation unit, made once (identical ones shared).
std::string Generator::constant(const std::string& type, const std::string& literal) {
  const std::string key = type + "=" + literal;
  const auto it = constant_names_.find(key);
  if (it != constant_names_.end()) return it->second;
  const std::string name = "kC" + std::to_string(constant_names_.size());
  globals_ << "const " << type << " " << name << " = " << literal << ";\n";
  constant_names_.emplace(key, name);
  return name;
}

// A layout's index in the table of layouts (kMeta), each layout once.
size_t Generator::layout(const TensorMeta& m) {
  std::vector<int64_t> code = {static_cast<int64_t>(m.dtype),
                               static_cast<int64_t>(m.sizes.size()),
                               *m.storage_offset.maybe_int()};
  for (const SymInt& v : m.sizes) code.push_back(*v.maybe_int());
  for (const SymInt& v : m.strides) code.push_back(*v.maybe_int());
  const auto [it, added] = layout_index_.emplace(code, layout_index_.size());
  if (added) layouts_.insert(layouts_.end(), code.begin(), code.end());
  return it->second;
}

// The runtime's packed convolution or matrix product of step `index` (made when the library
// loads, as the runtime makes it), a kernel it chose at load, or an elementwise chain.
void Generator::emit_packed(size_t index, const PackedCall& packed,
                            const std::vector<std::string>& outs, const std::string& guard) {
  const ir::Node& node = *g_->plan->steps[index].step->node;
  if (packed.kind == PackedCall::Kind::PointwiseChain) {
    emit_chain(node, outs.at(0), guard);
    return;
  }
  const std::string kernel = "*k_[" + std::to_string(packed_steps_.size()) + "]";
  packed_steps_.push_back(std::to_string(index));
  if (packed.kind == PackedCall::Kind::Unary) {
    g_->run << "  " << guard << "xport::aot::run_unary(" << kernel << ", "
            << arg_expr(node, "self") << ", " << outs.at(0) << ");\n";
    ++packed_calls_;
    return;
  }
  const std::string input = arg_expr(node, "input");
  if (packed.kind == PackedCall::Kind::Conv2d) {
    const std::string residual =
        node.arg("residual").is_none() ? "kNone" : arg_expr(node, "residual");
    g_->run << "  " << guard << "xport::aot::run_conv2d(" << kernel << ", " << input << ", "
            << residual << ", " << outs.at(0) << ");\n";
  } else if (packed.kind == PackedCall::Kind::Quantized) {
    // The input's scale and zero point: numbers (static quantization) or one-element tensors.
    const bool tensors = std::holds_alternative<ir::ValueRef>(node.arg("input_scale").value);
    const std::string scale =
        tensors ? arg_expr(node, "input_scale") + ".item<double>()"
                : detail::double_literal(std::get<double>(node.arg("input_scale").value));
    const std::string zero_point =
        tensors ? arg_expr(node, "input_zero_point") + ".item<int64_t>()"
                : detail::int_literal(ir::passes::constant_int(
                      std::get<sym::ExprPtr>(node.arg("input_zero_point").value)));
    const bool has_residual = node.op()->arg_position("residual") >= 0 &&
                              !node.arg("residual").is_none();
    const std::string residual = has_residual ? arg_expr(node, "residual") : "kNone";
    g_->run << "  " << guard << "xport::aot::run_quantized(" << kernel << ", " << input
            << ", " << scale << ", " << zero_point << ", " << residual << ", " << outs.at(0)
            << ");\n";
  } else {
    g_->run << "  " << guard << "xport::aot::run_linear(" << kernel << ", " << input << ", "
            << outs.at(0) << ");\n";
  }
  ++packed_calls_;
}

std::string Generator::arg_expr(const ir::Node& node, const char* name) const {
  const auto* ref = std::get_if<ir::ValueRef>(&node.arg(name).value);
  if (ref == nullptr) refuse(node, std::string("its '") + name + "' is not a graph value");
  return g_->expr[static_cast<size_t>(g_->graph->slot(*ref))];
}

// An elementwise chain (xport::fused_pointwise): a function of the translation unit that runs
// the body's kernels on one chunk, each writing the scratch the next reads.
void Generator::emit_chain(const ir::Node& node, const std::string& out, const std::string& guard) {
  const ir::Graph& body = *std::get<ir::SubgraphRef>(node.arg("body").value).graph;
  std::vector<const ir::Node*> calls;
  for (const auto& n : body.nodes()) {
    if (n->kind() == ir::NodeKind::Call) calls.push_back(n.get());
  }
  const std::string name = "chain" + std::to_string(chains_);
  std::ostringstream fn;
  fn << "void " << name
     << "(const xport::Tensor* in, const xport::Tensor* scratch, const xport::Tensor& out) {\n";
  std::string previous;
  for (size_t s = 0; s < calls.size(); ++s) {
    const ir::Node& call_node = *calls[s];
    const OpDef& op = *call_node.op();
    if (op.kernel.symbol.name.empty()) {
      refuse(node, "its chain's " + op.qualified_name + " has no named C++ function");
    }
    std::vector<Value> values;
    std::map<size_t, std::string> tensors;
    for (size_t i = 0; i < call_node.args().size(); ++i) {
      const ir::Argument& a = call_node.args()[i];
      if (const auto* ref = std::get_if<ir::ValueRef>(&a.value)) {
        tensors[i] = ref->node->kind() == ir::NodeKind::Placeholder
                         ? "in[" + std::to_string(ref->node->position()) + "]"
                         : previous;
      }
      values.push_back(ir::argument_value(
          a, op.parsed.arguments[i].type, [](const ir::ValueRef&) { return Tensor(); },
          ir::passes::constant_int));
    }
    const std::string result =
        s + 1 == calls.size() ? "out" : "scratch[" + std::to_string(s % 2) + "]";
    fn << "  " << call(op.kernel.symbol, values, tensors, {result}) << ";\n";
    previous = result;
  }
  fn << "}\n";
  functions_ << fn.str();
  g_->run << "  " << guard << "xport::aot::run_chunked({";
  const auto& inputs = std::get<std::vector<ir::Argument>>(node.arg("inputs").value);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto& ref = std::get<ir::ValueRef>(inputs[i].value);
    g_->run << (i ? ", " : "") << g_->expr[static_cast<size_t>(g_->graph->slot(ref))];
  }
  g_->run << "}, " << out << ", &" << name << ");\n";
  ++chains_;
}

}  // namespace xport::aot::detail
