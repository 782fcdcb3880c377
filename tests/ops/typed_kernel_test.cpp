// Typed kernels: an op's out-variant kernel as a named function whose parameters follow its
// schema, called by the registry and recorded for code generators.
#include "ops/typed_kernel.h"

#include <gtest/gtest.h>

#include "expect_error.h"
#include "kernels/cpu/pointwise.h"
#include "ops/op_util.h"
#include "xport/xport.h"

namespace xport::ops {
namespace {

// x * k + offset, in float32 (a kernel with an int and a float parameter).
void scale_shift_out(const Tensor& x, int64_t k, double offset, const Tensor& out) {
  const Tensor c = x.contiguous();
  const float* in = c.data<float>();
  float* to = out.mutable_data<float>();
  for (int64_t i = 0; i < c.int_numel(); ++i) {
    to[i] = in[i] * static_cast<float>(k) + static_cast<float>(offset);
  }
}

TEST(TypedKernel, RecordsTheFunctionsNameAndParameters) {
  const KernelSymbol& relu = find_op("aten::relu").kernel_symbol;
  EXPECT_EQ(relu.name, "xport::kernels::cpu::relu_out");
  EXPECT_EQ(relu.parameters,
            (std::vector<std::string>{"const xport::Tensor&", "const xport::Tensor&"}));
  EXPECT_EQ(find_op("aten::mul.Tensor").kernel_symbol.name, "xport::kernels::cpu::mul_out");
  // The Scalar overload converts its scalar first: no function takes its arguments as they are.
  EXPECT_TRUE(find_op("aten::mul.Scalar").kernel_symbol.name.empty());
  size_t typed = 0;
  for (const OpDef* op : all_ops()) typed += op->kernel_symbol.name.empty() ? 0 : 1;
  std::printf("  %zu of %zu ops have a typed kernel\n", typed, all_ops().size());
  EXPECT_GE(typed, 45u);  // unary, binary (Tensor overloads), where
}

TEST(TypedKernel, TheRegistryCallsTheFunctionWithTheSchemasArguments) {
  const TypedKernel k = typed_kernel<&scale_shift_out>("scale_shift_out");
  EXPECT_EQ(k.symbol.parameters, (std::vector<std::string>{"const xport::Tensor&", "int64_t",
                                                           "double", "const xport::Tensor&"}));
  register_op({
      .schema = "typed_test::scale_shift(Tensor x, int k, float offset) -> Tensor",
      .meta = [](const OpArgs& a) {
        return std::vector<TensorMeta>{contiguous_meta(a.tensor(0).sizes(), DType::Float32)};
      },
      .cpu = k.fn,
      .kernel_symbol = k.symbol,
  });
  const Tensor x = randn({2, 3}, 1);
  const Tensor y = call_op("typed_test::scale_shift", {x, int64_t{3}, 0.5}).to_tensor();
  EXPECT_TRUE(allclose(y, x * 3.0 + 0.5));
  // The same function, called as generated code would call it.
  Tensor out = empty_like(x);
  kernels::cpu::relu_out(x, out);
  EXPECT_TRUE(allclose(out, relu(x)));
}

TEST(TypedKernel, AFunctionThatDoesNotFollowTheSchemaIsRefused) {
  const TypedKernel relu = XPORT_KERNEL(cpu::relu_out);
  test_support::expect_error(
      [&] {
        register_op({
            .schema = "typed_test::wrong(Tensor x, int k) -> Tensor",
            .meta = [](const OpArgs& a) { return std::vector<TensorMeta>{a.tensor(0).meta()}; },
            .cpu = relu.fn,
            .kernel_symbol = relu.symbol,
        });
      },
      ErrorKind::InvalidSpec,
      {"typed_test::wrong", "kernel xport::kernels::cpu::relu_out takes 2 parameters"});
}

}  // namespace
}  // namespace xport::ops
