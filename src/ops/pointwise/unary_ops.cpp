// Unary pointwise ops: one row each (schema, output dtype rule, kernel, core tag).
#include <cmath>

#include "kernels/cpu/pointwise.h"
#include "ops/op_util.h"
#include "ops/register_all.h"
#include "ops/typed_kernel.h"
#include "xport/ops/derivative.h"
#include "xport/ops/functions.h"

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
  DerivativeFn derivative;  ///< empty: not differentiable (integer or bool results, or no rule)
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

// A unary op's derivative from d loss / d result `g`, the input `x` and the result `y`.
using In = const Tensor&;
using UnaryGrad = Tensor (*)(In g, In x, In y);
DerivativeFn unary(UnaryGrad grad) {
  return [grad](Backward& b) {
    b.set("self", grad(b.grad(), b.args().tensor("self"), b.result()));
  };
}
// Piecewise-constant ops (floor, sign, ...): zero almost everywhere, as in PyTorch.
const DerivativeFn kZeroDerivative = [](Backward& b) {
  b.set("self", zeros_like(b.args().tensor("self")));
};

Tensor gelu_grad(const Tensor& g, const Tensor& x, const std::string& approximate) {
  if (approximate == "tanh") {
    const double beta = M_SQRT2 * M_2_SQRTPI * 0.5, kappa = 0.044715;
    const Tensor x_sq = x * x;
    const Tensor tanh_inner = tanh((x + x_sq * x * kappa) * beta);
    const Tensor left = x * 0.5, right = tanh_inner + 1.0;
    const Tensor inner_derivative = (x_sq * (3 * kappa) + 1.0) * beta;
    const Tensor right_derivative = left * (1.0 - tanh_inner * tanh_inner) * inner_derivative;
    return g * (right * 0.5 + right_derivative);
  }
  const Tensor cdf = (erf(x * M_SQRT1_2) + 1.0) * 0.5;
  const Tensor pdf = (x * x * -0.5).exp() * (M_2_SQRTPI * M_SQRT1_2 * 0.5);
  return g * (cdf + x * pdf);
}

}  // namespace

void gelu_out(const Tensor& self, const std::string& approximate, const Tensor& out) {
  cpu::gelu_out(self, approximate == "tanh", out);
}

void register_unary_ops() {
  using O = OutDType;
  using A = Accepts;
  const UnaryRow rows[] = {
      {"aten::neg(Tensor self) -> Tensor", XPORT_KERNEL(cpu::neg_out),
       unary([](In g, In, In) { return -g; }), O::Same, A::NotBool},
      {"aten::abs(Tensor self) -> Tensor", XPORT_KERNEL(cpu::abs_out),
       unary([](In g, In x, In) { return g * sign(x); }), O::Same, A::NotBool},
      {"aten::sign(Tensor self) -> Tensor", XPORT_KERNEL(cpu::sign_out), kZeroDerivative, O::Same},
      {"aten::exp(Tensor self) -> Tensor", XPORT_KERNEL(cpu::exp_out),
       unary([](In g, In, In y) { return g * y; })},
      {"aten::expm1(Tensor self) -> Tensor", XPORT_KERNEL(cpu::expm1_out),
       unary([](In g, In, In y) { return g * (y + 1.0); })},
      {"aten::log(Tensor self) -> Tensor", XPORT_KERNEL(cpu::log_out),
       unary([](In g, In x, In) { return g / x; })},
      {"aten::log1p(Tensor self) -> Tensor", XPORT_KERNEL(cpu::log1p_out),
       unary([](In g, In x, In) { return g / (x + 1.0); })},
      {"aten::log2(Tensor self) -> Tensor", XPORT_KERNEL(cpu::log2_out),
       unary([](In g, In x, In) { return g / (x * M_LN2); })},
      {"aten::sqrt(Tensor self) -> Tensor", XPORT_KERNEL(cpu::sqrt_out),
       unary([](In g, In, In y) { return g / (y * 2.0); })},
      {"aten::rsqrt(Tensor self) -> Tensor", XPORT_KERNEL(cpu::rsqrt_out),
       unary([](In g, In, In y) { return g * y.pow(3) * -0.5; })},
      {"aten::sin(Tensor self) -> Tensor", XPORT_KERNEL(cpu::sin_out),
       unary([](In g, In x, In) { return g * cos(x); })},
      {"aten::cos(Tensor self) -> Tensor", XPORT_KERNEL(cpu::cos_out),
       unary([](In g, In x, In) { return -(g * sin(x)); })},
      {"aten::tan(Tensor self) -> Tensor", XPORT_KERNEL(cpu::tan_out),
       unary([](In g, In, In y) { return g * (y * y + 1.0); })},
      {"aten::acos(Tensor self) -> Tensor", XPORT_KERNEL(cpu::acos_out),
       unary([](In g, In x, In) { return -(g * (1.0 - x * x).rsqrt()); })},
      {"aten::asin(Tensor self) -> Tensor", XPORT_KERNEL(cpu::asin_out),
       unary([](In g, In x, In) { return g * (1.0 - x * x).rsqrt(); })},
      {"aten::atan(Tensor self) -> Tensor", XPORT_KERNEL(cpu::atan_out),
       unary([](In g, In x, In) { return g / (x * x + 1.0); })},
      {"aten::acosh(Tensor self) -> Tensor", XPORT_KERNEL(cpu::acosh_out),
       unary([](In g, In x, In) { return g * (x * x - 1.0).rsqrt(); })},
      {"aten::asinh(Tensor self) -> Tensor", XPORT_KERNEL(cpu::asinh_out),
       unary([](In g, In x, In) { return g * (x * x + 1.0).rsqrt(); })},
      {"aten::atanh(Tensor self) -> Tensor", XPORT_KERNEL(cpu::atanh_out),
       unary([](In g, In x, In) { return g / (1.0 - x * x); })},
      {"aten::cosh(Tensor self) -> Tensor", XPORT_KERNEL(cpu::cosh_out),
       unary([](In g, In x, In) { return g * call1(XPORT_OP("aten::sinh"), {x}); })},
      {"aten::sinh(Tensor self) -> Tensor", XPORT_KERNEL(cpu::sinh_out),
       unary([](In g, In x, In) { return g * call1(XPORT_OP("aten::cosh"), {x}); })},
      {"aten::log10(Tensor self) -> Tensor", XPORT_KERNEL(cpu::log10_out),
       unary([](In g, In x, In) { return g / (x * M_LN10); })},
      {"aten::tanh(Tensor self) -> Tensor", XPORT_KERNEL(cpu::tanh_out),
       unary([](In g, In, In y) { return g * (1.0 - y * y); })},
      {"aten::sigmoid(Tensor self) -> Tensor", XPORT_KERNEL(cpu::sigmoid_out),
       unary([](In g, In, In y) { return g * (1.0 - y) * y; })},
      {"aten::erf(Tensor self) -> Tensor", XPORT_KERNEL(cpu::erf_out),
       unary([](In g, In x, In) { return g * (x * x).neg().exp() * M_2_SQRTPI; })},
      {"aten::reciprocal(Tensor self) -> Tensor", XPORT_KERNEL(cpu::reciprocal_out),
       unary([](In g, In, In y) { return -(g * y * y); })},
      {"aten::relu(Tensor self) -> Tensor", XPORT_KERNEL(cpu::relu_out),
       unary([](In g, In, In y) { return where(y.le(0), zeros_like(g), g); }), O::Same, A::NotBool},
      {"aten::floor(Tensor self) -> Tensor", XPORT_KERNEL(cpu::floor_out),
       kZeroDerivative, O::Same, A::NotBool},
      {"aten::ceil(Tensor self) -> Tensor", XPORT_KERNEL(cpu::ceil_out),
       kZeroDerivative, O::Same, A::NotBool},
      {"aten::round(Tensor self) -> Tensor", XPORT_KERNEL(cpu::round_out),
       kZeroDerivative, O::Same, A::NotBool},
      {"aten::trunc(Tensor self) -> Tensor", XPORT_KERNEL(cpu::trunc_out),
       kZeroDerivative, O::Same, A::NotBool},
      {"aten::logical_not(Tensor self) -> Tensor", XPORT_KERNEL(cpu::logical_not_out), {}, O::Bool},
      {"aten::bitwise_not(Tensor self) -> Tensor", XPORT_KERNEL(cpu::bitwise_not_out), {}, O::Same,
       A::IntegralOrBool},
      {"aten::isnan(Tensor self) -> Tensor", XPORT_KERNEL(cpu::isnan_out), {}, O::Bool},
      {"aten::isinf(Tensor self) -> Tensor", XPORT_KERNEL(cpu::isinf_out), {}, O::Bool},
      {"aten::elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor",
       XPORT_KERNEL(cpu::elu_out),
       [](Backward& b) {
         const Tensor& x = b.args().tensor("self");
         const double alpha = b.args().real("alpha"), scale = b.args().real("scale");
         const double input_scale = b.args().real("input_scale");
         const Tensor g = b.grad();
         b.set("self", where(x.le(0), g * (x * input_scale).exp() * (input_scale * scale * alpha),
                             g * scale));
       },
       O::Same, A::Floating},
      {"aten::leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor",
       XPORT_KERNEL(cpu::leaky_relu_out),
       [](Backward& b) {
         const Tensor g = b.grad();
         b.set("self", where(b.args().tensor("self").gt(0), g,
                             g * b.args().scalar("negative_slope")));
       },
       O::Same, A::Floating},
  };
  for (const UnaryRow& row : rows) {
    register_op({
        .schema = row.schema,
        .meta = unary_meta(row.out, row.accepts),
        .kernel = row.kernel,
        .derivative = row.derivative,
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
      .derivative =
          [](Backward& b) {
            const Tensor& x = b.args().tensor("self");
            const Tensor inside =
                logical_and(x.gt(b.args().scalar("min_val")), x.lt(b.args().scalar("max_val")));
            b.set("self", b.grad() * inside);
          },
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
      .derivative =
          [](Backward& b) {
            const std::string& approximate = b.args().str("approximate");
            b.set("self", gelu_grad(b.grad(), b.args().tensor("self"), approximate));
          },
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
