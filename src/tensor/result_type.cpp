#include "xport/tensor/result_type.h"

namespace xport {

ResultType& ResultType::tensor(const Tensor& t) { return tensor(t.dtype(), t.dim() > 0); }

ResultType& ResultType::tensor(DType dtype, bool has_dims) {
  std::optional<DType>& slot = has_dims ? dim_ : zero_dim_;
  slot = slot ? promote_types(*slot, dtype) : dtype;
  return *this;
}

ResultType& ResultType::scalar(const Scalar& s) {
  // A Python float is "default float" (float32), not float64, when it takes part.
  const DType d = s.is_float() ? kDefaultFloat : s.dtype();
  wrapped_ = wrapped_ ? promote_types(*wrapped_, d) : d;
  return *this;
}

namespace {
int category(DType d) { return d == DType::Bool ? 0 : is_floating(d) ? 2 : 1; }

// c10's combine_categories: the lower-priority class wins only with a higher category.
std::optional<DType> combine(std::optional<DType> higher, std::optional<DType> lower) {
  if (!higher) return lower;
  if (!lower) return higher;
  if (category(*higher) >= category(*lower)) return higher;
  return promote_types(*higher, *lower);
}
}  // namespace

DType ResultType::get() const {
  const std::optional<DType> r = combine(dim_, combine(zero_dim_, wrapped_));
  XPORT_CHECK(r.has_value(), Internal, "result_type of nothing");
  return *r;
}

}  // namespace xport
