// Unary pointwise ops: one row each (schema, output dtype rule, kernel, core tag).
#include "kernels/cpu/pointwise.h"
#include "ops/op_util.h"
#include "ops/register_all.h"
#include "ops/typed_kernel.h"

namespace xport::ops {
namespace {

namespace cpu = kernels::cpu;

enum class OutDType {
  Same,   // the input's dtype
  Float,  // integers and bool become float32 (ops defined on reals)
  Bool,   // predicates
};
enum class Accepts { Any, NotBool, Floating, IntegralOrBool };

struct UnaryRow {
  const char* schema;
  OpKernel kernel;
  OutDType out = OutDType::Float;
  Accepts accepts = Accepts::Any;
  bool core = true;
};

DType out_dtype(OutDType rule, DType in) {
  switch (rule) {
    case OutDType::Same:
      return in;
    case OutDType::Float:
      return is_floating(in) ? in : kDefaultFloat;
    case OutDType::Bool:
      return DType::Bool;
  }
  return in;
}

void check_accepts(const OpArgs& args, Accepts accepts, DType in) {
  switch (accepts) {
    case Accepts::Any:
      return;
    case Accepts::NotBool:
      XPORT_CHECK(in != DType::Bool, InvalidInput, args.name(),
                  ": not supported for bool tensors; convert with .to(DType::Int64) or use "
                  "logical_not");
      return;
    case Accepts::Floating:
      XPORT_CHECK(is_floating(in), InvalidInput, args.name(), ": needs a floating tensor, got ",
                  dtype_name(in), "; convert with .to(DType::Float32)");
      return;
    case Accepts::IntegralOrBool:
      XPORT_CHECK(!is_floating(in), InvalidInput, args.name(),
                  ": needs an integer or bool tensor, got ", dtype_name(in));
      return;
  }
}

MetaFn unary_meta(OutDType out, Accepts accepts) {
  return [out, accepts](const OpArgs& args) {
    const Tensor& self = args.tensor("self");
    check_accepts(args, accepts, self.dtype());
    return std::vector<TensorMeta>{contiguous_meta(self.sizes(), out_dtype(out, self.dtype()))};
  };
}

}  // namespace

void gelu_out(const Tensor& self, const std::string& approximate, const Tensor& out) {
  cpu::gelu_out(self, approximate == "tanh", out);
}

void register_unary_ops() {
  using O = OutDType;
  using A = Accepts;
  const UnaryRow rows[] = {
      {"aten::neg(Tensor self) -> Tensor", XPORT_KERNEL(cpu::neg_out), O::Same, A::NotBool},
      {"aten::abs(Tensor self) -> Tensor", XPORT_KERNEL(cpu::abs_out), O::Same, A::NotBool},
      {"aten::sign(Tensor self) -> Tensor", XPORT_KERNEL(cpu::sign_out), O::Same},
      {"aten::exp(Tensor self) -> Tensor", XPORT_KERNEL(cpu::exp_out)},
      {"aten::expm1(Tensor self) -> Tensor", XPORT_KERNEL(cpu::expm1_out)},
      {"aten::log(Tensor self) -> Tensor", XPORT_KERNEL(cpu::log_out)},
      {"aten::log1p(Tensor self) -> Tensor", XPORT_KERNEL(cpu::log1p_out)},
      {"aten::log2(Tensor self) -> Tensor", XPORT_KERNEL(cpu::log2_out)},
      {"aten::sqrt(Tensor self) -> Tensor", XPORT_KERNEL(cpu::sqrt_out)},
      {"aten::rsqrt(Tensor self) -> Tensor", XPORT_KERNEL(cpu::rsqrt_out)},
      {"aten::sin(Tensor self) -> Tensor", XPORT_KERNEL(cpu::sin_out)},
      {"aten::cos(Tensor self) -> Tensor", XPORT_KERNEL(cpu::cos_out)},
      {"aten::tan(Tensor self) -> Tensor", XPORT_KERNEL(cpu::tan_out)},
      {"aten::acos(Tensor self) -> Tensor", XPORT_KERNEL(cpu::acos_out)},
      {"aten::asin(Tensor self) -> Tensor", XPORT_KERNEL(cpu::asin_out)},
      {"aten::atan(Tensor self) -> Tensor", XPORT_KERNEL(cpu::atan_out)},
      {"aten::acosh(Tensor self) -> Tensor", XPORT_KERNEL(cpu::acosh_out)},
      {"aten::asinh(Tensor self) -> Tensor", XPORT_KERNEL(cpu::asinh_out)},
      {"aten::atanh(Tensor self) -> Tensor", XPORT_KERNEL(cpu::atanh_out)},
      {"aten::cosh(Tensor self) -> Tensor", XPORT_KERNEL(cpu::cosh_out)},
      {"aten::sinh(Tensor self) -> Tensor", XPORT_KERNEL(cpu::sinh_out)},
      {"aten::log10(Tensor self) -> Tensor", XPORT_KERNEL(cpu::log10_out)},
      {"aten::tanh(Tensor self) -> Tensor", XPORT_KERNEL(cpu::tanh_out)},
      {"aten::sigmoid(Tensor self) -> Tensor", XPORT_KERNEL(cpu::sigmoid_out)},
      {"aten::erf(Tensor self) -> Tensor", XPORT_KERNEL(cpu::erf_out)},
      {"aten::reciprocal(Tensor self) -> Tensor", XPORT_KERNEL(cpu::reciprocal_out)},
      {"aten::relu(Tensor self) -> Tensor", XPORT_KERNEL(cpu::relu_out), O::Same, A::NotBool},
      {"aten::floor(Tensor self) -> Tensor", XPORT_KERNEL(cpu::floor_out), O::Same, A::NotBool},
      {"aten::ceil(Tensor self) -> Tensor", XPORT_KERNEL(cpu::ceil_out), O::Same, A::NotBool},
      {"aten::round(Tensor self) -> Tensor", XPORT_KERNEL(cpu::round_out), O::Same, A::NotBool},
      {"aten::trunc(Tensor self) -> Tensor", XPORT_KERNEL(cpu::trunc_out), O::Same, A::NotBool},
      {"aten::logical_not(Tensor self) -> Tensor", XPORT_KERNEL(cpu::logical_not_out), O::Bool},
      {"aten::bitwise_not(Tensor self) -> Tensor", XPORT_KERNEL(cpu::bitwise_not_out), O::Same,
       A::IntegralOrBool},
      {"aten::isnan(Tensor self) -> Tensor", XPORT_KERNEL(cpu::isnan_out), O::Bool},
      {"aten::isinf(Tensor self) -> Tensor", XPORT_KERNEL(cpu::isinf_out), O::Bool},
      {"aten::elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor",
       XPORT_KERNEL(cpu::elu_out), O::Same, A::Floating},
      {"aten::leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor",
       XPORT_KERNEL(cpu::leaky_relu_out), O::Same, A::Floating},
  };
  for (const UnaryRow& row : rows) {
    register_op({
        .schema = row.schema,
        .meta = unary_meta(row.out, row.accepts),
        .kernel = row.kernel,
        .core = row.core,
        .tags = {Tag::Pointwise},
    });
  }
  register_op({
      .schema = "aten::hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            XPORT_CHECK(args.tensor("self").dtype() != DType::UInt8 ||
                            (args.scalar("min_val").to_double() >= 0 &&
                             args.scalar("max_val").to_double() >= 0),
                        InvalidInput, args.name(),
                        ": cannot do hardtanh on an unsigned type with negative limits");
            return unary_meta(O::Same, A::NotBool)(args);
          },
      .kernel = XPORT_KERNEL(cpu::hardtanh_out),
      .core = true,
      .tags = {Tag::Pointwise},
  });
  // nn.ReLU(inplace=True) leaves relu_ in PyTorch's exported (training IR) graphs.
  register_inplace("aten::relu_(Tensor(a!) self) -> Tensor(a!)", find_op("aten::relu"),
                   XPORT_KERNEL(cpu::relu_out));

  register_op({
      .schema = "aten::gelu(Tensor self, *, str approximate='none') -> Tensor",
      .meta =
          [](const OpArgs& args) {
            const std::string& approximate = args.str("approximate");
            XPORT_CHECK(approximate == "none" || approximate == "tanh", InvalidInput, args.name(),
                        ": approximate must be 'none' or 'tanh', got '", approximate, "'");
            return unary_meta(O::Same, A::Floating)(args);
          },
      .kernel = XPORT_OP_KERNEL(gelu_out),
      .core = true,
      .tags = {Tag::Pointwise},
  });

  const OpKernel silu = XPORT_KERNEL(cpu::silu_out);
  register_op({
      .schema = "aten::silu(Tensor self) -> Tensor",
      .meta = unary_meta(O::Same, A::Floating),
      .kernel = silu,
      .decomp =
          [](const OpArgs& args) {
            const Tensor& x = args.tensor("self");
            return std::vector<Tensor>{x * x.sigmoid()};
          },
      .tags = {Tag::Pointwise},
  });
}

}  // namespace xport::ops
