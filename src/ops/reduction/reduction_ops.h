#pragma once
// Shared pieces of the reduction ops: which dims an op reduces and the sizes it keeps.

#include <string_view>
#include <vector>

#include "ops/op_util.h"
#include "xport/ops/derivative.h"

namespace xport::ops {

/// The wrapped, sorted dims of a dim-list argument (`int[1]? dim` or `int[1] dim`); None or an
/// empty list means every dim. Empty for a 0-dim self.
std::vector<int64_t> reduction_dims(const OpArgs& args, std::string_view name);
/// One `int dim` argument as a list: the wrapped dim, or nothing for a 0-dim self.
std::vector<int64_t> single_dim(const OpArgs& args, int64_t dim);
/// self's sizes with the reduced dims dropped, or kept as 1 with keepdim.
std::vector<SymInt> reduced_sizes(const Tensor& self, const std::vector<int64_t>& dims,
                                  bool keepdim);
/// Refuses reducing over a size-0 dim, for reductions with no identity (amax, max.dim, argmax).
void check_nonempty_dims(const OpArgs& args, const Tensor& self, const std::vector<int64_t>& dims);

/// A reduction's result gradient `g` spread back over self: the reduced `dims` (every dim when
/// empty) put back as size 1 unless `keepdim`, then expanded to self's shape.
Tensor expand_reduced(const Tensor& g, const Tensor& self, std::vector<int64_t> dims,
                      bool keepdim);

void register_minmax_ops();
void register_softmax_ops();

}  // namespace xport::ops
