// Arithmetic on floats only the data decides (item_float() under capture): PyTorch's graphs
// compute them with Python's operators (`_operator.mul(item, 0.5)`), and so do ours. Each result
// is a one-element float64 value, as a Python float is a double.

#include "ops/op_util.h"
#include "ops/register_all.h"
#include "ops/typed_kernel.h"

namespace xport::ops {
namespace {

std::vector<TensorMeta> float_result(const OpArgs&) {
  return {contiguous_meta({}, DType::Float64)};
}

void set_result(const Tensor& out, double v) { *static_cast<double*>(out.raw_data()) = v; }

}  // namespace

void operator_add_out(const Scalar& a, const Scalar& b, const Tensor& out) {
  set_result(out, a.to_double() + b.to_double());
}
void operator_sub_out(const Scalar& a, const Scalar& b, const Tensor& out) {
  set_result(out, a.to_double() - b.to_double());
}
void operator_mul_out(const Scalar& a, const Scalar& b, const Tensor& out) {
  set_result(out, a.to_double() * b.to_double());
}
// Python's float division: x / 0.0 raises ZeroDivisionError there; here it is inf or nan, as in
// a tensor op.
void operator_truediv_out(const Scalar& a, const Scalar& b, const Tensor& out) {
  set_result(out, a.to_double() / b.to_double());
}
void operator_neg_out(const Scalar& a, const Tensor& out) { set_result(out, -a.to_double()); }

void register_sym_float_ops() {
  struct Binary {
    const char* schema;
    OpKernel kernel;
  };
  const Binary binaries[] = {
      {"_operator::add(Scalar a, Scalar b) -> Scalar", XPORT_OP_KERNEL(operator_add_out)},
      {"_operator::sub(Scalar a, Scalar b) -> Scalar", XPORT_OP_KERNEL(operator_sub_out)},
      {"_operator::mul(Scalar a, Scalar b) -> Scalar", XPORT_OP_KERNEL(operator_mul_out)},
      {"_operator::truediv(Scalar a, Scalar b) -> Scalar", XPORT_OP_KERNEL(operator_truediv_out)},
  };
  for (const Binary& b : binaries) {
    register_op({.schema = b.schema,
                 .meta = float_result,
                 .kernel = b.kernel,
                 .core = true});
  }
  register_op({
      .schema = "_operator::neg(Scalar a) -> Scalar",
      .meta = float_result,
      .kernel = XPORT_OP_KERNEL(operator_neg_out),
      .core = true,
  });
}

}  // namespace xport::ops
