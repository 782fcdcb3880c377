// Binary pointwise ops: broadcasting, PyTorch's type promotion, and Scalar overloads.
#include "kernels/cpu/pointwise.h"
#include "ops/op_util.h"
#include "ops/register_all.h"
#include "ops/typed_kernel.h"

namespace xport::ops {
namespace {

namespace cpu = kernels::cpu;

enum class Result {
  Promote,  // the common dtype
  Float,    // the common dtype, integers becoming float32 (true division, atan2)
  Bool,     // comparisons and logical ops
};
enum class Accepts { Any, IntegralOrBool, NoBool };

// The common dtype of self and the second operand (a tensor or a Scalar).
DType common_dtype(const OpArgs& args) {
  ResultType rt;
  rt.tensor(args.tensor(0));
  if (args[1].is_tensor())
    rt.tensor(args.tensor(1));
  else
    rt.scalar(args.scalar(1));
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

MetaFn binary_meta(Result rule, Accepts accepts) {
  return [rule, accepts](const OpArgs& args) {
    const DType common = common_dtype(args);
    if (accepts == Accepts::IntegralOrBool) {
      XPORT_CHECK(!is_floating(common), InvalidInput, args.name(),
                  ": needs integer or bool operands, got ", dtype_name(common));
    }
    if (accepts == Accepts::NoBool) {
      XPORT_CHECK(common != DType::Bool, InvalidInput, args.name(),
                  ": subtraction of bool tensors is not supported; use logical_xor instead");
    }
    const Tensor& self = args.tensor(0);
    std::vector<SymInt> sizes = args[1].is_tensor()
                                    ? broadcast_shapes(args, self.sizes(), args.tensor(1).sizes())
                                    : self.sizes();
    return std::vector<TensorMeta>{contiguous_meta(std::move(sizes), result_dtype(rule, common))};
  };
}

// The second operand as a tensor: a Scalar becomes a 0-dim tensor of the common dtype.
Tensor other_operand(const OpArgs& args) {
  if (args[1].is_tensor()) return args.tensor(1);
  return cpu::scalar_tensor(args.scalar(1), common_dtype(args));
}

// Registers the Tensor overload and, when given, the Scalar one; returns them in that order.
// The Tensor overload calls the typed kernel as it is; the Scalar one with the scalar made a
// tensor.
std::vector<const OpDef*> register_binary(const char* tensor_schema, const char* scalar_schema,
                                          const TypedKernel& kernel,
                                          Result rule = Result::Promote,
                                          Accepts accepts = Accepts::Any) {
  std::vector<const OpDef*> defs;
  defs.push_back(&register_op({
      .schema = tensor_schema,
      .meta = binary_meta(rule, accepts),
      .cpu = kernel.fn,
      .kernel_symbol = kernel.symbol,
      .core = true,
      .tags = {"pointwise"},
  }));
  if (scalar_schema == nullptr) return defs;
  defs.push_back(&register_op({
      .schema = scalar_schema,
      .meta = binary_meta(rule, accepts),
      .cpu =
          [fn = kernel.fn](const OpArgs& args, std::vector<Tensor>& outs) {
            fn(OpArgs(args.op(), {args[0], Value(other_operand(args))}), outs);
          },
      .core = true,
      .tags = {"pointwise"},
  }));
  return defs;
}

void check_alpha(const OpArgs& args, const Scalar& alpha) {
  const DType common = common_dtype(args);
  XPORT_CHECK(is_floating(common) || !alpha.is_float(), InvalidInput, args.name(),
              ": for integer tensors, alpha must not be a floating point number");
  XPORT_CHECK(common != DType::Bool || alpha.is_bool() || alpha.to_double() == 1.0 ||
                  alpha.to_double() == 0.0,
              InvalidInput, args.name(), ": for bool tensors, alpha must be a bool");
}

// add/sub: a + alpha * b, with sub negating alpha.
const OpDef& register_add(const char* schema, bool subtract) {
  return register_op({
      .schema = schema,
      .meta =
          [subtract](const OpArgs& args) {
            check_alpha(args, args.scalar(2));
            return binary_meta(Result::Promote, subtract ? Accepts::NoBool : Accepts::Any)(args);
          },
      .cpu =
          [subtract](const OpArgs& args, std::vector<Tensor>& outs) {
            Scalar alpha = args.scalar(2);
            if (subtract)
              alpha = alpha.is_float() ? Scalar(-alpha.to_double()) : Scalar(-alpha.to_int());
            cpu::add_out(args.tensor(0), other_operand(args), alpha, outs[0]);
          },
      .core = true,
      .tags = {"pointwise"},
  });
}

// A Scalar exponent that is a negative integer has no integer result (PyTorch refuses it; a
// tensor of exponents truncates instead).
void check_integer_pow(const OpArgs& args) {
  if (args[1].is_tensor() || is_floating(common_dtype(args))) return;
  XPORT_CHECK(args.scalar(1).to_int() >= 0, InvalidInput, args.name(),
              ": integers to negative integer powers are not allowed; convert the base to "
              "float first");
}

}  // namespace

void register_binary_ops() {
  const OpDef& add = register_add(
      "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", false);
  const OpDef& add_s =
      register_add("aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", false);
  const OpDef& sub = register_add(
      "aten::sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", true);
  const OpDef& sub_s =
      register_add("aten::sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", true);
  register_inplace(
      "aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", add);
  register_inplace("aten::add_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)",
                   add_s);
  register_inplace(
      "aten::sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", sub);
  register_inplace("aten::sub_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)",
                   sub_s);

  auto mul = register_binary("aten::mul.Tensor(Tensor self, Tensor other) -> Tensor",
                             "aten::mul.Scalar(Tensor self, Scalar other) -> Tensor",
                             XPORT_KERNEL(cpu::mul_out));
  register_inplace("aten::mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", *mul[0]);
  register_inplace("aten::mul_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", *mul[1]);
  auto div = register_binary("aten::div.Tensor(Tensor self, Tensor other) -> Tensor",
                             "aten::div.Scalar(Tensor self, Scalar other) -> Tensor",
                             XPORT_KERNEL(cpu::div_true_out), Result::Float);
  register_inplace("aten::div_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", *div[0]);
  register_inplace("aten::div_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", *div[1]);

  // div with rounding_mode None (true), 'trunc' or 'floor'.
  for (const char* schema :
       {"aten::div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
        "aten::div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor"}) {
    register_op({
        .schema = schema,
        .meta =
            [](const OpArgs& args) {
              const auto mode = args.optional_str(2);
              XPORT_CHECK(!mode || *mode == "trunc" || *mode == "floor", InvalidInput, args.name(),
                          ": rounding_mode must be None, 'trunc' or 'floor', got '", *mode, "'");
              return binary_meta(mode ? Result::Promote : Result::Float, Accepts::Any)(args);
            },
        .cpu =
            [](const OpArgs& args, std::vector<Tensor>& outs) {
              const auto mode = args.optional_str(2);
              const Tensor other = other_operand(args);
              if (!mode)
                cpu::div_true_out(args.tensor(0), other, outs[0]);
              else if (*mode == "trunc")
                cpu::div_trunc_out(args.tensor(0), other, outs[0]);
              else
                cpu::div_floor_out(args.tensor(0), other, outs[0]);
            },
        .core = true,
    });
  }

  register_binary("aten::remainder.Tensor(Tensor self, Tensor other) -> Tensor",
                  "aten::remainder.Scalar(Tensor self, Scalar other) -> Tensor",
                  XPORT_KERNEL(cpu::remainder_out));
  register_binary("aten::maximum(Tensor self, Tensor other) -> Tensor", nullptr,
                  XPORT_KERNEL(cpu::maximum_out));
  register_binary("aten::minimum(Tensor self, Tensor other) -> Tensor", nullptr,
                  XPORT_KERNEL(cpu::minimum_out));
  register_binary("aten::atan2(Tensor self, Tensor other) -> Tensor", nullptr,
                  XPORT_KERNEL(cpu::atan2_out),
                  Result::Float);
  register_binary("aten::eq.Tensor(Tensor self, Tensor other) -> Tensor",
                  "aten::eq.Scalar(Tensor self, Scalar other) -> Tensor", XPORT_KERNEL(cpu::eq_out),
                  Result::Bool);
  register_binary("aten::ne.Tensor(Tensor self, Tensor other) -> Tensor",
                  "aten::ne.Scalar(Tensor self, Scalar other) -> Tensor", XPORT_KERNEL(cpu::ne_out),
                  Result::Bool);
  register_binary("aten::lt.Tensor(Tensor self, Tensor other) -> Tensor",
                  "aten::lt.Scalar(Tensor self, Scalar other) -> Tensor", XPORT_KERNEL(cpu::lt_out),
                  Result::Bool);
  register_binary("aten::le.Tensor(Tensor self, Tensor other) -> Tensor",
                  "aten::le.Scalar(Tensor self, Scalar other) -> Tensor", XPORT_KERNEL(cpu::le_out),
                  Result::Bool);
  register_binary("aten::gt.Tensor(Tensor self, Tensor other) -> Tensor",
                  "aten::gt.Scalar(Tensor self, Scalar other) -> Tensor", XPORT_KERNEL(cpu::gt_out),
                  Result::Bool);
  register_binary("aten::ge.Tensor(Tensor self, Tensor other) -> Tensor",
                  "aten::ge.Scalar(Tensor self, Scalar other) -> Tensor", XPORT_KERNEL(cpu::ge_out),
                  Result::Bool);
  register_binary("aten::logical_and(Tensor self, Tensor other) -> Tensor", nullptr,
                  XPORT_KERNEL(cpu::logical_and_out), Result::Bool);
  register_binary("aten::logical_or(Tensor self, Tensor other) -> Tensor", nullptr,
                  XPORT_KERNEL(cpu::logical_or_out), Result::Bool);
  register_binary("aten::logical_xor(Tensor self, Tensor other) -> Tensor", nullptr,
                  XPORT_KERNEL(cpu::logical_xor_out), Result::Bool);
  register_binary("aten::bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor",
                  "aten::bitwise_and.Scalar(Tensor self, Scalar other) -> Tensor",
                  XPORT_KERNEL(cpu::bitwise_and_out), Result::Promote, Accepts::IntegralOrBool);
  register_binary("aten::bitwise_or.Tensor(Tensor self, Tensor other) -> Tensor",
                  "aten::bitwise_or.Scalar(Tensor self, Scalar other) -> Tensor",
                  XPORT_KERNEL(cpu::bitwise_or_out), Result::Promote, Accepts::IntegralOrBool);
  register_binary("aten::bitwise_xor.Tensor(Tensor self, Tensor other) -> Tensor",
                  "aten::bitwise_xor.Scalar(Tensor self, Scalar other) -> Tensor",
                  XPORT_KERNEL(cpu::bitwise_xor_out), Result::Promote, Accepts::IntegralOrBool);

  // Python's `a & b` and `a | b` on tensors, as PyTorch's graphs spell them.
  for (const char* name : {"and", "or"}) {
    const std::string n = name;
    for (const char* other : {"Tensor", "Scalar"}) {
      const std::string o = other;
      register_op({
          .schema = "aten::__" + n + "__." + o + "(Tensor self, " + o + " other) -> Tensor",
          .decomp =
              [n, o](const OpArgs& args) {
                return call_tensors(find_op("aten::bitwise_" + n + "." + o), {args[0], args[1]});
              },
      });
    }
  }

  // pow: integer bases refuse negative integer exponents (there is no integer result).
  for (const char* schema : {"aten::pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor",
                             "aten::pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor"}) {
    register_op({
        .schema = schema,
        .meta =
            [](const OpArgs& args) {
              check_integer_pow(args);  // a Scalar exponent is known when tracing too
              return binary_meta(Result::Promote, Accepts::Any)(args);
            },
        .cpu =
            [](const OpArgs& args, std::vector<Tensor>& outs) {
              cpu::pow_out(args.tensor(0), other_operand(args), outs[0]);
            },
        .core = true,
        .tags = {"pointwise"},
    });
  }
}

}  // namespace xport::ops
