#pragma once
// A chain of elementwise ops, each reading the one before it, run in one pass over memory: the
// elements are cut into cache-sized chunks, and every op's own kernel runs on a chunk before the
// next chunk starts, so intermediates never leave the cache. The kernels are the ops' own, so the
// result is what running the ops one by one gives.

#include <functional>
#include <utility>
#include <vector>

#include "xport/ops/op_registry.h"
#include "xport/tensor/tensor.h"
#include "xport/tensor/value.h"

namespace xport::runtime {

/// Runs `chunk` on cache-sized 1-D pieces of `out` (contiguous float32) and of `inputs` (each of
/// out's sizes, made contiguous first), in parallel, with two scratch tensors of the piece's
/// size for intermediates: what PointwiseChain and the chains of compiled models run on.
using ChunkFn = std::function<void(const std::vector<Tensor>& inputs, const Tensor* scratch,
                                   const Tensor& out)>;
void for_each_chunk(const std::vector<Tensor>& inputs, const Tensor& out, const ChunkFn& chunk);

struct PointwiseStep {
  const OpDef* op = nullptr;
  /// The op's arguments with the literals bound; tensor arguments are filled per chunk.
  std::vector<Value> args;
  /// (argument index, source): source -1 is the previous step's result, k >= 0 the chain's
  /// input k.
  std::vector<std::pair<size_t, int>> tensor_args;
};

class PointwiseChain {
 public:
  explicit PointwiseChain(std::vector<PointwiseStep> steps) : steps_(std::move(steps)) {}
  /// out (contiguous float32) = the chain over `inputs`, each with out's sizes.
  void run(const std::vector<Tensor>& inputs, const Tensor& out) const;
  size_t size() const { return steps_.size(); }

 private:
  std::vector<PointwiseStep> steps_;
};

}  // namespace xport::runtime
