#pragma once
/// \file What code that xport::aot::compile generates builds on: the model interface it
/// implements, and the few runtime services it calls besides the typed kernels of
/// xport/kernels.h (packed convolutions and matrix products, chunked elementwise chains, a pool
/// of per-run memory). Part of the runtime library; users call a compiled model through its C
/// ABI (xport/runtime/model_abi.h) or runtime::Program::load("m.so"), never through this header.

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "xport/core/scalar.h"
#include "xport/program/exported_program.h"
#include "xport/runtime/frame_pool.h"
#include "xport/tensor/tensor.h"
#include "xport/tensor/value.h"

namespace xport::runtime {
class ExecutionPlan;
struct CompiledGraph;
}  // namespace xport::runtime

namespace xport::aot {

/// The values of a program's symbols in one run, as the contract check binds them.
using SymbolValues = std::unordered_map<sym::ExprPtr, int64_t>;

/// A compiled graph: the generated code's class. The runtime binds the archive's state and the
/// caller's inputs around it exactly as runtime::Program does.
class CompiledModel {
 public:
  virtual ~CompiledModel() = default;
  /// `placeholders` holds `program`'s placeholders (weights and buffers from the archive, user
  /// inputs undefined); the model checks the archive's tensors are the ones it was compiled
  /// for and prepares the graph as the runtime does, which appends the constants the load-time
  /// passes make (LoadedGraph). Throws InvalidArchive.
  virtual void load(const ExportedProgram& program, std::vector<Tensor>& placeholders) = 0;
  /// Runs the graph on every placeholder (user inputs contiguous at offset 0) with the symbols'
  /// values the inputs gave; thread-safe.
  virtual std::vector<Tensor> run(const std::vector<Tensor>& placeholders,
                                  const SymbolValues& symbols) const = 0;
  /// The instruction-set extensions the code was compiled for ("avx2 fma"), or "".
  virtual std::string isa() const = 0;
};

/// `count` layouts encoded one after another as dtype, rank, storage offset, sizes, strides.
std::vector<TensorMeta> decode_layouts(const int64_t* code, size_t count);
/// A tensor of `meta`'s layout at the start of `storage`.
inline Tensor tensor_in(const std::shared_ptr<Storage>& storage, const TensorMeta& meta) {
  return Tensor::make(storage, meta);
}
/// A freshly allocated tensor of `meta`'s layout.
Tensor fresh_tensor(const TensorMeta& meta);
/// Storage over memory that something else keeps alive (a caller's input during a run): it
/// frees nothing.
std::shared_ptr<Storage> unowned_storage(const void* data, int64_t bytes);
/// Throws InvalidArchive unless the archive has `expected` placeholders.
void expect_placeholders(size_t count, size_t expected);

/// A tensor of the archive the code reads: placeholder `placeholder` must have `layout`.
struct ArchiveTensor {
  int placeholder;
  int layout;
  const char* name;
};
/// Throws InvalidArchive naming the first tensor whose dtype, sizes, strides or offset differ.
void expect_archive(const std::vector<Tensor>& placeholders, const ArchiveTensor* tensors,
                    size_t count, const std::vector<TensorMeta>& layouts);

/// A graph-computed number (a 0-d tensor) as a kernel's Scalar argument.
Scalar scalar_of(const Tensor& t);
/// A `Tensor?[]` argument: undefined tensors are None.
std::vector<std::optional<Tensor>> optional_tensors(std::initializer_list<Tensor> tensors);
/// Throws InvalidInput naming the CPU feature this code needs and the CPU lacks.
void require_cpu_feature(bool present, const char* feature);

/// A kernel whose weights were reordered once at load (the runtime's own), opaque here.
struct PackedKernel;
void run_conv2d(const PackedKernel& kernel, const Tensor& input, const Tensor& residual,
                const Tensor& out);
void run_linear(const PackedKernel& kernel, const Tensor& input, const Tensor& out);
/// A matrix product or convolution on int8 weights (xport::quantized_linear, quantized_conv2d,
/// requantized_conv2d): the input's scale and zero point per run; `residual` is kNone but for
/// a requantized convolution that adds one.
void run_quantized(const PackedKernel& kernel, const Tensor& input, double input_scale,
                   int64_t input_zero_point, const Tensor& residual, const Tensor& out);
/// A kernel of one tensor in and one out that the runtime chose at load (a max pool of 8-bit
/// values kept NHWC).
void run_unary(const PackedKernel& kernel, const Tensor& input, const Tensor& out);

/// A chain of elementwise kernels in one pass over memory: `chain(in, scratch, out)` runs on
/// 1-D chunks of `inputs` (each of out's sizes) and `out`, with two chunk-sized scratch
/// tensors for the intermediates.
using ChainFn = void (*)(const Tensor* in, const Tensor* scratch, const Tensor& out);
void run_chunked(const std::vector<Tensor>& inputs, const Tensor& out, ChainFn chain);

/// One run's memory: the arena and the tensors that live in it (or view a weight), made when
/// the frame is and reused by every run of one shape that gets the frame.
struct Frame {
  std::shared_ptr<Storage> arena;
  std::vector<Tensor> t;
};

/// A tensor every frame holds: step `step`'s output `out`, over the frame's arena (`base` -1) or
/// over placeholder `base`'s storage (a view of a weight).
struct FrameTensor {
  int step;
  int out;
  int base;
};

/// The frame tensors of one graph's function: the program's, then each subgraph's, in the
/// order the generated code reaches them (depth first, steps in order).
struct FrameTable {
  const FrameTensor* tensors;
  size_t count;
};

class Shape;
/// A subgraph's generated function: runs it in `shape` (the subgraph's) on its inputs.
using SubgraphFn = std::function<std::vector<Tensor>(const Shape& shape,
                                                     const std::vector<Tensor>& inputs)>;

/// The runtime's plan of one graph (the program's or a subgraph's) for one tuple of symbol
/// values (runtime::make_plan, the same as runtime::Program's): each step's outputs' layouts,
/// its arguments as bound for these values, whether it runs (an empty result needs no kernel),
/// its frames, pooled, and its higher-order steps' subgraphs' Shapes.
class Shape {
 public:
  const TensorMeta& layout(size_t step, size_t out) const;
  const Value& arg(size_t step, size_t index) const;
  bool runs(size_t step) const;
  runtime::FramePool<Frame>::Lease frame() const { return frames_.acquire(); }
  /// The graph's number of slots (values), for the table of slots the runtime's steps read.
  size_t num_slots() const;
  /// Runs step `step` as the runtime runs it, for the steps the generated code leaves to the
  /// runtime: steps sized when they run (data-dependent sizes), and higher-order ops whose
  /// subgraphs were not generated. `slots` holds the tensor of each slot the step reads;
  /// `symbols` gains the unbacked symbols it binds.
  std::vector<Tensor> run_step(size_t step, const std::vector<Tensor>& slots,
                               SymbolValues& symbols) const;
  /// Runs higher-order step `step` (cond, map, while_loop: the op's own kernel) with subgraph k
  /// run by `bodies[k]` in its Shape.
  std::vector<Tensor> run_control_flow(size_t step, const std::vector<Tensor>& slots,
                                       const std::vector<SubgraphFn>& bodies,
                                       SymbolValues& symbols) const;
  /// Binds the unbacked symbols step `step` defines (item(), a size read from data) from its
  /// outputs `outs`.
  void bind(size_t step, const std::vector<Tensor>& outs, SymbolValues& symbols) const;

 private:
  friend class LoadedGraph;
  Shape(std::shared_ptr<const runtime::ExecutionPlan> plan, const runtime::CompiledGraph& graph,
        std::function<std::unique_ptr<Frame>()> make)
      : plan_(std::move(plan)), graph_(&graph), frames_(std::move(make)) {}
  std::shared_ptr<const runtime::ExecutionPlan> plan_;
  const runtime::CompiledGraph* graph_;
  runtime::FramePool<Frame> frames_;
  /// Per step: its subgraphs' Shapes (higher-order steps planned ahead).
  std::vector<std::vector<std::unique_ptr<const Shape>>> subgraphs_;
};

/// The runtime's side of a compiled model: the program's graph prepared once at load exactly as
/// runtime::Program prepares it (constants folded, batch norms folded into convolutions, weights
/// packed for oneDNN), and its Shape for each tuple of symbol values the inputs give, made on
/// first use and kept (64 at most, the oldest dropped). The generated code is this graph's
/// steps, in order, as direct calls.
class LoadedGraph {
 public:
  /// `placeholders` (the program's) gets the constants the load-time passes make appended.
  /// Throws InvalidArchive when the prepared graph is not the one the code was generated from
  /// (`fingerprint`, runtime's plan_fingerprint).
  /// `frames` holds each generated function's frame tensors (FrameTable's order).
  LoadedGraph(const ExportedProgram& program, std::vector<Tensor>& placeholders, bool fuse,
              uint64_t fingerprint, const FrameTable* frames, size_t functions);
  ~LoadedGraph();
  LoadedGraph(const LoadedGraph&) = delete;
  LoadedGraph& operator=(const LoadedGraph&) = delete;

  /// The Shape of these placeholders (user inputs contiguous at offset 0) and symbol values; a
  /// program without symbols has one, kept apart from the cache (no lookup per run).
  std::shared_ptr<const Shape> shape(const std::vector<Tensor>& placeholders,
                                     const SymbolValues& symbols) const;
  /// Step `step`'s packed convolution or matrix product.
  const PackedKernel& packed(size_t step) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace xport::aot

/// Defined by the generated code: its model, for the C ABI's xport_model_load.
xport::aot::CompiledModel* xport_aot_new_model();
