#pragma once
// The generator behind aot::generate (codegen.h): it walks the runtime's execution plan of a
// program (codegen.cpp), prints each step as C++ (codegen_steps.cpp) and assembles the
// translation unit (codegen_assemble.cpp).

#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "aot/codegen.h"
#include "aot/codegen_literals.h"
#include "runtime/compiled_graph.h"
#include "runtime/execution_plan.h"
#include "runtime/prepared_graph.h"

namespace xport::aot::detail {

using runtime::PackedCall;
using runtime::Placement;
using runtime::PlannedStep;
using runtime::StepKind;

class Generator {
 public:
  Generator(const ExportedProgram& program, bool fuse);
  /// The whole translation unit, and its counts.
  GeneratedModel run();

 private:
  // refusals (codegen.cpp)
  void refuse(const ir::Node& node, const std::string& why) const;
  void refuse_custom_ops(const ir::Graph& graph) const;

  // the plan (codegen.cpp)
  void make_plan();
  std::vector<Tensor> fakes(const std::unordered_map<sym::ExprPtr, int64_t>& symbols) const;

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

  // graphs as functions (codegen.cpp)
  std::string emit_graph(const runtime::CompiledGraph& graph, const runtime::ExecutionPlan& plan,
                         bool program);
  void bind_placeholders();

  // steps (codegen_steps.cpp)
  void emit_step(size_t index);
  static std::string where(const ir::Node& node);
  void emit_runtime_step(size_t index);
  void emit_control_flow(size_t index);
  void fill_slots(size_t index);
  void take_results(size_t index, const std::string& call);
  static std::string shape_layout(size_t index, size_t o);
  void view(size_t index, size_t o, size_t base);
  void place(size_t index, size_t o);
  std::string frame_tensor(size_t index, size_t o, int over);
  std::map<size_t, std::string> hole_exprs(const PlannedStep& planned) const;
  std::string call(const KernelSymbol& symbol, const std::vector<Value>& args,
                   const std::map<size_t, std::string>& tensors,
                   const std::vector<std::string>& outs, size_t step = 0,
                   const std::set<size_t>& sized = {});
  static std::string sized_argument(const std::string& type, size_t step, size_t index);
  std::string argument(const std::string& type, const Value& v,
                       const std::map<size_t, std::string>& tensors, size_t index);
  std::string constant(const std::string& type, const std::string& literal);
  size_t layout(const TensorMeta& m);

  // the runtime's own kernels (codegen_steps.cpp)
  void emit_packed(size_t index, const PackedCall& packed, const std::vector<std::string>& outs,
                   const std::string& guard);
  std::string arg_expr(const ir::Node& node, const char* name) const;
  void emit_chain(const ir::Node& node, const std::string& out, const std::string& guard);

  // outputs and the translation unit (codegen_assemble.cpp)
  void emit_outputs();
  std::string assemble() const;
  std::string frame_tables() const;
  static std::string table(const std::string& text);
  static std::string indent(const std::string& body);
  static const std::vector<std::pair<std::string, std::string>>& isa_features();
  static std::string isa_lines(const std::string& prefix);
  static std::string isa_checks();

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

}  // namespace xport::aot::detail
