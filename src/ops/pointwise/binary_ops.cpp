// Binary pointwise ops: broadcasting, PyTorch's type promotion, and Scalar overloads.
#include <cmath>
#include <utility>

#include "kernels/cpu/pointwise.h"
#include "ops/op_util.h"
#include "ops/register_all.h"
#include "ops/typed_kernel.h"
#include "xport/ops/derivative.h"
#include "xport/ops/functions.h"

namespace xport::ops {
namespace {

namespace cpu = kernels::cpu;

enum class Result {
  Promote,  // the common dtype
  Float,    // the common dtype, integers becoming float32 (true division, atan2)
  Bool,     // comparisons and logical ops
};
enum class Accepts { Any, IntegralOrBool, NoBool };

// The common dtype of self and the second operand (a tensor or a Scalar), named `other` in the
// op's schema ("other", or "exponent" for pow).
DType common_dtype(const OpArgs& args, std::string_view other) {
  ResultType rt;
  rt.tensor(args.tensor("self"));
  if (args[other].is_tensor())
    rt.tensor(args.tensor(other));
  else
    rt.scalar(args.scalar(other));
  return rt.get();
}

DType result_dtype(Result rule, DType common) {
  switch (rule) {
    case Result::Promote:
      return common;
    case Result::Float:
      return is_floating(common) ? common : kDefaultFloat;
    case Result::Bool:
      return DType::Bool;
  }
  return common;
}

// `other`: the second operand's name in the op's schema.
MetaFn binary_meta(Result rule, Accepts accepts, std::string_view other) {
  return [rule, accepts, other](const OpArgs& args) {
    const DType common = common_dtype(args, other);
    if (accepts == Accepts::IntegralOrBool) {
      XPORT_CHECK(!is_floating(common), InvalidInput, args.name(),
                  ": needs integer or bool operands, got ", dtype_name(common));
    }
    if (accepts == Accepts::NoBool) {
      XPORT_CHECK(common != DType::Bool, InvalidInput, args.name(),
                  ": subtraction of bool tensors is not supported; use logical_xor instead");
    }
    const Tensor& self = args.tensor("self");
    std::vector<SymInt> sizes =
        args[other].is_tensor() ? broadcast_shapes(args, self.sizes(), args.tensor(other).sizes())
                                : self.sizes();
    return std::vector<TensorMeta>{contiguous_meta(std::move(sizes), result_dtype(rule, common))};
  };
}

// A Scalar operand as a 0-dim tensor of the common dtype.
Tensor scalar_operand(const Tensor& self, const Scalar& other) {
  return cpu::scalar_tensor(other, ResultType().tensor(self).scalar(other).get());
}

// sub is add with alpha negated.
Scalar negated(const Scalar& alpha) {
  return alpha.is_float() ? Scalar(-alpha.to_double()) : Scalar(-alpha.to_int());
}

}  // namespace

void add_Scalar_out(const Tensor& self, const Scalar& other, const Scalar& alpha,
                    const Tensor& out) {
  cpu::add_out(self, scalar_operand(self, other), alpha, out);
}
void sub_Tensor_out(const Tensor& self, const Tensor& other, const Scalar& alpha,
                    const Tensor& out) {
  cpu::add_out(self, other, negated(alpha), out);
}
void sub_Scalar_out(const Tensor& self, const Scalar& other, const Scalar& alpha,
                    const Tensor& out) {
  cpu::add_out(self, scalar_operand(self, other), negated(alpha), out);
}
// A Scalar overload: the functional kernel with the scalar as a 0-dim tensor of the common
// dtype.
#define XPORT_SCALAR_FORM(name, kernel)                                   \
  void name(const Tensor& self, const Scalar& other, const Tensor& out) { \
    cpu::kernel(self, scalar_operand(self, other), out);                  \
  }
XPORT_SCALAR_FORM(mul_Scalar_out, mul_out)
XPORT_SCALAR_FORM(div_Scalar_out, div_true_out)
// div with rounding_mode None (true), 'trunc' or 'floor'.
void div_Tensor_mode_out(const Tensor& self, const Tensor& other,
                         const std::optional<std::string>& rounding_mode, const Tensor& out) {
  if (!rounding_mode)
    cpu::div_true_out(self, other, out);
  else if (*rounding_mode == "trunc")
    cpu::div_trunc_out(self, other, out);
  else
    cpu::div_floor_out(self, other, out);
}
void div_Scalar_mode_out(const Tensor& self, const Scalar& other,
                         const std::optional<std::string>& rounding_mode, const Tensor& out) {
  div_Tensor_mode_out(self, scalar_operand(self, other), rounding_mode, out);
}
XPORT_SCALAR_FORM(remainder_Scalar_out, remainder_out)
XPORT_SCALAR_FORM(eq_Scalar_out, eq_out)
XPORT_SCALAR_FORM(ne_Scalar_out, ne_out)
XPORT_SCALAR_FORM(lt_Scalar_out, lt_out)
XPORT_SCALAR_FORM(le_Scalar_out, le_out)
XPORT_SCALAR_FORM(gt_Scalar_out, gt_out)
XPORT_SCALAR_FORM(ge_Scalar_out, ge_out)
XPORT_SCALAR_FORM(bitwise_and_Scalar_out, bitwise_and_out)
XPORT_SCALAR_FORM(bitwise_or_Scalar_out, bitwise_or_out)
XPORT_SCALAR_FORM(bitwise_xor_Scalar_out, bitwise_xor_out)
XPORT_SCALAR_FORM(pow_Tensor_Scalar_out, pow_out)
XPORT_SCALAR_FORM(fmod_Scalar_out, fmod_out)
#undef XPORT_SCALAR_FORM
// In place: `out` is self; an operand sharing self's memory in another layout is read from a
// copy. The Scalar forms have no tensor operand and use the functional kernels as they are.
void add__Tensor_out(const Tensor& self, const Tensor& other, const Scalar& alpha,
                     const Tensor& out) {
  cpu::add_out(self, unaliased(self, other), alpha, out);
}
void sub__Tensor_out(const Tensor& self, const Tensor& other, const Scalar& alpha,
                     const Tensor& out) {
  sub_Tensor_out(self, unaliased(self, other), alpha, out);
}
void mul__Tensor_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  cpu::mul_out(self, unaliased(self, other), out);
}
void div__Tensor_out(const Tensor& self, const Tensor& other, const Tensor& out) {
  cpu::div_true_out(self, unaliased(self, other), out);
}
// A Scalar base: a 0-dim tensor of the result's dtype.
void pow_Scalar_out(const Scalar& self, const Tensor& exponent, const Tensor& out) {
  cpu::pow_out(cpu::scalar_tensor(self, out.dtype()), exponent, out);
}

namespace {

// ---- derivatives (PyTorch's derivatives.yaml); `other` may be a Tensor or a Scalar ----

bool tensor_other(const Backward& b) { return b.args()["other"].is_tensor(); }

// a + alpha * b, or a - alpha * b.
DerivativeFn add_derivative(bool subtract) {
  return [subtract](Backward& b) {
    const Tensor g = b.grad();
    b.set("self", g);
    if (!tensor_other(b)) return;
    const double alpha = b.args().scalar("alpha").to_double() * (subtract ? -1 : 1);
    b.set("other", alpha == 1 ? g : g * alpha);
  };
}

void mul_derivative(Backward& b) {
  const Tensor g = b.grad();
  const Value& other = b.args()["other"];
  b.set("self", other.is_tensor() ? g * other.to_tensor() : g * other.to_scalar());
  if (other.is_tensor()) b.set("other", g * b.args().tensor("self"));
}

// True division; with a rounding mode the result is piecewise constant (zero gradient).
void div_derivative(Backward& b) {
  const Tensor g = b.grad();
  const Value& other = b.args()["other"];
  const int mode = b.args().op().arg_position("rounding_mode");
  if (mode >= 0 && !b.args()[static_cast<size_t>(mode)].is_none()) {
    b.set("self", zeros_like(b.args().tensor("self")));
    if (other.is_tensor()) b.set("other", zeros_like(other.to_tensor()));
    return;
  }
  if (!other.is_tensor()) {
    b.set("self", g / other.to_scalar());
    return;
  }
  const Tensor& divisor = other.to_tensor();
  b.set("self", g / divisor);
  b.set("other", -(g * b.args().tensor("self")) / (divisor * divisor));
}

// maximum / minimum: ties share the gradient equally, as in PyTorch.
DerivativeFn extremum_derivative(bool maximum) {
  return [maximum](Backward& b) {
    const Tensor& x = b.args().tensor("self");
    const Tensor& y = b.args().tensor("other");
    const Tensor g = b.grad();
    const Tensor shared = where(x.eq(y), g * 0.5, g);
    const Tensor x_wins = maximum ? x.gt(y) : x.lt(y);
    const Tensor y_wins = maximum ? x.lt(y) : x.gt(y);
    b.set("self", masked_fill(shared, y_wins, 0));
    b.set("other", masked_fill(shared, x_wins, 0));
  };
}

// remainder (floor) and fmod (trunc): a - b * round(a / b), the rounding's gradient zero.
DerivativeFn remainder_derivative(const char* rounding) {
  return [rounding](Backward& b) {
    const Tensor g = b.grad();
    b.set("self", g);
    if (tensor_other(b)) {
      const Tensor& x = b.args().tensor("self");
      b.set("other", -(g * div(x, b.args().tensor("other"), rounding)));
    }
  };
}

void atan2_derivative(Backward& b) {
  const Tensor& x = b.args().tensor("self");
  const Tensor& y = b.args().tensor("other");
  const Tensor g_over = b.grad() / (x * x + y * y);
  b.set("self", g_over * y);
  b.set("other", -(g_over * x));
}

// d/d base of base ** exponent: 0 where the exponent is 0 (as PyTorch: even at base 0).
Tensor pow_base_grad(const Tensor& g, const Tensor& base, const Tensor& exponent) {
  return where(exponent.eq(0), zeros_like(g), g * exponent * base.pow(exponent - 1.0));
}

// d/d exponent: result * log(base), 0 where base is 0 and the exponent is not negative.
Tensor pow_exponent_grad(const Tensor& g, const Tensor& base, const Tensor& exponent,
                         const Tensor& result) {
  const Tensor zero_base = logical_and(base.eq(0), exponent.ge(0));
  return where(zero_base, zeros_like(g), g * result * log(base));
}

void pow_derivative(Backward& b) {
  const Tensor& base = b.args().tensor("self");
  const Tensor g = b.grad();
  const Value& exponent = b.args()["exponent"];
  if (!exponent.is_tensor()) {
    const double e = exponent.to_scalar().to_double();
    b.set("self", e == 0 ? zeros_like(base) : g * (base.pow(e - 1) * e));
    return;
  }
  const Tensor& e = exponent.to_tensor();
  b.set("self", pow_base_grad(g, base, e));
  b.set("exponent", pow_exponent_grad(g, base, e, b.result()));
}

// Registers one overload, its second operand a Tensor or a Scalar, with its typed kernel.
const OpDef& register_binary(const char* schema, const OpKernel& kernel,
                             Result rule = Result::Promote, Accepts accepts = Accepts::Any,
                             DerivativeFn derivative = {}) {
  return register_op({
      .schema = schema,
      .meta = binary_meta(rule, accepts, "other"),
      .kernel = kernel,
      .derivative = std::move(derivative),
      .core = true,
      .tags = {Tag::Pointwise},
  });
}

void check_alpha(const OpArgs& args, const Scalar& alpha) {
  const DType common = common_dtype(args, "other");
  XPORT_CHECK(is_floating(common) || !alpha.is_float(), InvalidInput, args.name(),
              ": for integer tensors, alpha must not be a floating point number");
  XPORT_CHECK(common != DType::Bool || alpha.is_bool() || alpha.to_double() == 1.0 ||
                  alpha.to_double() == 0.0,
              InvalidInput, args.name(), ": for bool tensors, alpha must be a bool");
}

// add/sub: a + alpha * b, with sub negating alpha.
const OpDef& register_add(const char* schema, bool subtract, const OpKernel& kernel) {
  return register_op({
      .schema = schema,
      .meta =
          [subtract](const OpArgs& args) {
            check_alpha(args, args.scalar("alpha"));
            return binary_meta(Result::Promote, subtract ? Accepts::NoBool : Accepts::Any,
                               "other")(args);
          },
      .kernel = kernel,
      .derivative = add_derivative(subtract),
      .core = true,
      .tags = {Tag::Pointwise},
  });
}

// A Scalar exponent that is a negative integer has no integer result (PyTorch refuses it; a
// tensor of exponents truncates instead).
void check_integer_pow(const OpArgs& args) {
  if (args["exponent"].is_tensor() || is_floating(common_dtype(args, "exponent"))) return;
  XPORT_CHECK(args.scalar("exponent").to_int() >= 0, InvalidInput, args.name(),
              ": integers to negative integer powers are not allowed; convert the base to "
              "float first");
}

}  // namespace

void register_binary_ops() {
  const OpDef& add =
      register_add("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
                   false, XPORT_KERNEL(cpu::add_out));
  const OpDef& add_s =
      register_add("aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", false,
                   XPORT_OP_KERNEL(add_Scalar_out));
  const OpDef& sub =
      register_add("aten::sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
                   true, XPORT_OP_KERNEL(sub_Tensor_out));
  const OpDef& sub_s =
      register_add("aten::sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", true,
                   XPORT_OP_KERNEL(sub_Scalar_out));
  register_inplace(
      "aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", add,
      XPORT_OP_KERNEL(add__Tensor_out));
  register_inplace("aten::add_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)",
                   add_s, XPORT_OP_KERNEL(add_Scalar_out));
  register_inplace(
      "aten::sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", sub,
      XPORT_OP_KERNEL(sub__Tensor_out));
  register_inplace("aten::sub_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)",
                   sub_s, XPORT_OP_KERNEL(sub_Scalar_out));

  const OpDef& mul = register_binary("aten::mul.Tensor(Tensor self, Tensor other) -> Tensor",
                                     XPORT_KERNEL(cpu::mul_out), Result::Promote, Accepts::Any,
                                     mul_derivative);
  const OpDef& mul_s = register_binary("aten::mul.Scalar(Tensor self, Scalar other) -> Tensor",
                                       XPORT_OP_KERNEL(mul_Scalar_out), Result::Promote,
                                       Accepts::Any, mul_derivative);
  register_inplace("aten::mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", mul,
                   XPORT_OP_KERNEL(mul__Tensor_out));
  register_inplace("aten::mul_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", mul_s,
                   XPORT_OP_KERNEL(mul_Scalar_out));
  const OpDef& div = register_binary("aten::div.Tensor(Tensor self, Tensor other) -> Tensor",
                                     XPORT_KERNEL(cpu::div_true_out), Result::Float,
                                     Accepts::Any, div_derivative);
  const OpDef& div_s = register_binary("aten::div.Scalar(Tensor self, Scalar other) -> Tensor",
                                       XPORT_OP_KERNEL(div_Scalar_out), Result::Float,
                                       Accepts::Any, div_derivative);
  register_inplace("aten::div_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", div,
                   XPORT_OP_KERNEL(div__Tensor_out));
  register_inplace("aten::div_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", div_s,
                   XPORT_OP_KERNEL(div_Scalar_out));

  // div with rounding_mode None (true), 'trunc' or 'floor'.
  const std::pair<const char*, OpKernel> div_modes[] = {
      {"aten::div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
       XPORT_OP_KERNEL(div_Tensor_mode_out)},
      {"aten::div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor",
       XPORT_OP_KERNEL(div_Scalar_mode_out)},
  };
  for (const auto& [schema, kernel] : div_modes) {
    register_op({
        .schema = schema,
        .meta =
            [](const OpArgs& args) {
              const auto mode = args.optional_str("rounding_mode");
              XPORT_CHECK(!mode || *mode == "trunc" || *mode == "floor", InvalidInput, args.name(),
                          ": rounding_mode must be None, 'trunc' or 'floor', got '", *mode, "'");
              return binary_meta(mode ? Result::Promote : Result::Float, Accepts::Any,
                                 "other")(args);
            },
        .kernel = kernel,
        .derivative = div_derivative,
        .core = true,
    });
  }

  const Result P = Result::Promote;
  const Accepts any = Accepts::Any;
  register_binary("aten::remainder.Tensor(Tensor self, Tensor other) -> Tensor",
                  XPORT_KERNEL(cpu::remainder_out), P, any, remainder_derivative("floor"));
  register_binary("aten::remainder.Scalar(Tensor self, Scalar other) -> Tensor",
                  XPORT_OP_KERNEL(remainder_Scalar_out), P, any, remainder_derivative("floor"));
  register_binary("aten::fmod.Tensor(Tensor self, Tensor other) -> Tensor",
                  XPORT_KERNEL(cpu::fmod_out), P, any, remainder_derivative("trunc"));
  register_binary("aten::fmod.Scalar(Tensor self, Scalar other) -> Tensor",
                  XPORT_OP_KERNEL(fmod_Scalar_out), P, any, remainder_derivative("trunc"));
  register_binary("aten::maximum(Tensor self, Tensor other) -> Tensor",
                  XPORT_KERNEL(cpu::maximum_out), P, any, extremum_derivative(true));
  register_binary("aten::minimum(Tensor self, Tensor other) -> Tensor",
                  XPORT_KERNEL(cpu::minimum_out), P, any, extremum_derivative(false));
  // torch.min(a, b) / torch.max(a, b): the same as minimum / maximum.
  for (const auto& [schema, target] :
       {std::pair{"aten::min.other(Tensor self, Tensor other) -> Tensor", "aten::minimum"},
        std::pair{"aten::max.other(Tensor self, Tensor other) -> Tensor", "aten::maximum"}}) {
    const OpDef& op = find_op(target);
    register_op({.schema = schema, .decomp = [&op](const OpArgs& args) {
                   return call_tensors(op, args.values());
                 }});
  }
  register_binary("aten::atan2(Tensor self, Tensor other) -> Tensor", XPORT_KERNEL(cpu::atan2_out),
                  Result::Float, any, atan2_derivative);
  register_binary("aten::eq.Tensor(Tensor self, Tensor other) -> Tensor", XPORT_KERNEL(cpu::eq_out),
                  Result::Bool);
  register_binary("aten::eq.Scalar(Tensor self, Scalar other) -> Tensor",
                  XPORT_OP_KERNEL(eq_Scalar_out), Result::Bool);
  register_binary("aten::ne.Tensor(Tensor self, Tensor other) -> Tensor", XPORT_KERNEL(cpu::ne_out),
                  Result::Bool);
  register_binary("aten::ne.Scalar(Tensor self, Scalar other) -> Tensor",
                  XPORT_OP_KERNEL(ne_Scalar_out), Result::Bool);
  register_binary("aten::lt.Tensor(Tensor self, Tensor other) -> Tensor", XPORT_KERNEL(cpu::lt_out),
                  Result::Bool);
  register_binary("aten::lt.Scalar(Tensor self, Scalar other) -> Tensor",
                  XPORT_OP_KERNEL(lt_Scalar_out), Result::Bool);
  register_binary("aten::le.Tensor(Tensor self, Tensor other) -> Tensor", XPORT_KERNEL(cpu::le_out),
                  Result::Bool);
  register_binary("aten::le.Scalar(Tensor self, Scalar other) -> Tensor",
                  XPORT_OP_KERNEL(le_Scalar_out), Result::Bool);
  register_binary("aten::gt.Tensor(Tensor self, Tensor other) -> Tensor", XPORT_KERNEL(cpu::gt_out),
                  Result::Bool);
  register_binary("aten::gt.Scalar(Tensor self, Scalar other) -> Tensor",
                  XPORT_OP_KERNEL(gt_Scalar_out), Result::Bool);
  register_binary("aten::ge.Tensor(Tensor self, Tensor other) -> Tensor", XPORT_KERNEL(cpu::ge_out),
                  Result::Bool);
  register_binary("aten::ge.Scalar(Tensor self, Scalar other) -> Tensor",
                  XPORT_OP_KERNEL(ge_Scalar_out), Result::Bool);
  register_binary("aten::logical_and(Tensor self, Tensor other) -> Tensor",
                  XPORT_KERNEL(cpu::logical_and_out), Result::Bool);
  register_binary("aten::logical_or(Tensor self, Tensor other) -> Tensor",
                  XPORT_KERNEL(cpu::logical_or_out), Result::Bool);
  register_binary("aten::logical_xor(Tensor self, Tensor other) -> Tensor",
                  XPORT_KERNEL(cpu::logical_xor_out), Result::Bool);
  register_binary("aten::bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor",
                  XPORT_KERNEL(cpu::bitwise_and_out), Result::Promote, Accepts::IntegralOrBool);
  register_binary("aten::bitwise_and.Scalar(Tensor self, Scalar other) -> Tensor",
                  XPORT_OP_KERNEL(bitwise_and_Scalar_out), Result::Promote,
                  Accepts::IntegralOrBool);
  register_binary("aten::bitwise_or.Tensor(Tensor self, Tensor other) -> Tensor",
                  XPORT_KERNEL(cpu::bitwise_or_out), Result::Promote, Accepts::IntegralOrBool);
  register_binary("aten::bitwise_or.Scalar(Tensor self, Scalar other) -> Tensor",
                  XPORT_OP_KERNEL(bitwise_or_Scalar_out), Result::Promote,
                  Accepts::IntegralOrBool);
  register_binary("aten::bitwise_xor.Tensor(Tensor self, Tensor other) -> Tensor",
                  XPORT_KERNEL(cpu::bitwise_xor_out), Result::Promote, Accepts::IntegralOrBool);
  register_binary("aten::bitwise_xor.Scalar(Tensor self, Scalar other) -> Tensor",
                  XPORT_OP_KERNEL(bitwise_xor_Scalar_out), Result::Promote,
                  Accepts::IntegralOrBool);

  // Python's `a & b` and `a | b` on tensors, as PyTorch's graphs spell them.
  for (const char* name : {"and", "or"}) {
    const std::string n = name;
    for (const char* other : {"Tensor", "Scalar"}) {
      const std::string o = other;
      register_op({
          .schema = "aten::__" + n + "__." + o + "(Tensor self, " + o + " other) -> Tensor",
          .decomp =
              [n, o](const OpArgs& args) {
                return call_tensors(find_op("aten::bitwise_" + n + "." + o),
                                    {args["self"], args["other"]});
              },
      });
    }
  }

  // pow: integer bases refuse negative integer exponents (there is no integer result).
  const std::pair<const char*, OpKernel> pows[] = {
      {"aten::pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor",
       XPORT_KERNEL(cpu::pow_out)},
      {"aten::pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor",
       XPORT_OP_KERNEL(pow_Tensor_Scalar_out)},
  };
  for (const auto& [schema, kernel] : pows) {
    register_op({
        .schema = schema,
        .meta =
            [](const OpArgs& args) {
              check_integer_pow(args);  // a Scalar exponent is known when tracing too
              return binary_meta(Result::Promote, Accepts::Any, "exponent")(args);
            },
        .kernel = kernel,
        .derivative = pow_derivative,
        .core = true,
        .tags = {Tag::Pointwise},
    });
  }
  // A Scalar base to the powers in a tensor (`2 ** x`).
  register_op({
      .schema = "aten::pow.Scalar(Scalar self, Tensor exponent) -> Tensor",
      .meta =
          [](const OpArgs& args) {
            const Tensor& exponent = args.tensor("exponent");
            const DType dtype = ResultType().scalar(args.scalar("self")).tensor(exponent).get();
            return std::vector<TensorMeta>{contiguous_meta(exponent.sizes(), dtype)};
          },
      .kernel = XPORT_OP_KERNEL(pow_Scalar_out),
      .derivative =
          [](Backward& b) {
            const double base = b.args().scalar("self").to_double();
            const Tensor& exponent = b.args().tensor("exponent");
            const Tensor g = b.grad();
            b.set("exponent", base == 0 ? where(exponent.ge(0), zeros_like(g), g * -INFINITY)
                                        : g * b.result() * std::log(base));
          },
      .core = true,
      .tags = {Tag::Pointwise},
  });
}

}  // namespace xport::ops
