// Typed kernels: an op's out-variant kernel as a named function whose parameters follow its
// schema, called by the registry and recorded for code generators.
#include "ops/typed_kernel.h"

#include <gtest/gtest.h>

#include "expect_error.h"
#include "kernels/cpu/pointwise.h"
#include "kernels/cpu/reduce.h"
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
  const KernelSymbol& relu = find_op("aten::relu").kernel.symbol;
  EXPECT_EQ(relu.name, "xport::kernels::cpu::relu_out");
  EXPECT_EQ(relu.parameters,
            (std::vector<std::string>{"const xport::Tensor&", "const xport::Tensor&"}));
  EXPECT_EQ(find_op("aten::mul.Tensor").kernel.symbol.name, "xport::kernels::cpu::mul_out");
  const KernelSymbol& sum = find_op("aten::sum.dim_IntList").kernel.symbol;
  EXPECT_EQ(sum.name, "xport::ops::sum_dim_IntList_out");
  EXPECT_EQ(sum.parameters,
            (std::vector<std::string>{"const xport::Tensor&",
                                      "const std::optional<std::vector<int64_t>>&", "bool",
                                      "std::optional<xport::DType>", "const xport::Tensor&"}));
}

// Every built-in op with a CPU kernel has it as a named function a code generator can call;
// higher-order ops call their subgraphs, and ops sized by their data allocate their outputs.
TEST(TypedKernel, EveryBuiltInKernelIsANamedFunction) {
  size_t typed = 0;
  for (const OpDef* op : all_ops()) {
    if (!op->kernel || op->higher_order || op->user_defined) continue;
    EXPECT_FALSE(op->kernel.symbol.name.empty()) << op->qualified_name << " has no typed kernel";
    typed += op->kernel.symbol.name.empty() ? 0 : 1;
  }
  std::printf("  %zu ops have a typed kernel\n", typed);
}

// sum.dim_IntList's parameters, as a user's op of the same signature takes them.
void sum_like_out(const Tensor& self, const std::optional<std::vector<int64_t>>& dim, bool,
                  std::optional<DType> dtype, const Tensor& out) {
  EXPECT_EQ(dim, std::optional<std::vector<int64_t>>(std::vector<int64_t>{1}));
  EXPECT_EQ(dtype, std::nullopt);
  kernels::cpu::sum_out(self, {1}, out);
}

TEST(TypedKernel, OptionalAndListParametersFollowTheSchema) {
  const OpKernel k = typed_kernel<&sum_like_out>("sum_like_out");
  register_op({
      .schema = "typed_test::sum_like(Tensor self, int[1]? dim, bool keepdim=False, *, "
                "ScalarType? dtype=None) -> Tensor",
      .meta = [](const OpArgs& a) {
        return std::vector<TensorMeta>{
            contiguous_meta({a.tensor("self").sizes()[0]}, DType::Float32)};
      },
      .kernel = k,
  });
  const Tensor x = randn({2, 3}, 1);
  const Tensor y = call_op("typed_test::sum_like", {x, std::vector<int64_t>{1}}).to_tensor();
  EXPECT_TRUE(allclose(y, x.sum(1)));
  // A list where the schema says an optional list is refused, naming the function.
  test_support::expect_error(
      [&] {
        register_op({
            .schema = "typed_test::sum_like_wrong(Tensor self, int[1] dim, bool keepdim=False, "
                      "*, ScalarType? dtype=None) -> Tensor",
            .meta = [](const OpArgs& a) {
              return std::vector<TensorMeta>{a.tensor("self").meta()};
            },
            .kernel = k,
        });
      },
      ErrorKind::InvalidSpec, {"typed_test::sum_like_wrong", "kernel sum_like_out takes 5"});
}

TEST(TypedKernel, TheRegistryCallsTheFunctionWithTheSchemasArguments) {
  const OpKernel k = typed_kernel<&scale_shift_out>("scale_shift_out");
  EXPECT_EQ(k.symbol.parameters, (std::vector<std::string>{"const xport::Tensor&", "int64_t",
                                                           "double", "const xport::Tensor&"}));
  register_op({
      .schema = "typed_test::scale_shift(Tensor x, int k, float offset) -> Tensor",
      .meta = [](const OpArgs& a) {
        return std::vector<TensorMeta>{contiguous_meta(a.tensor("x").sizes(), DType::Float32)};
      },
      .kernel = k,
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
  const OpKernel relu = XPORT_KERNEL(cpu::relu_out);
  test_support::expect_error(
      [&] {
        register_op({
            .schema = "typed_test::wrong(Tensor x, int k) -> Tensor",
            .meta = [](const OpArgs& a) { return std::vector<TensorMeta>{a.tensor("x").meta()}; },
            .kernel = relu,
        });
      },
      ErrorKind::InvalidSpec,
      {"typed_test::wrong", "kernel xport::kernels::cpu::relu_out takes 2 parameters"});
}

}  // namespace
}  // namespace xport::ops
