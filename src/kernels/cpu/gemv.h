#pragma once
// Matrix products of a few rows (a decoder's one-token step) by constant weights. At a few rows
// the product is bound by reading the weights, so they are packed once into the order the
// kernel reads them and each thread reads one sequential stream. This machine's prefetchers
// serve that as fast as a plain sequential read; oneDNN's matmul on its own blocked layout reads
// several streams at once and gets about 3/4 of it (GPT-2's 49 weights: 15.3 ms against
// 20.5 ms a pass, 2 threads).

#include <cstdint>
#include <memory>

#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

class PackedGemv {
 public:
  /// The most rows one call takes: each group of weights is read from memory once and reused
  /// from cache for every row.
  static constexpr int64_t kMaxRows = 4;

  /// weight [K, N], float32, any strides; copied (packed), so it may change afterwards.
  explicit PackedGemv(const Tensor& weight);

  /// out[r, n] = sum_k x[r, k] * W[k, n] for r < rows (1 <= rows <= kMaxRows); the rows of x are
  /// K floats apart, those of out N floats apart. Runs on the kernels' thread count.
  void run(const float* x, int64_t rows, float* out) const;

  int64_t k() const { return k_; }
  int64_t n() const { return n_; }

 private:
  int64_t k_ = 0, n_ = 0, k_padded_ = 0;
  std::shared_ptr<Storage> packed_;
};

}  // namespace xport::kernels::cpu
