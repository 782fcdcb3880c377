#include "ops/op_util.h"
#include "xport/ops/functions.h"

namespace xport {

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol) {
  // Compare in float64 so the tolerance, not a dtype's rounding, decides.
  const Tensor x = a.to(DType::Float64), y = b.to(DType::Float64);
  try {
    const Tensor close = (x - y).abs().le((y.abs() * rtol + atol));
    const Tensor both_nan = logical_and(isnan(x), isnan(y));
    const Tensor ok = logical_or(close, both_nan);
    for (bool v : ok.to_vector<bool>())
      if (!v) return false;
    return true;
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::InvalidInput) return false;  // shapes do not broadcast
    throw;
  }
}

}  // namespace xport
