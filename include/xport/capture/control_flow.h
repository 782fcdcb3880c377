#pragma once
/// \file Control flow that export keeps: cond, map and while_loop. Outside capture they simply
/// run; under export_program each traces its functions as subgraphs of one graph node, so the
/// exported program decides at run time (PyTorch's torch.cond, torch.ops.higher_order.map_impl
/// and while_loop).
///
/// The functions may read tensors they close over (and module parameters): those become
/// explicit inputs of the subgraphs. They may not update their inputs or outer tensors in place
/// (InvalidSpec naming the line), and a tensor made inside them is used outside only by
/// returning it.

#include <functional>
#include <vector>

#include "xport/core/sym.h"
#include "xport/tensor/tensor.h"

namespace xport {

using BranchFn = std::function<std::vector<Tensor>(const std::vector<Tensor>& operands)>;
using MapFn = std::function<std::vector<Tensor>(const Tensor& x, const std::vector<Tensor>& args)>;
using LoopCondFn = std::function<Tensor(const std::vector<Tensor>& carried)>;
using LoopBodyFn = std::function<std::vector<Tensor>(const std::vector<Tensor>& carried)>;

/// true_fn(operands) when `pred` (a bool tensor with one element) holds, else false_fn(operands).
/// Both branches return the same number of tensors with the same dtypes and sizes; under
/// capture both are traced, whatever the example takes.
std::vector<Tensor> cond(const Tensor& pred, BranchFn true_fn, BranchFn false_fn,
                         std::vector<Tensor> operands);
/// The same with a shape condition (`x.size(0) > 4`): under capture both branches are kept and
/// no guard is recorded; the program picks one when it runs.
std::vector<Tensor> cond(const SymBool& pred, BranchFn true_fn, BranchFn false_fn,
                         std::vector<Tensor> operands);
/// fn(xs[i], args) for each i along xs's leading dim; each output stacked on a new leading dim.
std::vector<Tensor> map(MapFn fn, const Tensor& xs, std::vector<Tensor> args = {});
/// While cond_fn(carried) (a bool tensor with one element) holds, carried = body_fn(carried);
/// returns the final carried values. body_fn keeps each value's dtype and sizes.
std::vector<Tensor> while_loop(LoopCondFn cond_fn, LoopBodyFn body_fn,
                               std::vector<Tensor> carried);

}  // namespace xport
