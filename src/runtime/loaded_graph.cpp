// A compiled model's runtime side (xport/aot_model.h): the graph prepared at load as
// runtime::Program prepares it, and its plan per tuple of symbol values.
#include <string>

#include "ir/ir_util.h"
#include "program/write_back.h"
#include "runtime/compiled_graph.h"
#include "runtime/execution_plan.h"
#include "runtime/plan_cache.h"
#include "runtime/prepared_graph.h"
#include "runtime/run_inputs.h"
#include "xport/aot_model.h"

namespace xport::aot {

struct PackedKernel {
  std::shared_ptr<const kernels::cpu::PackedConv2d> conv;
  std::shared_ptr<const kernels::cpu::PackedLinear> linear;
};

void run_conv2d(const PackedKernel& kernel, const Tensor& input, const Tensor& residual,
                const Tensor& out) {
  kernel.conv->run(input, residual, out);
}

void run_linear(const PackedKernel& kernel, const Tensor& input, const Tensor& out) {
  kernel.linear->run(input, out);
}

namespace {
constexpr size_t kCachedShapes = 64;  // as runtime::Options::max_cached_plans
}  // namespace

struct LoadedGraph::Impl {
  Impl(const ExportedProgram& program, std::vector<Tensor>& placeholders, bool fuse)
      : shapes(program.symbols(), kCachedShapes) {
    std::vector<bool> is_user_input = runtime::program_placeholders(program).is_user_input;
    prepared = runtime::prepare_graph(program.graph(), std::move(placeholders),
                                      std::move(is_user_input),
                                      buffer_updates(program.signature()), fuse);
    graph = runtime::compile_graph(prepared.graph, &prepared.kernels);
    placeholders = prepared.placeholders;
    packed.resize(graph.steps.size());
    for (size_t i = 0; i < graph.steps.size(); ++i) {
      const auto it = prepared.packed.find(graph.steps[i].node);
      if (it != prepared.packed.end()) packed[i] = {it->second.conv, it->second.linear};
    }
  }

  runtime::PreparedGraph prepared;
  runtime::CompiledGraph graph;
  std::vector<PackedKernel> packed;  // per step
  std::vector<FrameTensor> frame;
  runtime::PlanCache<Shape> shapes;
};

LoadedGraph::LoadedGraph(const ExportedProgram& program, std::vector<Tensor>& placeholders,
                         bool fuse, uint64_t fingerprint, const FrameTensor* frame,
                         size_t frame_count)
    : impl_(std::make_unique<Impl>(program, placeholders, fuse)) {
  XPORT_CHECK(runtime::plan_fingerprint(impl_->graph) == fingerprint, InvalidArchive,
              "the runtime prepares this archive's program into other steps than the compiled "
              "model's (", impl_->graph.steps.size(), " steps): load it with the archive it was "
              "compiled from, by the xport it was compiled with");
  impl_->frame.assign(frame, frame + frame_count);
}

LoadedGraph::~LoadedGraph() = default;

std::shared_ptr<const Shape> LoadedGraph::shape(const std::vector<Tensor>& placeholders,
                                                const SymbolValues& symbols) const {
  const auto make = [&] {
    const std::shared_ptr<const runtime::ExecutionPlan> plan =
        runtime::make_plan(impl_->graph, placeholders, impl_->prepared.is_user_input, symbols);
    // Each frame tensor's base (null: the arena; weights outlive the runs) and layout.
    std::vector<std::pair<std::shared_ptr<Storage>, TensorMeta>> tensors;
    for (const FrameTensor& f : impl_->frame) {
      tensors.emplace_back(
          f.base < 0 ? nullptr : placeholders.at(static_cast<size_t>(f.base)).storage(),
          plan->steps.at(static_cast<size_t>(f.step)).outputs.at(static_cast<size_t>(f.out)));
    }
    return std::shared_ptr<const Shape>(new Shape(
        plan, [arena_bytes = plan->stats.arena_bytes, tensors = std::move(tensors)] {
          auto f = std::make_unique<Frame>();
          f->arena = Storage::allocate(arena_bytes);
          f->t.reserve(tensors.size());
          for (const auto& [base, layout] : tensors) {
            f->t.push_back(Tensor::make(base ? base : f->arena, layout));
          }
          return f;
        }));
  };
  return impl_->shapes.get(symbols, make);
}

const TensorMeta& Shape::layout(size_t step, size_t out) const {
  return plan_->steps[step].outputs[out];
}

const Value& Shape::arg(size_t step, size_t index) const { return plan_->steps[step].args[index]; }

bool Shape::runs(size_t step) const { return plan_->steps[step].run_kernel; }

std::vector<Tensor> LoadedGraph::run_step(const Shape& shape, size_t step,
                                          const std::vector<Tensor>& slots,
                                          SymbolValues& symbols) const {
  return runtime::run_step_at_run(shape.plan_->steps.at(step), impl_->graph, slots, symbols);
}

void LoadedGraph::bind(size_t step, const std::vector<Tensor>& outs,
                       SymbolValues& symbols) const {
  ir::detail::bind_unbacked(*impl_->graph.steps.at(step).node, outs, symbols);
}

size_t LoadedGraph::num_slots() const { return static_cast<size_t>(impl_->graph.num_slots); }

const PackedKernel& LoadedGraph::packed(size_t step) const {
  const PackedKernel& k = impl_->packed.at(step);
  XPORT_CHECK(k.conv || k.linear, Internal, "compiled model: step ", step,
              " has no packed kernel");
  return k;
}

}  // namespace xport::aot
