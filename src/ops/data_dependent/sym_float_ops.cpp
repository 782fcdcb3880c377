// Arithmetic on floats only the data decides (item_float() under capture): PyTorch's graphs
// compute them with Python's operators (`_operator.mul(item, 0.5)`), and so do ours. Each result
// is a one-element float64 value, as a Python float is a double.

#include "ops/op_util.h"
#include "ops/register_all.h"

namespace xport::ops {
namespace {

std::vector<TensorMeta> float_result(const OpArgs&) { return {contiguous_meta({}, DType::Float64)}; }

template <class Fn>
KernelFn binary_kernel(Fn fn) {
  return [fn](const OpArgs& args, std::vector<Tensor>& outs) {
    *static_cast<double*>(outs[0].raw_data()) =
        fn(args.scalar(0).to_double(), args.scalar(1).to_double());
  };
}

}  // namespace

void register_sym_float_ops() {
  struct Binary {
    const char* schema;
    KernelFn cpu;
  };
  const Binary binaries[] = {
      {"_operator::add(Scalar a, Scalar b) -> Scalar",
       binary_kernel([](double a, double b) { return a + b; })},
      {"_operator::sub(Scalar a, Scalar b) -> Scalar",
       binary_kernel([](double a, double b) { return a - b; })},
      {"_operator::mul(Scalar a, Scalar b) -> Scalar",
       binary_kernel([](double a, double b) { return a * b; })},
      // Python's float division: x / 0.0 raises ZeroDivisionError there; here it is inf or nan,
      // as in a tensor op.
      {"_operator::truediv(Scalar a, Scalar b) -> Scalar",
       binary_kernel([](double a, double b) { return a / b; })},
  };
  for (const Binary& b : binaries) {
    register_op({.schema = b.schema, .meta = float_result, .cpu = b.cpu, .core = true});
  }
  register_op({
      .schema = "_operator::neg(Scalar a) -> Scalar",
      .meta = float_result,
      .cpu =
          [](const OpArgs& args, std::vector<Tensor>& outs) {
            *static_cast<double*>(outs[0].raw_data()) = -args.scalar(0).to_double();
          },
      .core = true,
  });
}

}  // namespace xport::ops
