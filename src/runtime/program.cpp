#include <algorithm>
#include <map>
#include <mutex>
#include <numeric>
#include <sstream>

#include "kernels/cpu/cpu_isa.h"
#include "kernels/cpu/parallel.h"
#include "program/input_check.h"
#include "program/write_back.h"
#include "runtime/compiled_graph.h"
#include "runtime/execution_plan.h"
#include "runtime/plan_cache.h"
#include "runtime/prepared_graph.h"
#include "runtime/run_inputs.h"
#include "runtime/shared_model.h"
#include "xport/runtime.h"

namespace xport::runtime {

using Symbols = ir::SymbolValues;

namespace {

// As many inputs as the contract has, each of its entry's kind (lists of its length).
bool has_contract_kinds(const std::vector<InputContract>& contract,
                        const std::vector<Value>& inputs) {
  if (inputs.size() != contract.size()) return false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value& v = inputs[i];
    switch (contract[i].kind) {
      case InputContract::Kind::Tensor:
        if (!v.is_tensor()) return false;
        break;
      case InputContract::Kind::TensorList:
        if (!v.is_list() || v.to_tensor_list().size() != contract[i].elements.size()) {
          return false;
        }
        break;
      case InputContract::Kind::Int:
        if (!v.is_int()) return false;
        break;
      case InputContract::Kind::Float:
        if (!v.is_double()) return false;
        break;
      case InputContract::Kind::Bool:
        if (!v.is_bool()) return false;
        break;
    }
  }
  return true;
}

}  // namespace

struct Program::Impl {
  ExportedProgram program;
  Options options;
  // The graph the runtime plans: program's, optimized when options.fuse (prepare_graph).
  PreparedGraph prepared;
  CompiledGraph graph;
  // A program that updates buffers runs one call at a time: each call reads the state the
  // previous one left, as eager calls in sequence would.
  bool mutates_state = false;
  mutable std::mutex state_mutex;

  // Plans by symbol values (with every input contiguous, they fix every layout).
  PlanCache<ExecutionPlan> plans;

  // A model compiled ahead of time runs in its library, which plans nothing here.
  std::unique_ptr<SharedModel> compiled;
  std::string compiled_path;

  static void check_options(const Options& options) {
    XPORT_CHECK(options.num_threads >= 0, InvalidInput, "runtime::Options: num_threads is ",
                options.num_threads, "; give a positive count, or 0 for the machine's cores");
    XPORT_CHECK(options.max_cached_plans >= 1, InvalidInput,
                "runtime::Options: max_cached_plans is ", options.max_cached_plans,
                "; give at least 1");
  }

  Impl(ExportedProgram p, Options o, std::unique_ptr<SharedModel> model, std::string path)
      : program(std::move(p)), options(o), plans(program.symbols(), 1),
        compiled(std::move(model)), compiled_path(std::move(path)) {}

  Impl(ExportedProgram p, Options o)
      : program(std::move(p)), options(o),
        plans(program.symbols(), static_cast<size_t>(std::max(o.max_cached_plans, 1))) {
    check_options(options);
    const std::vector<BufferUpdate> updates = buffer_updates(program.signature());
    mutates_state = !updates.empty();
    ProgramPlaceholders placeholders = program_placeholders(program);
    prepared = prepare_graph(program.graph(), program.symbols(), std::move(placeholders.tensors),
                             std::move(placeholders.is_user_input), updates, options.fuse);
    graph = compile_graph(prepared.graph, &prepared.kernels);
  }

  // The placeholder tensors for one run, user inputs made contiguous at offset 0; `user` gets
  // the caller's tensors as given.
  std::vector<Tensor> bind_placeholders(const std::vector<Value>& inputs, Symbols& symbols,
                                        std::vector<Tensor>* user_out = nullptr) const {
    return bind_run_inputs(program, prepared.placeholders, prepared.is_user_input, inputs,
                           symbols, user_out);
  }

  std::shared_ptr<const ExecutionPlan> plan_for(const std::vector<Tensor>& bound,
                                                const Symbols& symbols) const {
    return plans.get(symbols, [&] {
      std::unique_ptr<ExecutionPlan> made =
          make_plan(graph, bound, prepared.is_user_input, symbols);
      for (size_t o : prepared.in_place_outputs) made->copy_output.at(o) = false;
      made->stats.buffers_updated_in_place =
          static_cast<int64_t>(prepared.in_place_outputs.size());
      return made;
    });
  }
};

Program::Program(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Program::Program(Program&&) noexcept = default;
Program& Program::operator=(Program&&) noexcept = default;
Program::~Program() = default;

Program Program::load(const std::string& path, Options options, ArchiveInfo* info) {
  ArchiveInfo ignored;
  ArchiveInfo& described = info != nullptr ? *info : ignored;
  if (!is_compiled_model(path)) return from_exported(xport::load(path, described), options);
  // A compiled model: its library runs it; the archive it embeds, or the one beside it,
  // describes it here.
  Impl::check_options(options);
  auto model = std::make_unique<SharedModel>(path, options.num_threads);
  std::optional<ExportedProgram> program = model->embedded_program(described);
  if (!program) program.emplace(xport::load(compiled_model_archive(path), described));
  return Program(std::make_unique<Impl>(std::move(*program), options, std::move(model), path));
}

Program Program::from_exported(ExportedProgram program, Options options) {
  return Program(std::make_unique<Impl>(std::move(program), options));
}

std::vector<Tensor> Program::run(const std::vector<Tensor>& inputs) const {
  return run_values(std::vector<Value>(inputs.begin(), inputs.end()));
}

std::vector<Tensor> Program::run_values(const std::vector<Value>& inputs) const {
  if (impl_->compiled) {
    // The library checks the contract with the runtime's code; a call it could not even take
    // apart (an input missing, a list for a tensor) is checked here, for the runtime's message.
    if (!has_contract_kinds(impl_->program.contract(), inputs)) {
      Symbols symbols;
      check_inputs(impl_->program.contract(), impl_->program.symbols(), inputs, symbols);
    }
    return impl_->compiled->run(inputs);
  }
  Symbols symbols;
  std::vector<Tensor> user;
  const std::vector<Tensor> bound = impl_->bind_placeholders(inputs, symbols, &user);
  const kernels::cpu::ThreadCountScope threads(impl_->options.num_threads);
  std::unique_lock<std::mutex> state_lock(impl_->state_mutex, std::defer_lock);
  if (impl_->mutates_state) state_lock.lock();
  const std::shared_ptr<const ExecutionPlan> plan = impl_->plan_for(bound, symbols);
  return write_back_mutations(impl_->program.signature(), execute(*plan, impl_->graph, bound),
                              impl_->program.state(), user);
}

PlanStats Program::plan_stats(const std::vector<Value>& inputs) const {
  if (impl_->compiled) {
    PlanStats stats;
    stats.planned = false;
    stats.unplanned_reason = "compiled ahead of time (" + impl_->compiled_path +
                             "): the plan is the library's code, called through its " +
                             impl_->compiled->entrance();
    return stats;
  }
  Symbols symbols;
  const std::vector<Tensor> bound = impl_->bind_placeholders(inputs, symbols);
  PlanStats stats = impl_->plan_for(bound, symbols)->stats;
  if (impl_->options.fuse) stats.fusion = impl_->prepared.stats.str();
  return stats;
}

std::vector<OpTime> Program::profile(const std::vector<Value>& inputs, int runs) const {
  XPORT_CHECK(runs >= 1, InvalidInput, "runtime::Program::profile: runs is ", runs,
              "; give at least 1");
  XPORT_CHECK(!impl_->compiled, UnsupportedOp, "runtime::Program::profile: ",
              impl_->compiled_path, " is compiled ahead of time and times no op; profile its "
              "archive, ", compiled_model_archive(impl_->compiled_path));
  Symbols symbols;
  std::vector<Tensor> user;
  const std::vector<Tensor> bound = impl_->bind_placeholders(inputs, symbols, &user);
  const kernels::cpu::ThreadCountScope threads(impl_->options.num_threads);
  std::unique_lock<std::mutex> state_lock(impl_->state_mutex, std::defer_lock);
  if (impl_->mutates_state) state_lock.lock();
  const std::shared_ptr<const ExecutionPlan> plan = impl_->plan_for(bound, symbols);
  // Each profiled run is a run: updates of buffers and inputs are applied as run() applies them.
  auto run_once = [&](std::vector<double>* step_ms) {
    write_back_mutations(impl_->program.signature(),
                         execute(*plan, impl_->graph, bound, step_ms), impl_->program.state(),
                         user);
  };
  run_once(nullptr);  // untimed: first-touch of weights and arena
  std::vector<std::vector<double>> per_run;
  for (int r = 0; r < runs; ++r) {
    std::vector<double> step_ms(plan->steps.size(), 0.0);
    run_once(&step_ms);
    per_run.push_back(std::move(step_ms));
  }
  // The median run by total kernel time, so one op's figures add up with the others'.
  std::sort(per_run.begin(), per_run.end(), [](const auto& a, const auto& b) {
    return std::accumulate(a.begin(), a.end(), 0.0) < std::accumulate(b.begin(), b.end(), 0.0);
  });
  const std::vector<double>& median = per_run[per_run.size() / 2];
  std::map<std::string, OpTime> by_op;
  for (size_t i = 0; i < plan->steps.size(); ++i) {
    const PlannedStep& step = plan->steps[i];
    if (step.step->kind == StepKind::View || !step.run_kernel) continue;
    OpTime& t = by_op[step.step->op->qualified_name];
    t.op = step.step->op->qualified_name;
    t.calls += 1;
    t.ms += median[i];
  }
  std::vector<OpTime> out;
  for (auto& [name, t] : by_op) out.push_back(std::move(t));
  std::sort(out.begin(), out.end(), [](const OpTime& a, const OpTime& b) { return a.ms > b.ms; });
  return out;
}

const std::vector<InputContract>& Program::contract() const { return impl_->program.contract(); }
const std::vector<SymbolSpec>& Program::symbols() const { return impl_->program.symbols(); }
const ExportedProgram& Program::program() const { return impl_->program; }
const Options& Program::options() const { return impl_->options; }

size_t Program::cached_plans() const { return impl_->plans.size(); }

std::string PlanStats::str() const {
  if (!planned) return "not planned: " + unplanned_reason;
  std::ostringstream out;
  out << kernel_steps << " kernel steps, " << view_steps << " views, ";
  if (run_time_steps > 0) out << run_time_steps << " steps sized when they run, ";
  if (composite_steps > 0) {
    out << composite_steps << " composite ops run as their decomposition (xport decompose "
           "makes them kernel steps), ";
  }
  if (buffers_updated_in_place > 0) {
    out << buffers_updated_in_place << " buffers updated in place, ";
  }
  out << arena_values
      << " intermediates in a " << arena_bytes << "-byte arena (lower bound " << lower_bound_bytes
      << "), " << output_bytes << " output bytes";
  if (!fusion.empty()) out << "; fusion: " << fusion;
  return out.str();
}

std::string kernel_isa() { return kernels::cpu::kernel_isa(); }

}  // namespace xport::runtime
