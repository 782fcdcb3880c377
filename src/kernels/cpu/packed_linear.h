#pragma once
// A matrix product with constant weights, out = act(input @ weight + bias). Many rows run on
// oneDNN's matmul primitive: the weights are reordered once into the layout its kernels read
// fastest, and the activation runs as a post-op while the result is still in cache. A few rows
// (a decoder's one-token step) run on PackedGemv, whose layout reads the weights as one stream.
// Each layout is made the first time a call needs it, so a program that runs both keeps two
// packed copies of the weights. Weights that view a loaded file hand their pages back once
// packed (detail::release_file_pages): the packed copy is what stays in memory.

#include <map>
#include <memory>
#include <mutex>

#include "kernels/cpu/linear_activation.h"
#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

class PackedGemv;

class PackedLinear {
 public:
  /// weight [K, N] with any strides (e.g. a transposed [N, K] parameter); bias [N] or undefined.
  /// Both float32, and never changed afterwards.
  PackedLinear(Tensor weight, Tensor bias, LinearActivation activation);
  ~PackedLinear();
  PackedLinear(const PackedLinear&) = delete;
  PackedLinear& operator=(const PackedLinear&) = delete;

  /// out [M, N] (contiguous, sized by the caller) from input [M, K]. Thread-safe.
  void run(const Tensor& input, const Tensor& out) const;

 private:
  struct Primitive;
  struct Packed;
  std::shared_ptr<const Primitive> primitive_for(int64_t rows) const;
  const PackedGemv& gemv() const;
  void run_few_rows(const Tensor& x, const Tensor& out) const;

  Tensor weight_, bias_;
  LinearActivation activation_;
  mutable std::mutex mutex_;
  mutable std::map<int64_t, std::shared_ptr<const Primitive>> by_rows_;
  // Packed copies of the weights, by the layout a primitive asked for (rarely more than one).
  mutable std::vector<std::shared_ptr<const Packed>> packed_;
  mutable std::shared_ptr<const PackedGemv> gemv_;
};

}  // namespace xport::kernels::cpu
