// A compiled model's runtime side (xport/runtime/aot_model.h): the graph prepared at load as
// runtime::Program prepares it, and its plan per tuple of symbol values.
#include <string>

#include "ir/ir_util.h"
#include "program/write_back.h"
#include "runtime/compiled_graph.h"
#include "runtime/execution_plan.h"
#include "runtime/plan_cache.h"
#include "runtime/prepared_graph.h"
#include "runtime/run_inputs.h"
#include "xport/runtime/aot_model.h"

namespace xport::aot {

struct PackedKernel {
  std::shared_ptr<const kernels::cpu::PackedConv2d> conv;
  std::shared_ptr<const kernels::cpu::PackedLinear> linear;
  runtime::PackedCall call;  // Kind::Quantized or Kind::Unary, or no kernel
};

void run_conv2d(const PackedKernel& kernel, const Tensor& input, const Tensor& residual,
                const Tensor& out) {
  kernel.conv->run(input, residual, out);
}

void run_linear(const PackedKernel& kernel, const Tensor& input, const Tensor& out) {
  kernel.linear->run(input, out);
}

void run_quantized(const PackedKernel& kernel, const Tensor& input, double input_scale,
                   int64_t input_zero_point, const Tensor& residual, const Tensor& out) {
  runtime::run_quantized(kernel.call, input, input_scale, input_zero_point, residual, out);
}

void run_unary(const PackedKernel& kernel, const Tensor& input, const Tensor& out) {
  kernel.call.unary(input, out);
}

namespace {

constexpr size_t kCachedShapes = 64;  // as runtime::Options::max_cached_plans

// Frames of `plan` whose tensors are `table`'s: over the arena, or views of a weight among
// `placeholders` (the program's graph only: a subgraph's inputs are its caller's, per run).
std::function<std::unique_ptr<Frame>()> frame_maker(const runtime::ExecutionPlan& plan,
                                                    const FrameTable& table,
                                                    const std::vector<Tensor>* placeholders) {
  // Each frame tensor's base (null: the arena; weights outlive the runs) and layout.
  std::vector<std::pair<std::shared_ptr<Storage>, TensorMeta>> tensors;
  for (size_t i = 0; i < table.count; ++i) {
    const FrameTensor& f = table.tensors[i];
    XPORT_CHECK(f.base < 0 || placeholders != nullptr, Internal,
                "compiled model: a subgraph's frame tensor views a placeholder");
    tensors.emplace_back(
        f.base < 0 ? nullptr : placeholders->at(static_cast<size_t>(f.base)).storage(),
        plan.steps.at(static_cast<size_t>(f.step)).outputs.at(static_cast<size_t>(f.out)));
  }
  return [arena_bytes = plan.stats.arena_bytes, tensors = std::move(tensors)] {
    auto f = std::make_unique<Frame>();
    f->arena = Storage::allocate(arena_bytes);
    f->t.reserve(tensors.size());
    for (const auto& [base, layout] : tensors) {
      f->t.push_back(Tensor::make(base ? base : f->arena, layout));
    }
    return f;
  };
}

}  // namespace

struct LoadedGraph::Impl {
  Impl(const ExportedProgram& program, std::vector<Tensor>& placeholders, bool fuse)
      : shapes(program.symbols(), kCachedShapes) {
    std::vector<bool> is_user_input = runtime::program_placeholders(program).is_user_input;
    prepared = runtime::prepare_graph(program.graph(), program.symbols(), std::move(placeholders),
                                      std::move(is_user_input),
                                      buffer_updates(program.signature()), fuse);
    graph = runtime::compile_graph(prepared.graph, &prepared.kernels);
    placeholders = prepared.placeholders;
    packed.resize(graph.steps.size());
    for (size_t i = 0; i < graph.steps.size(); ++i) {
      const auto it = prepared.packed.find(graph.steps[i].node);
      if (it == prepared.packed.end()) continue;
      const bool call = it->second.kind == runtime::PackedCall::Kind::Quantized ||
                        it->second.kind == runtime::PackedCall::Kind::Unary;
      packed[i] = {it->second.conv, it->second.linear, call ? it->second : runtime::PackedCall{}};
    }
  }

  // The Shape of `plan` (of `graph`) and of its subgraphs' plans, depth first, each with the
  // next of `frames`.
  std::unique_ptr<Shape> make_shape(std::shared_ptr<const runtime::ExecutionPlan> plan,
                                    const runtime::CompiledGraph& of,
                                    const std::vector<Tensor>* placeholders,
                                    size_t& next) const {
    XPORT_CHECK(next < frames.size(), Internal, "compiled model: more subgraphs planned than the "
                "code has functions (", frames.size(), ")");
    const FrameTable& table = frames[next++];
    std::unique_ptr<Shape> shape(
        new Shape(plan, of, frame_maker(*plan, table, placeholders)));
    shape->subgraphs_.resize(plan->steps.size());
    for (size_t i = 0; i < plan->steps.size(); ++i) {
      const runtime::PlannedStep& planned = plan->steps[i];
      for (size_t k = 0; k < planned.subplans.size(); ++k) {
        shape->subgraphs_[i].push_back(make_shape(planned.subplans[k],
                                                  *planned.step->subgraphs[k].second, nullptr,
                                                  next));
      }
    }
    return shape;
  }

  runtime::PreparedGraph prepared;
  runtime::CompiledGraph graph;
  std::vector<PackedKernel> packed;  // per step
  std::vector<FrameTable> frames;    // per generated function
  runtime::PlanCache<Shape> shapes;
};

LoadedGraph::LoadedGraph(const ExportedProgram& program, std::vector<Tensor>& placeholders,
                         bool fuse, uint64_t fingerprint, const FrameTable* frames,
                         size_t functions)
    : impl_(std::make_unique<Impl>(program, placeholders, fuse)) {
  XPORT_CHECK(runtime::plan_fingerprint(impl_->graph) == fingerprint, InvalidArchive,
              "the runtime prepares this archive's program into other steps than the compiled "
              "model's (", impl_->graph.steps.size(), " steps): load it with the archive it was "
              "compiled from, by the xport it was compiled with");
  impl_->frames.assign(frames, frames + functions);
}

LoadedGraph::~LoadedGraph() = default;

std::shared_ptr<const Shape> LoadedGraph::shape(const std::vector<Tensor>& placeholders,
                                                const SymbolValues& symbols) const {
  const auto make = [&] {
    size_t next = 0;
    std::shared_ptr<const Shape> shape = impl_->make_shape(
        runtime::make_plan(impl_->graph, placeholders, impl_->prepared.is_user_input, symbols),
        impl_->graph, &placeholders, next);
    XPORT_CHECK(next == impl_->frames.size(), Internal, "compiled model: ", next,
                " graphs planned, the code has ", impl_->frames.size(), " functions");
    return shape;
  };
  return impl_->shapes.get(symbols, make);
}

const TensorMeta& Shape::layout(size_t step, size_t out) const {
  return plan_->steps[step].outputs[out];
}

const Value& Shape::arg(size_t step, size_t index) const { return plan_->steps[step].args[index]; }

bool Shape::runs(size_t step) const { return plan_->steps[step].run_kernel; }

size_t Shape::num_slots() const { return static_cast<size_t>(graph_->num_slots); }

std::vector<Tensor> Shape::run_step(size_t step, const std::vector<Tensor>& slots,
                                    SymbolValues& symbols) const {
  return runtime::run_step_at_run(plan_->steps.at(step), *graph_, slots, symbols);
}

std::vector<Tensor> Shape::run_control_flow(size_t step, const std::vector<Tensor>& slots,
                                            const std::vector<SubgraphFn>& bodies,
                                            SymbolValues& symbols) const {
  const std::vector<std::unique_ptr<const Shape>>& shapes = subgraphs_.at(step);
  XPORT_CHECK(bodies.size() == shapes.size(), Internal, "compiled model: step ", step, " has ",
              shapes.size(), " subgraphs, the code ", bodies.size());
  std::vector<Tensor> outs = runtime::run_higher_order(
      plan_->steps[step], slots,
      [&](size_t k, const std::vector<Tensor>& inputs) { return bodies[k](*shapes[k], inputs); });
  bind(step, outs, symbols);
  return outs;
}

void Shape::bind(size_t step, const std::vector<Tensor>& outs, SymbolValues& symbols) const {
  const runtime::CompiledStep& compiled = *plan_->steps.at(step).step;
  if (compiled.binds) ir::detail::bind_unbacked(*compiled.node, outs, symbols);
}

const PackedKernel& LoadedGraph::packed(size_t step) const {
  const PackedKernel& k = impl_->packed.at(step);
  XPORT_CHECK(
      k.conv || k.linear || k.call.quantized_linear || k.call.quantized_conv || k.call.unary,
      Internal, "compiled model: step ", step, " has no packed kernel");
  return k;
}

}  // namespace xport::aot
