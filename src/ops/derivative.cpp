// Backward: what a derivative rule reads and sets, and the reductions torch.autograd applies to
// every gradient it passes on (broadcast dims summed, the argument's dtype).
#include "xport/ops/derivative.h"

#include "ops/op_util.h"
#include "xport/ops/factories.h"

namespace xport {
namespace {

// A size known to be 1 without a guard (a literal 1).
bool literally_one(const SymInt& s) { return !s.is_symbolic() && s.as_int_unchecked() == 1; }

bool same_sizes(const std::vector<SymInt>& a, const std::vector<SymInt>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_same(b[i])) return false;
  }
  return true;
}

}  // namespace

Tensor sum_to_size(const Tensor& grad, const std::vector<SymInt>& sizes) {
  const std::vector<SymInt> have = grad.sizes();
  if (same_sizes(have, sizes)) return grad;
  const int64_t lead = grad.dim() - static_cast<int64_t>(sizes.size());
  XPORT_CHECK(lead >= 0, Internal, "sum_to_size: a gradient of shape ", ops::shape_str(have),
              " has fewer dims than its argument's shape ", ops::shape_str(sizes));
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < lead; ++d) dims.push_back(d);
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t d = lead + static_cast<int64_t>(i);
    if (literally_one(sizes[i]) && !literally_one(have[d])) dims.push_back(d);
  }
  Tensor r = dims.empty() ? grad : grad.sum(dims, true);
  if (lead > 0) r = r.reshape(sizes);
  return r;
}

Backward::Backward(const OpArgs& args, const std::vector<Tensor>& results,
                   std::vector<Tensor> grads, std::vector<bool> needs)
    : args_(args),
      results_(results),
      grads_(std::move(grads)),
      needs_(std::move(needs)),
      gradients_(args.size()) {
  XPORT_CHECK(needs_.size() == args.size(), Internal, args.name(),
              ": a derivative asked for with ", needs_.size(), " flags for ", args.size(),
              " arguments");
}

Tensor Backward::grad(size_t i) const {
  if (has_grad(i)) return grads_[i];
  return zeros_like(result(i));
}

void Backward::set(ArgName name, Tensor grad) {
  const size_t i = args_.index(name);
  if (!needs_[i] || !grad.defined()) return;
  const Tensor& arg = args_[i].to_tensor();
  grad = sum_to_size(grad, arg.sizes());
  XPORT_CHECK(same_sizes(grad.sizes(), arg.sizes()), Internal, args_.name(),
              ": its derivative gave ", name.view(), " a gradient of shape ",
              ops::shape_str(grad.sizes()), " for a value of shape ",
              ops::shape_str(arg.sizes()));
  if (grad.dtype() != arg.dtype()) grad = grad.to(arg.dtype());
  gradients_[i] = std::move(grad);
}

void Backward::set_list(ArgName name, std::vector<Tensor> grads) {
  const size_t i = args_.index(name);
  if (!needs_[i]) return;
  const std::vector<Tensor>& list = args_[i].to_tensor_list();
  XPORT_CHECK(grads.size() == list.size(), Internal, args_.name(), ": its derivative gave ",
              name.view(), " ", grads.size(), " gradients for ", list.size(), " tensors");
  for (size_t k = 0; k < grads.size(); ++k) {
    if (!grads[k].defined()) continue;
    grads[k] = sum_to_size(grads[k], list[k].sizes());
    if (grads[k].dtype() != list[k].dtype()) grads[k] = grads[k].to(list[k].dtype());
  }
  gradients_[i] = std::move(grads);
}

std::vector<Value> run_derivative(const OpArgs& args, const std::vector<Tensor>& results,
                                  std::vector<Tensor> grads, std::vector<bool> needs) {
  const OpDef& op = args.op();
  XPORT_CHECK(static_cast<bool>(op.derivative), UnsupportedOp, op.qualified_name,
              " has no derivative rule, so no gradient can pass through it");
  Backward backward(args, results, std::move(grads), std::move(needs));
  op.derivative(backward);
  return backward.gradients();
}

}  // namespace xport
