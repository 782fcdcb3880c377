#pragma once
/// \file Derivative rules: how one call of an op passes the loss's gradient back to its
/// arguments. Each differentiable op states its rule beside its definition (OpDef::derivative),
/// in terms of ops, as PyTorch's derivatives.yaml does; train::grad runs the rules over a
/// captured graph, and the op table checks each against torch.autograd.

#include <cstddef>
#include <vector>

#include "xport/ops/op_registry.h"

namespace xport {

/// One call as its derivative rule sees it: the forward call's arguments and results, the
/// gradient of the loss with respect to each result, and the gradients the rule sets for its
/// arguments.
class Backward {
 public:
  /// `needs`: per schema argument, whether its gradient is wanted.
  Backward(const OpArgs& args, const std::vector<Tensor>& results, std::vector<Tensor> grads,
           std::vector<bool> needs);

  /// The forward call's arguments, read by name as in the op's meta function.
  const OpArgs& args() const { return args_; }
  const Tensor& result(size_t i = 0) const { return results_.at(i); }
  /// d loss / d result `i`: zeros when no gradient reaches that result.
  Tensor grad(size_t i = 0) const;
  bool has_grad(size_t i) const { return i < grads_.size() && grads_[i].defined(); }
  /// Whether the gradient of argument `name` (a Tensor or Tensor[]) is wanted.
  bool needs(ArgName name) const { return needs_.at(args_.index(name)); }
  /// The gradient of argument `name`. Like torch.autograd, it is summed over the dims the
  /// argument was broadcast along and converted to the argument's dtype. Ignored when the
  /// gradient is not wanted.
  void set(ArgName name, Tensor grad);
  /// The gradients of a Tensor[] argument, one per element (undefined: none).
  void set_list(ArgName name, std::vector<Tensor> grads);
  /// What the rule set, by argument position: a Tensor, a Tensor list, or none.
  const std::vector<Value>& gradients() const { return gradients_; }

 private:
  const OpArgs& args_;
  const std::vector<Tensor>& results_;
  std::vector<Tensor> grads_;
  std::vector<bool> needs_;
  std::vector<Value> gradients_;
};

/// Runs the derivative rule of `args.op()` (UnsupportedOp naming the op when it has none) and
/// returns the gradients by argument position. Eager on real tensors; under capture, recorded.
std::vector<Value> run_derivative(const OpArgs& args, const std::vector<Tensor>& results,
                                  std::vector<Tensor> grads, std::vector<bool> needs);

/// `grad` summed down to `sizes`: over its leading dims and over the dims where `sizes` has a 1
/// and `grad` does not (what broadcasting `sizes` to grad's shape expanded).
Tensor sum_to_size(const Tensor& grad, const std::vector<SymInt>& sizes);

}  // namespace xport
