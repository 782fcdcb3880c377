#pragma once
/// \file What code that xport::aot::compile generates builds on: the model interface it
/// implements, and the few runtime services it calls besides the typed kernels of
/// xport/kernels.h (packed convolutions and matrix products, chunked elementwise chains, a pool
/// of per-run memory). Part of the runtime library; users call a compiled model through its C
/// ABI (xport/model_abi.h) or runtime::Program::load("m.so"), never through this header.

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "xport/scalar.h"
#include "xport/tensor.h"

namespace xport::aot {

/// A compiled graph: the generated code's class. The runtime binds the archive's state and the
/// caller's inputs around it exactly as runtime::Program does.
class CompiledModel {
 public:
  virtual ~CompiledModel() = default;
  /// `placeholders` holds the program's placeholders (weights and buffers from the archive,
  /// user inputs undefined); the model checks the archive's tensors are the ones it was compiled
  /// for, appends the constants it embeds, and packs its kernels' weights. Throws
  /// InvalidArchive.
  virtual void load(std::vector<Tensor>& placeholders) = 0;
  /// Runs the graph on every placeholder (user inputs contiguous at offset 0); thread-safe.
  virtual std::vector<Tensor> run(const std::vector<Tensor>& placeholders) const = 0;
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
/// Storage over memory that something else keeps alive (the library's embedded constants, a
/// caller's input during a run): it frees nothing.
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

/// A constant the load-time passes made, appended to the placeholders in order: a view of
/// placeholder `view_of` (a transposed weight), or, when it is -1, `bytes` embedded at `offset`.
struct ConstantTensor {
  int view_of;
  int layout;
  int64_t offset;
  int64_t bytes;
};
void add_constants(std::vector<Tensor>& placeholders, const ConstantTensor* constants,
                   size_t count, const std::vector<TensorMeta>& layouts,
                   const unsigned char* embedded);

/// A graph-computed number (a 0-d tensor) as a kernel's Scalar argument.
Scalar scalar_of(const Tensor& t);
/// A `Tensor?[]` argument: undefined tensors are None.
std::vector<std::optional<Tensor>> optional_tensors(std::initializer_list<Tensor> tensors);
/// Throws InvalidInput naming the CPU feature this code needs and the CPU lacks.
void require_cpu_feature(bool present, const char* feature);

/// Kernels whose weights are reordered once at load (the runtime's own), opaque here.
struct PackedKernel;
/// One to pack: a convolution (`kind` 0; `params`: stride h, w, padding h, w, dilation h, w,
/// groups, residual, relu, and whether the input, residual and result are channels-last) or a
/// matrix product (`kind` 1; params[0]: the activation, kernels::cpu::LinearActivation), with
/// the placeholders holding its weight and bias (-1: none).
struct PackedSpec {
  int kind;
  int weight;
  int bias;
  int64_t params[12];
};
std::vector<std::shared_ptr<const PackedKernel>> pack_kernels(
    const std::vector<Tensor>& placeholders, const PackedSpec* specs, size_t count);
void run_conv2d(const PackedKernel& kernel, const Tensor& input, const Tensor& residual,
                const Tensor& out);
void run_linear(const PackedKernel& kernel, const Tensor& input, const Tensor& out);

/// A chain of elementwise kernels in one pass over memory: `chain(in, scratch, out)` runs on
/// 1-D chunks of `inputs` (each of out's sizes) and `out`, with two chunk-sized scratch
/// tensors for the intermediates.
using ChainFn = void (*)(const Tensor* in, const Tensor* scratch, const Tensor& out);
void run_chunked(const std::vector<Tensor>& inputs, const Tensor& out, ChainFn chain);

/// Per-run memory (an arena and the tensors placed in it) reused across runs; any number of
/// runs at once each get their own.
template <class Frame>
class FramePool {
 public:
  class Lease {
   public:
    Lease(const FramePool& pool, std::unique_ptr<Frame> frame)
        : pool_(pool), frame_(std::move(frame)) {}
    ~Lease() { pool_.release(std::move(frame_)); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Frame& operator*() const { return *frame_; }

   private:
    const FramePool& pool_;
    std::unique_ptr<Frame> frame_;
  };

  explicit FramePool(std::function<std::unique_ptr<Frame>()> make) : make_(std::move(make)) {}
  Lease acquire() const {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!free_.empty()) {
        std::unique_ptr<Frame> frame = std::move(free_.back());
        free_.pop_back();
        return Lease(*this, std::move(frame));
      }
    }
    return Lease(*this, make_());
  }

 private:
  void release(std::unique_ptr<Frame> frame) const {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(std::move(frame));
  }
  std::function<std::unique_ptr<Frame>()> make_;
  mutable std::mutex mutex_;
  mutable std::vector<std::unique_ptr<Frame>> free_;
};

}  // namespace xport::aot

/// Defined by the generated code: its model, for the C ABI's xport_model_load.
xport::aot::CompiledModel* xport_aot_new_model();
