#include "runtime/pointwise_chain.h"

#include "kernels/cpu/parallel.h"
#include "xport/error.h"

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

void PointwiseChain::run(const std::vector<Tensor>& inputs, const Tensor& out) const {
  XPORT_CHECK(out.is_contiguous() && out.dtype() == DType::Float32, Internal,
              "PointwiseChain::run: a contiguous float32 output expected");
  std::vector<Tensor> contiguous;
  for (const Tensor& t : inputs) {
    XPORT_CHECK(t.int_sizes() == out.int_sizes(), Internal,
                "PointwiseChain::run: an input's sizes differ from the output's");
    contiguous.push_back(t.is_contiguous() ? t : t.contiguous());
  }
  const int64_t numel = out.int_numel();
  const int64_t chunks = (numel + kChunk - 1) / kChunk;
  kernels::cpu::parallel_for(0, chunks, 1, [&](int64_t first, int64_t last) {
    const Tensor scratch[2] = {Tensor::empty_contiguous({kChunk}, DType::Float32),
                               Tensor::empty_contiguous({kChunk}, DType::Float32)};
    std::vector<Tensor> outs(1);
    for (int64_t c = first; c < last; ++c) {
      const int64_t lo = c * kChunk, n = std::min(kChunk, numel - lo);
      Tensor previous;
      for (size_t s = 0; s < steps_.size(); ++s) {
        const PointwiseStep& step = steps_[s];
        std::vector<Value> args = step.args;
        for (const auto& [index, source] : step.tensor_args) {
          args[index] =
              source < 0 ? previous : flat_view(contiguous[static_cast<size_t>(source)], lo, n);
        }
        outs[0] = s + 1 == steps_.size() ? flat_view(out, lo, n) : flat_view(scratch[s % 2], 0, n);
        step.op->kernel.fn(OpArgs(*step.op, std::move(args)), outs);
        previous = outs[0];
      }
    }
  });
}

}  // namespace xport::runtime
