// aot::generate: the generator walks the runtime's execution plan of a program (a plan for
// values its symbols' ranges admit) and prints each graph, subgraphs included, as a function.

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

namespace xport::aot {
namespace detail {

Generator::Generator(const ExportedProgram& program, bool fuse) : program_(program), fuse_(fuse) {
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

GeneratedModel Generator::run() {
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

void Generator::refuse(const ir::Node& node, const std::string& why) const {
  XPORT_FAIL(UnsupportedOp, "aot::compile: node ", ir::detail::node_label(node), ": ", why,
             "; run the archive in the runtime (runtime::Program) instead");
}

// A custom op, even one the plan no longer calls (its decomposition expanded at load): the
// library loads the archive, whose every op it must know.
void Generator::refuse_custom_ops(const ir::Graph& graph) const {
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

// Where each value lives (the arena, a fresh allocation, its base's storage) and which
// arguments are graph values do not depend on the symbols' values; the sizes, strides and
// offsets do, and the library takes them from the runtime's plan of each run's values
// (aot::LoadedGraph). So the structure is planned here for values the symbols' ranges admit.
void Generator::make_plan() {
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
std::vector<Tensor> Generator::fakes(const std::unordered_map<sym::ExprPtr, int64_t>& symbols) const {
  std::vector<Tensor> out = prepared_.placeholders;
  const std::vector<const ir::Node*> nodes = graph_.graph->placeholders();
  for (size_t p = 0; p < out.size(); ++p) {
    if (!prepared_.is_user_input[p]) continue;
    const ir::TensorSpec& spec = nodes.at(p)->outputs().at(0);
    std::optional<TensorMeta> meta = spec.concrete(symbols, ir::TensorSpec::Layout::Contiguous);
    XPORT_CHECK(meta.has_value(), UnsupportedOp, "aot::compile: input ", names_.at(p), " (",
                spec.str(), ") has a size that is not a function of the input symbols");
    out[p] = Tensor::make(nullptr, std::move(*meta));
  }
  return out;
}

// Prints `graph`'s plan as the function g<id> (ids depth first, in the order steps reach
// subgraphs: the order LoadedGraph makes their Shapes in), and returns its name.
std::string Generator::emit_graph(const runtime::CompiledGraph& graph, const runtime::ExecutionPlan& plan,
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

void Generator::bind_placeholders() {
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

}  // namespace detail

GeneratedModel generate(const ExportedProgram& program, bool fuse) {
  return detail::Generator(program, fuse).run();
}

}  // namespace xport::aot
