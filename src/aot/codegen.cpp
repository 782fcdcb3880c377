#include "aot/codegen.h"

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

namespace xport::aot {
namespace {

using runtime::PackedCall;
using runtime::Placement;
using runtime::PlannedStep;
using runtime::StepKind;

std::string int_literal(int64_t v) {
  if (v == INT64_MIN) return "(-INT64_C(9223372036854775807) - 1)";
  return "INT64_C(" + std::to_string(v) + ")";
}

std::string double_literal(double v) {
  if (std::isnan(v)) return "std::numeric_limits<double>::quiet_NaN()";
  if (std::isinf(v)) {
    return v > 0 ? "std::numeric_limits<double>::infinity()"
                 : "-std::numeric_limits<double>::infinity()";
  }
  std::ostringstream out;
  out << std::hexfloat << v;  // exact
  return out.str();
}

std::string string_literal(const std::string& s) {
  std::ostringstream out;
  out << '"';
  for (const unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out << '\\' << c;
    } else if (c >= 0x20 && c < 0x7f) {
      out << c;
    } else {
      out << '\\' << static_cast<char>('0' + (c >> 6)) << static_cast<char>('0' + ((c >> 3) & 7))
          << static_cast<char>('0' + (c & 7));
    }
  }
  out << '"';
  return out.str();
}

std::string to_string_int(int64_t v) { return std::to_string(v); }
std::string identity(const std::string& s) { return s; }

template <class T, class F>
std::string list_literal(const std::vector<T>& values, F&& element) {
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + element(values[i]);
  return out + "}";
}

// `{}` is no array: an empty table gets one unused entry.
template <class T, class F>
std::string table_literal(const std::vector<T>& values, F&& element) {
  return values.empty() ? "{0}" : list_literal(values, element);
}

std::string scalar_literal(const Scalar& s) {
  if (s.is_bool()) return std::string("xport::Scalar(") + (s.to_bool() ? "true" : "false") + ")";
  if (s.is_int()) return "xport::Scalar(" + int_literal(s.to_int()) + ")";
  return "xport::Scalar(" + double_literal(s.to_double()) + ")";
}

// The C++ parameter type without `const` and `&`.
std::string bare_type(std::string type) {
  if (type.rfind("const ", 0) == 0) type = type.substr(6);
  if (!type.empty() && type.back() == '&') type.pop_back();
  return type;
}

std::string unwrap_optional(const std::string& type) {
  const std::string prefix = "std::optional<";
  if (type.rfind(prefix, 0) != 0) return type;
  return type.substr(prefix.size(), type.size() - prefix.size() - 1);
}

// Whether an argument's value depends on the symbols (a size, a list of sizes).
bool mentions_symbol(const ir::Argument& a) {
  if (const auto* e = std::get_if<sym::ExprPtr>(&a.value)) return !sym::free_symbols(*e).empty();
  const auto* list = std::get_if<std::vector<ir::Argument>>(&a.value);
  return list != nullptr && std::any_of(list->begin(), list->end(), mentions_symbol);
}

bool sizes_mention_symbol(const ir::Node& node) {
  for (const ir::TensorSpec& spec : node.outputs()) {
    for (sym::ExprPtr size : spec.sizes) {
      if (!sym::free_symbols(size).empty()) return true;
    }
  }
  return false;
}

class Generator {
 public:
  Generator(const ExportedProgram& program, bool fuse) : program_(program), fuse_(fuse) {
    for (const InputSpec& spec : program.signature().inputs) {
      names_.push_back(spec.kind == InputSpec::Kind::UserInput ? spec.name : spec.target);
    }
    refuse_custom_ops(program.graph());
    runtime::ProgramPlaceholders placeholders = runtime::program_placeholders(program);
    program_placeholders_ = placeholders.tensors.size();
    prepared_ = runtime::prepare_graph(program.graph(), program.symbols(),
                                       std::move(placeholders.tensors),
                                       std::move(placeholders.is_user_input),
                                       buffer_updates(program.signature()), fuse);
    graph_ = runtime::compile_graph(prepared_.graph, &prepared_.kernels);
  }

  GeneratedModel run() {
    XPORT_CHECK(graph_.unrunnable.empty(), UnsupportedOp, "aot::compile: ", graph_.unrunnable,
                ": nothing runs it, the runtime neither; register a kernel or a decomposition "
                "for it");
    make_plan();
    emit_graph(graph_, *plan_, true);
    GeneratedModel out;
    out.source = assemble();
    out.kernel_calls = kernel_calls_;
    out.packed_calls = packed_calls_;
    out.chains = chains_;
    out.views = run_views_;
    out.runtime_steps = runtime_steps_;
    out.control_flow_steps = control_flow_steps_;
    out.subgraph_functions = static_cast<int64_t>(frame_tables_.size()) - 1;
    out.arena_bytes = plan_->stats.arena_bytes;
    return out;
  }

 private:
  void refuse(const ir::Node& node, const std::string& why) const {
    XPORT_FAIL(UnsupportedOp, "aot::compile: node ", ir::detail::node_label(node), ": ", why,
               "; run the archive in the runtime (runtime::Program) instead");
  }

  // A custom op, even one the plan no longer calls (its decomposition expanded at load): the
  // library loads the archive, whose every op it must know.
  void refuse_custom_ops(const ir::Graph& graph) const {
    for (const auto& node : graph.nodes()) {
      if (node->kind() != ir::NodeKind::Call) continue;
      if (node->op()->user_defined) {
        refuse(*node, node->op()->qualified_name +
                          " is a custom op (xport::Library): its kernel, meta function and "
                          "decomposition live in the process that registered them, where a "
                          "compiled library cannot call them");
      }
      for (const ir::Argument& a : node->args()) {
        if (const auto* g = std::get_if<ir::SubgraphRef>(&a.value)) refuse_custom_ops(*g->graph);
      }
    }
  }

  // ---- the plan -----------------------------------------------------------------------------

  // Where each value lives (the arena, a fresh allocation, its base's storage) and which
  // arguments are graph values do not depend on the symbols' values; the sizes, strides and
  // offsets do, and the library takes them from the runtime's plan of each run's values
  // (aot::LoadedGraph). So the structure is planned here for values the symbols' ranges admit.
  void make_plan() {
    std::string why;
    for (const int64_t candidate : {8, 3, 2, 16, 1, 0}) {
      std::unordered_map<sym::ExprPtr, int64_t> symbols;
      for (const SymbolSpec& s : program_.symbols()) {
        if (s.unbacked) continue;
        symbols[sym::symbol(s.name)] = std::clamp(candidate, s.range.lo, s.range.hi);
      }
      try {
        plan_ = runtime::make_plan(graph_, fakes(symbols), prepared_.is_user_input, symbols);
        break;
      } catch (const Error& e) {
        why = e.what();
      }
    }
    XPORT_CHECK(plan_ != nullptr, UnsupportedOp, "aot::compile: the program cannot be planned "
                "for any values of its symbols tried (8, 3, 2, 16, 1, 0 within their ranges): ",
                why);
    for (size_t o : prepared_.in_place_outputs) plan_->copy_output.at(o) = false;
  }

  // The placeholders with user inputs as layouts (contiguous, sizes from `symbols`).
  std::vector<Tensor> fakes(const std::unordered_map<sym::ExprPtr, int64_t>& symbols) const {
    std::vector<Tensor> out = prepared_.placeholders;
    const std::vector<const ir::Node*> nodes = graph_.graph->placeholders();
    for (size_t p = 0; p < out.size(); ++p) {
      if (!prepared_.is_user_input[p]) continue;
      const ir::TensorSpec& spec = nodes.at(p)->outputs().at(0);
      TensorMeta meta;
      meta.dtype = spec.dtype;
      for (sym::ExprPtr size : spec.sizes) {
        const std::optional<int64_t> v = ir::detail::evaluate_with(size, symbols);
        XPORT_CHECK(v.has_value(), UnsupportedOp, "aot::compile: input ", names_.at(p),
                    "'s size ", sym::str(size), " is not a function of the input symbols");
        meta.sizes.emplace_back(*v);
      }
      meta.strides = contiguous_strides(meta.sizes);
      out[p] = Tensor::make(nullptr, std::move(meta));
    }
    return out;
  }

  // ---- graphs as functions -------------------------------------------------------------------

  // What the code of one graph (the program's, or a subgraph's) knows of its values.
  struct GraphCode {
    const runtime::CompiledGraph* graph;
    const runtime::ExecutionPlan* plan;
    bool program;  // the program's graph: weights among its placeholders, steps prepared
    size_t id;     // its function is g<id>; its frame tensors are kFrames[id]
    std::vector<std::string> expr = {};  // per slot: its tensor's expression
    std::vector<int> root = {};  // per slot: the placeholder whose storage it lies in, or -1
    std::ostringstream run = {}, frame = {};
    int64_t frame_count = 0;
    bool run_symbols = false;  // steps the runtime runs, or that bind symbols: a run's slots
  };

  // Prints `graph`'s plan as the function g<id> (ids depth first, in the order steps reach
  // subgraphs: the order LoadedGraph makes their Shapes in), and returns its name.
  std::string emit_graph(const runtime::CompiledGraph& graph, const runtime::ExecutionPlan& plan,
                         bool program) {
    GraphCode code{.graph = &graph, .plan = &plan, .program = program,
                   .id = frame_tables_.size()};
    frame_tables_.emplace_back();
    GraphCode* const outer = std::exchange(g_, &code);
    const auto slots = static_cast<size_t>(graph.num_slots);
    code.expr.assign(slots, "");
    code.root.assign(slots, -1);
    bind_placeholders();
    for (size_t i = 0; i < plan.steps.size(); ++i) emit_step(i);
    emit_outputs();
    g_ = outer;
    const std::string name = "g" + std::to_string(code.id);
    members_ << "  std::vector<xport::Tensor> " << name
             << "(const xport::aot::Shape& sh, const std::vector<xport::Tensor>& p,\n"
             << "      const xport::aot::SymbolValues& symbols) const {\n"
             << "    const auto lease = sh.frame();\n"
             << "    const xport::aot::Frame& f = *lease;\n"
             << "    (void)sh;\n    (void)f;\n    (void)symbols;\n"
             << (code.run_symbols ? "    std::vector<xport::Tensor> slots(sh.num_slots());\n"
                                    "    xport::aot::SymbolValues run_symbols = symbols;\n"
                                  : "")
             << indent(code.run.str()) << "  }\n\n";
    frame_tables_[code.id] = {code.frame.str(), code.frame_count};
    return name;
  }

  void bind_placeholders() {
    for (size_t p = 0; p < g_->graph->placeholder_slots.size(); ++p) {
      const auto s = static_cast<size_t>(g_->graph->placeholder_slots[p]);
      g_->expr[s] = "p[" + std::to_string(p) + "]";
      g_->root[s] = static_cast<int>(p);
      // A subgraph's placeholders are its caller's values, given in each run.
      const bool user_input = !g_->program || prepared_.is_user_input[p];
      if (user_input || p >= program_placeholders_) continue;
      archive_ << "    {" << p << ", " << layout(prepared_.placeholders[p].meta()) << ", "
               << string_literal(names_[p]) << "},\n";
      ++archive_count_;
    }
  }

  // ---- steps --------------------------------------------------------------------------------

  void emit_step(size_t index) {
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

  static std::string where(const ir::Node& node) {
    return ir::detail::node_label(node) +
           (node.meta().source.empty() ? "" : " at " + node.meta().source);
  }

  // A step sized when it runs, or a composite op (compile() decomposes them first), as eager
  // execution runs it (aot::Shape::run_step). It reads its arguments from the table of slots.
  void emit_runtime_step(size_t index) {
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
  void emit_control_flow(size_t index) {
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
  void fill_slots(size_t index) {
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
  void take_results(size_t index, const std::string& call) {
    const runtime::CompiledStep& step = *g_->plan->steps[index].step;
    const std::string results = "r" + std::to_string(index);
    g_->run << "  const std::vector<xport::Tensor> " << results << " = " << call << ";\n";
    const auto first = static_cast<size_t>(step.first_slot);
    for (size_t o = 0; o < step.node->outputs().size(); ++o) {
      g_->expr[first + o] = results + "[" + std::to_string(o) + "]";
    }
  }

  // Step `index`'s output `o` in its Shape: a layout the run's symbols decide.
  static std::string shape_layout(size_t index, size_t o) {
    return "sh.layout(" + std::to_string(index) + ", " + std::to_string(o) + ")";
  }

  // A view's tensor: made with each frame where the plan keeps it there (its base is in the
  // frame or a weight), else per run.
  void view(size_t index, size_t o, size_t base) {
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
  void place(size_t index, size_t o) {
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
  std::string frame_tensor(size_t index, size_t o, int over) {
    g_->frame << "    {" << index << ", " << o << ", " << over << "},\n";
    return "f.t[" + std::to_string(g_->frame_count++) + "]";
  }

  // Each tensor argument's expression, by argument index (list arguments: "{a, b}").
  std::map<size_t, std::string> hole_exprs(const PlannedStep& planned) const {
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
  std::string call(const KernelSymbol& symbol, const std::vector<Value>& args,
                   const std::map<size_t, std::string>& tensors,
                   const std::vector<std::string>& outs, size_t step = 0,
                   const std::set<size_t>& sized = {}) {
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

  static std::string sized_argument(const std::string& type, size_t step, size_t index) {
    const std::string inner = unwrap_optional(type);
    const std::string value =
        "sh.arg(" + std::to_string(step) + ", " + std::to_string(index) + ")";
    if (inner == "int64_t") return value + ".to_int()";
    if (inner == "std::vector<int64_t>") return value + ".to_int_list()";
    if (inner == "xport::Scalar") return value + ".to_scalar()";
    if (inner == "double") return value + ".to_double()";
    XPORT_FAIL(Internal, "aot: no sized argument of type ", type);
  }

  std::string argument(const std::string& type, const Value& v,
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
  std::string constant(const std::string& type, const std::string& literal) {
    const std::string key = type + "=" + literal;
    const auto it = constant_names_.find(key);
    if (it != constant_names_.end()) return it->second;
    const std::string name = "kC" + std::to_string(constant_names_.size());
    globals_ << "const " << type << " " << name << " = " << literal << ";\n";
    constant_names_.emplace(key, name);
    return name;
  }

  // A layout's index in the table of layouts (kMeta), each layout once.
  size_t layout(const TensorMeta& m) {
    std::vector<int64_t> code = {static_cast<int64_t>(m.dtype),
                                 static_cast<int64_t>(m.sizes.size()),
                                 *m.storage_offset.maybe_int()};
    for (const SymInt& v : m.sizes) code.push_back(*v.maybe_int());
    for (const SymInt& v : m.strides) code.push_back(*v.maybe_int());
    const auto [it, added] = layout_index_.emplace(code, layout_index_.size());
    if (added) layouts_.insert(layouts_.end(), code.begin(), code.end());
    return it->second;
  }

  // ---- the runtime's own kernels ----------------------------------------------------------------

  // The runtime's packed convolution or matrix product of step `index` (made when the library
  // loads, as the runtime makes it), or an elementwise chain.
  void emit_packed(size_t index, const PackedCall& packed, const std::vector<std::string>& outs,
                   const std::string& guard) {
    const ir::Node& node = *g_->plan->steps[index].step->node;
    if (packed.kind == PackedCall::Kind::PointwiseChain) {
      emit_chain(node, outs.at(0), guard);
      return;
    }
    const std::string kernel = "*k_[" + std::to_string(packed_steps_.size()) + "]";
    packed_steps_.push_back(std::to_string(index));
    const std::string input = arg_expr(node, "input");
    if (packed.kind == PackedCall::Kind::Conv2d) {
      const std::string residual =
          node.arg("residual").is_none() ? "kNone" : arg_expr(node, "residual");
      g_->run << "  " << guard << "xport::aot::run_conv2d(" << kernel << ", " << input << ", "
              << residual << ", " << outs.at(0) << ");\n";
    } else {
      g_->run << "  " << guard << "xport::aot::run_linear(" << kernel << ", " << input << ", "
              << outs.at(0) << ");\n";
    }
    ++packed_calls_;
  }

  std::string arg_expr(const ir::Node& node, const char* name) const {
    const auto* ref = std::get_if<ir::ValueRef>(&node.arg(name).value);
    if (ref == nullptr) refuse(node, std::string("its '") + name + "' is not a graph value");
    return g_->expr[static_cast<size_t>(g_->graph->slot(*ref))];
  }

  // An elementwise chain (xport::fused_pointwise): a function of the translation unit that runs
  // the body's kernels on one chunk, each writing the scratch the next reads.
  void emit_chain(const ir::Node& node, const std::string& out, const std::string& guard) {
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

  // ---- outputs and the translation unit ---------------------------------------------------------

  void emit_outputs() {
    g_->run << "  return {";
    for (size_t r = 0; r < g_->graph->output_slots.size(); ++r) {
      const std::string& e = g_->expr[static_cast<size_t>(g_->graph->output_slots[r])];
      g_->run << (r ? ", " : "") << e << (g_->plan->copy_output[r] ? ".clone()" : "");
    }
    g_->run << "};\n";
  }

  std::string assemble() const {
    std::ostringstream out;
    out << "// Generated by xport::aot::compile: the runtime's plan of one program as C++. Do not "
           "edit.\n"
        << kGeneratedIncludes << "\n"
        << "namespace {\n\n"
        << "const xport::Tensor kNone;\n"
        << "// Each layout: dtype, rank, storage offset, sizes, strides.\n"
        << "constexpr int64_t kLayouts[] = " << table_literal(layouts_, to_string_int) << ";\n"
        << "const std::vector<xport::TensorMeta> kMeta = xport::aot::decode_layouts(kLayouts, "
        << layout_index_.size() << ");\n"
        << "// The archive's tensors the code reads, with the layout each must have.\n"
        << "constexpr xport::aot::ArchiveTensor kArchive[] = {\n" << table(archive_.str()) << "};\n"
        << "// The tensors of each function's frame: {step, output, placeholder viewed or -1: "
           "the arena}.\n"
        << frame_tables()
        << "// The steps that run a packed convolution or matrix product.\n"
        << "constexpr size_t kPackedSteps[] = " << table_literal(packed_steps_, identity) << ";\n"
        << globals_.str() << "\n"
        << functions_.str() << "\n"
        << "class Model final : public xport::aot::CompiledModel {\n public:\n"
        << "  void load(const xport::ExportedProgram& program, std::vector<xport::Tensor>& p) "
           "override {\n"
        << "    require_isa();\n"
        << "    xport::aot::expect_placeholders(p.size(), " << program_placeholders_ << ");\n"
        << "    xport::aot::expect_archive(p, kArchive, " << archive_count_ << ", kMeta);\n"
        << "    graph_ = std::make_unique<xport::aot::LoadedGraph>(program, p, "
        << (fuse_ ? "true" : "false") << ", UINT64_C(" << runtime::plan_fingerprint(graph_)
        << "), kFrames, " << frame_tables_.size() << ");\n"
        << "    for (size_t i = 0; i < " << packed_steps_.size() << "; ++i) {\n"
        << "      k_.push_back(&graph_->packed(kPackedSteps[i]));\n    }\n"
        << "  }\n\n"
        << "  std::vector<xport::Tensor> run(const std::vector<xport::Tensor>& p,\n"
        << "                                 const xport::aot::SymbolValues& symbols) const "
           "override {\n"
        << "    const std::shared_ptr<const xport::aot::Shape> shape = graph_->shape(p, "
           "symbols);\n"
        << "    return g0(*shape, p, symbols);\n  }\n\n"
        << "  std::string isa() const override {\n    std::string s;\n" << isa_lines("s += \" ")
        << "    return s.empty() ? s : s.substr(1);\n  }\n\n"
        << " private:\n"
        << "  // The program's graph (g0) and each subgraph of its control flow, as functions.\n"
        << members_.str()
        << "  static void require_isa() {\n" << isa_checks() << "  }\n"
        << "  std::unique_ptr<xport::aot::LoadedGraph> graph_;\n"
        << "  std::vector<const xport::aot::PackedKernel*> k_;\n};\n\n"
        << "}  // namespace\n\n"
        << "xport::aot::CompiledModel* xport_aot_new_model() { return new Model(); }\n";
    return out.str();
  }

  // kFrame<id> for each function, and kFrames, their table.
  std::string frame_tables() const {
    std::ostringstream out;
    for (size_t id = 0; id < frame_tables_.size(); ++id) {
      out << "constexpr xport::aot::FrameTensor kFrame" << id << "[] = {\n"
          << table(frame_tables_[id].first) << "};\n";
    }
    out << "constexpr xport::aot::FrameTable kFrames[] = {";
    for (size_t id = 0; id < frame_tables_.size(); ++id) {
      out << (id ? ", " : "") << "{kFrame" << id << ", " << frame_tables_[id].second << "}";
    }
    return out.str() + "};\n";
  }

  // A table's entries; `{}` is no array, so an empty table gets one unused entry.
  static std::string table(const std::string& text) {
    return text.empty() ? "    {},\n" : text;
  }

  static std::string indent(const std::string& body) {
    std::string out;
    std::istringstream in(body);
    for (std::string line; std::getline(in, line);) out += "  " + line + "\n";
    return out;
  }

  // The instruction-set extensions the compiler was told it may use (-march), recorded and
  // checked against the CPU at load.
  static const std::vector<std::pair<std::string, std::string>>& isa_features() {
    static const std::vector<std::pair<std::string, std::string>> kFeatures = {
        {"__AVX__", "avx"},           {"__AVX2__", "avx2"},
        {"__FMA__", "fma"},           {"__F16C__", "f16c"},
        {"__AVX512F__", "avx512f"},   {"__AVX512BW__", "avx512bw"},
        {"__AVX512VL__", "avx512vl"}, {"__AVX512DQ__", "avx512dq"},
        {"__AVX512BF16__", "avx512bf16"}};
    return kFeatures;
  }

  static std::string isa_lines(const std::string& prefix) {
    std::string out;
    for (const auto& [macro, name] : isa_features()) {
      out += "#ifdef " + macro + "\n    " + prefix + name + "\";\n#endif\n";
    }
    return out;
  }

  static std::string isa_checks() {
    std::string out;
    for (const auto& [macro, name] : isa_features()) {
      out += "#ifdef " + macro + "\n    xport::aot::require_cpu_feature(__builtin_cpu_supports(\"" +
             name + "\"), \"" + name + "\");\n#endif\n";
    }
    return out;
  }

  const ExportedProgram& program_;
  bool fuse_;
  std::vector<std::string> names_;  // per program placeholder: its name or target
  size_t program_placeholders_ = 0;
  runtime::PreparedGraph prepared_;
  runtime::CompiledGraph graph_;
  std::unique_ptr<runtime::ExecutionPlan> plan_;
  GraphCode* g_ = nullptr;  // the graph being printed
  std::ostringstream globals_, functions_, members_, archive_;
  // Per generated function: its frame tensors' entries and their count.
  std::vector<std::pair<std::string, int64_t>> frame_tables_;
  int64_t archive_count_ = 0;
  std::map<std::vector<int64_t>, size_t> layout_index_;
  std::vector<int64_t> layouts_;  // the archive tensors' layouts, encoded one after another
  std::vector<std::string> packed_steps_;
  std::map<std::string, std::string> constant_names_;
  int64_t kernel_calls_ = 0, packed_calls_ = 0, chains_ = 0, run_views_ = 0, runtime_steps_ = 0,
          control_flow_steps_ = 0;
};

}  // namespace

GeneratedModel generate(const ExportedProgram& program, bool fuse) {
  return Generator(program, fuse).run();
}

}  // namespace xport::aot
