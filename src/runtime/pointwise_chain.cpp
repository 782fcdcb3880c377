#include "runtime/pointwise_chain.h"

#include <algorithm>

#include "kernels/cpu/parallel.h"
#include "xport/core/error.h"

namespace xport::runtime {
namespace {

// 16K floats: a chunk and its two intermediates stay well inside L2.
constexpr int64_t kChunk = 16384;

// Elements [lo, lo + n) of a contiguous tensor, as a 1-D view.
Tensor flat_view(const Tensor& t, int64_t lo, int64_t n) {
  TensorMeta meta;
  meta.sizes = {n};
  meta.strides = {1};
  meta.storage_offset = *t.storage_offset().maybe_int() + lo;
  meta.dtype = t.dtype();
  return Tensor::make(t.storage(), std::move(meta));
}

}  // namespace

void for_each_chunk(const std::vector<Tensor>& inputs, const Tensor& out, const ChunkFn& chunk) {
  XPORT_CHECK(out.is_contiguous() && out.dtype() == DType::Float32, Internal,
              "for_each_chunk: a contiguous float32 output expected");
  std::vector<Tensor> contiguous;
  for (const Tensor& t : inputs) {
    XPORT_CHECK(t.int_sizes() == out.int_sizes(), Internal,
                "for_each_chunk: an input's sizes differ from the output's");
    contiguous.push_back(t.is_contiguous() ? t : t.contiguous());
  }
  const int64_t numel = out.int_numel();
  const int64_t chunks = (numel + kChunk - 1) / kChunk;
  kernels::cpu::parallel_for(0, chunks, 1, [&](int64_t first, int64_t last) {
    const int64_t piece = std::min(kChunk, numel);  // a small tensor needs small scratch
    const Tensor scratch[2] = {Tensor::empty_contiguous({piece}, DType::Float32),
                               Tensor::empty_contiguous({piece}, DType::Float32)};
    std::vector<Tensor> in(contiguous.size());
    for (int64_t c = first; c < last; ++c) {
      const int64_t lo = c * kChunk, n = std::min(kChunk, numel - lo);
      for (size_t i = 0; i < in.size(); ++i) in[i] = flat_view(contiguous[i], lo, n);
      const Tensor pieces[2] = {flat_view(scratch[0], 0, n), flat_view(scratch[1], 0, n)};
      chunk(in, pieces, flat_view(out, lo, n));
    }
  });
}

void PointwiseChain::run(const std::vector<Tensor>& inputs, const Tensor& out) const {
  for_each_chunk(inputs, out, [&](const std::vector<Tensor>& in, const Tensor* scratch,
                                  const Tensor& piece) {
    std::vector<Tensor> outs(1);
    Tensor previous;
    for (size_t s = 0; s < steps_.size(); ++s) {
      const PointwiseStep& step = steps_[s];
      std::vector<Value> args = step.args;
      for (const auto& [index, source] : step.tensor_args) {
        args[index] = source < 0 ? previous : in[static_cast<size_t>(source)];
      }
      outs[0] = s + 1 == steps_.size() ? piece : scratch[s % 2];
      step.op->kernel.fn(OpArgs(*step.op, std::move(args)), outs);
      previous = outs[0];
    }
  });
}

}  // namespace xport::runtime
