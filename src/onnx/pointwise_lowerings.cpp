// Elementwise ops: each computes in its result's dtype (or, for comparisons, in the dtype PyTorch
// promotes the operands to), with its operands cast to it first.
#include <cmath>
#include <string_view>
#include <utility>

#include "onnx/lowering.h"

namespace xport::onnx {
namespace {

// Floor, Ceil and Round take floats only: integers are their own rounding.
LowerFn rounding(const char* op) {
  return [op](NodeLowering& n) {
    const DType t = n.out_dtype();
    n.emit(is_floating(t) ? op : "Identity", {n.tensor_as("self", t)});
  };
}

// IsNaN and IsInf take floats only: no integer is NaN or infinite.
LowerFn float_test(const char* op) {
  return [op](NodeLowering& n) {
    if (is_floating(n.spec("self").dtype)) return n.emit(op, {n.tensor("self")});
    n.emit("Expand", {n.g.scalar(DType::Bool, 0), n.g.add("Shape", {n.tensor("self")})});
  };
}

// out = op(self): self converted to the result's dtype.
LowerFn unary(const char* op) {
  return [op](NodeLowering& n) { n.emit(op, {n.tensor_as("self", n.out_dtype())}); };
}

// On bools PyTorch's add and maximum are `or`, mul and minimum `and`; ONNX's arithmetic takes
// no bools.
const char* on_bools(const std::string& op) {
  if (op == "Add" || op == "Max") return "Or";
  if (op == "Mul" || op == "Min") return "And";
  return nullptr;
}

// out = op(self, other) in the result's dtype; `alpha` (add, sub) scales other.
LowerFn binary(const char* op) {
  return [op](NodeLowering& n) {
    const DType t = n.out_dtype();
    if (t == DType::Bool) {
      const char* logical = on_bools(op);
      if (logical == nullptr) n.refuse(std::string(op) + " of bools");
      return n.emit(logical, {n.tensor_as("self", t), n.operand("other", t)});
    }
    std::string other = n.operand("other", t);
    if (n.node().op()->arg_position("alpha") >= 0) {
      const std::optional<double> alpha = n.constant_scalar("alpha");
      if (!alpha || *alpha != 1) other = n.g.add("Mul", {other, n.scalar("alpha", t)});
    }
    n.emit(op, {n.tensor_as("self", t), other});
  };
}

// A comparison in the promoted dtype; `negate` for ne. Booleans compare as Xor (ne) and
// Not(Xor) (eq): Equal on bool is valid ONNX, but Apache TVM's code generation compares them as
// floats (`fcmp oeq i1`) and fails to build the model.
LowerFn comparison(const char* op, bool negate = false) {
  return [op, negate](NodeLowering& n) {
    const DType t = n.promoted({"self", "other"});
    const std::string a = n.tensor_as("self", t), b = n.operand("other", t);
    const bool boolean_equal = t == DType::Bool && std::string_view(op) == "Equal";
    if (boolean_equal && negate) return n.emit("Xor", {a, b});
    if (boolean_equal) return n.set(n.g.add("Not", {n.g.add("Xor", {a, b})}, {}, n.node().name()));
    if (!negate) return n.emit(op, {a, b});
    n.set(n.g.add("Not", {n.g.add(op, {a, b})}, {}, n.node().name()));
  };
}

// Logical ops take any dtype as truth values.
LowerFn logical(const char* op) {
  return [op](NodeLowering& n) {
    n.emit(op, {n.tensor_as("self", DType::Bool), n.tensor_as("other", DType::Bool)});
  };
}

// Bitwise ops: on bools they are the logical ones; on integers ONNX has them from opset 18.
LowerFn bitwise(const char* logical_op) {
  return [logical_op](NodeLowering& n) {
    if (n.out_dtype() != DType::Bool) {
      n.refuse("bitwise ops on integers need opset 18 (BitwiseAnd, ...); opset 17 has them "
               "for bools only");
    }
    n.emit(logical_op, {n.tensor_as("self", DType::Bool), n.operand("other", DType::Bool)});
  };
}

// x * c for a constant c, in x's dtype.
std::string times(NodeLowering& n, const std::string& x, DType t, double c) {
  return n.g.add("Mul", {x, n.g.scalar(t, c)});
}

// gelu: 0.5 x (1 + erf(x / sqrt 2)), in the form ONNX Runtime fuses into one Gelu kernel (Gelu
// is an ONNX op only from opset 20). With tanh: 0.5 x (1 + tanh(z)) = x sigmoid(2z), with
// 2z = x (2 sqrt(2/pi) + 2 sqrt(2/pi) 0.044715 x^2): six ops, where the formula takes nine.
void gelu(NodeLowering& n) {
  const DType t = n.out_dtype();
  GraphBuilder& g = n.g;
  const std::string x = n.tensor_as("self", t);
  if (n.str("approximate") == "tanh") {
    const double k = 2 * std::sqrt(2.0 / M_PI);
    const std::string square = g.add("Mul", {x, x});
    const std::string slope = g.add("Add", {times(n, square, t, k * 0.044715), g.scalar(t, k)});
    const std::string gate = g.add("Sigmoid", {g.add("Mul", {x, slope})});
    return n.emit("Mul", {x, gate});
  }
  const std::string inner = g.add("Erf", {g.add("Div", {x, g.scalar(t, M_SQRT2)})});
  const std::string one_plus = g.add("Add", {inner, g.scalar(t, 1.0)});
  n.emit("Mul", {g.add("Mul", {x, one_plus}), g.scalar(t, 0.5)});
}

// fmod(a, b) for floats, and where its sign is not b's (Python's remainder adds b there).
std::pair<std::string, std::string> float_remainder(NodeLowering& n, const std::string& a,
                                                    const std::string& b, DType t) {
  GraphBuilder& g = n.g;
  const std::string r = g.add("Mod", {a, b}, {attr("fmod", int64_t{1})});
  const std::string zero = g.scalar(t, 0);
  const std::string signs_differ =
      g.add("Xor", {g.add("Less", {r, zero}), g.add("Less", {b, zero})});
  const std::string nonzero = g.add("Not", {g.add("Equal", {r, zero})});
  return {r, g.add("And", {nonzero, signs_differ})};
}

// Python's division of integers or floats, rounded as `mode` says ("" for true division).
std::string divide(NodeLowering& n, const std::string& a, const std::string& b, DType t,
                   const std::string& mode) {
  GraphBuilder& g = n.g;
  if (mode.empty() || (mode == "trunc" && !is_floating(t))) return g.add("Div", {a, b});
  if (mode == "floor" && !is_floating(t)) {
    // a // b = (a - a mod b) / b, with the modulo's sign the divisor's (exact division).
    const std::string m = g.add("Mod", {a, b}, {attr("fmod", int64_t{0})});
    return g.add("Div", {g.add("Sub", {a, m}), b});
  }
  if (mode == "floor") {
    // As ATen does it, from fmod rather than floor(a / b), which rounds a / b first (1 // 0.1
    // is 9): q = (a - fmod(a, b)) / b, one less when the remainder's sign is not the divisor's,
    // then rounded to the nearest integer.
    const auto [r, off] = float_remainder(n, a, b, t);
    std::string q = g.add("Div", {g.add("Sub", {a, r}), b});
    q = g.add("Where", {off, g.add("Sub", {q, g.scalar(t, 1)}), q});
    const std::string f = g.add("Floor", {q});
    const std::string up = g.add("Greater", {g.add("Sub", {q, f}), g.scalar(t, 0.5)});
    return g.add("Where", {up, g.add("Add", {f, g.scalar(t, 1)}), f});
  }
  // trunc(q) = sign(q) * floor(|q|)
  const std::string q = g.add("Div", {a, b});
  return g.add("Mul", {g.add("Sign", {q}), g.add("Floor", {g.add("Abs", {q})})});
}

LowerFn division() {
  return [](NodeLowering& n) {
    const DType t = n.out_dtype();
    const std::string mode = n.node().op()->arg_position("rounding_mode") >= 0
                                 ? n.str("rounding_mode")
                                 : std::string();
    n.set(divide(n, n.tensor_as("self", t), n.operand("other", t), t, mode));
  };
}

// Python's remainder (the divisor's sign): Mod for integers; for floats fmod, plus b where its
// sign is not b's (ONNX's Mod takes floats with fmod only), as ATen computes it.
LowerFn remainder() {
  return [](NodeLowering& n) {
    const DType t = n.out_dtype();
    const std::string a = n.tensor_as("self", t), b = n.operand("other", t);
    if (!is_floating(t)) return n.emit("Mod", {a, b}, {attr("fmod", int64_t{0})});
    const auto [r, off] = float_remainder(n, a, b, t);
    n.emit("Where", {off, n.g.add("Add", {r, b}), r});
  };
}

LowerFn fmod() {
  return [](NodeLowering& n) {
    const DType t = n.out_dtype();
    n.emit("Mod", {n.tensor_as("self", t), n.operand("other", t)}, {attr("fmod", int64_t{1})});
  };
}

// clamp(self, min?, max?) and hardtanh(self, min_val, max_val): Clip with optional bounds.
LowerFn clip(const char* lo, const char* hi) {
  return [lo, hi](NodeLowering& n) {
    const DType t = n.out_dtype();
    auto bound = [&](const char* name) {
      return n.is_none(name) ? std::string() : n.operand(name, t);
    };
    const std::string x = n.tensor_as("self", t), min = bound(lo), max = bound(hi);
    // clamp.Tensor's bounds broadcast: Max and Min, where Clip wants scalars.
    if (n.takes_tensor(lo)) {
      std::string v = x;
      if (!min.empty()) v = n.g.add("Max", {v, min});
      if (!max.empty()) v = n.g.add("Min", {v, max});
      return n.set(n.g.add("Identity", {v}, {}, n.node().name()));
    }
    n.emit("Clip", {x, min, max});
  };
}

// elu: scale * (x if x > 0 else alpha * (exp(x * input_scale) - 1)); input_scale scales the
// negative side only.
void elu(NodeLowering& n) {
  const DType t = n.out_dtype();
  GraphBuilder& g = n.g;
  const std::string x = n.tensor_as("self", t);
  const double alpha = n.real("alpha"), scale = n.real("scale");
  const double input_scale = n.real("input_scale");
  std::string y;
  if (input_scale == 1) {
    y = g.add("Elu", {x}, {attr("alpha", alpha)});
  } else {
    const std::string negative =
        times(n, g.add("Sub", {g.add("Exp", {times(n, x, t, input_scale)}), g.scalar(t, 1)}), t,
              alpha);
    y = g.add("Where", {g.add("Greater", {x, g.scalar(t, 0)}), x, negative});
  }
  if (scale != 1) y = times(n, y, t, scale);
  n.set(g.add("Identity", {y}, {}, n.node().name()));
}

// ~x on integers is -x - 1 (two's complement; 255 - x for uint8); Not on bools.
void bitwise_not(NodeLowering& n) {
  const DType t = n.out_dtype();
  const std::string x = n.tensor_as("self", t);
  if (t == DType::Bool) return n.emit("Not", {x});
  if (t == DType::UInt8) return n.emit("Sub", {n.g.scalar(t, 255), x});
  n.emit("Sub", {n.g.add("Neg", {x}), n.g.scalar(t, 1)});
}

// log base b: ln(x) / ln(b).
LowerFn log_base(double base) {
  return [base](NodeLowering& n) {
    const DType t = n.out_dtype();
    const std::string ln = n.g.add("Log", {n.tensor_as("self", t)});
    n.emit("Div", {ln, n.g.scalar(t, std::log(base))});
  };
}

void pow_op(NodeLowering& n) {
  const DType t = n.out_dtype();
  n.emit("Pow", {n.operand("self", t), n.operand("exponent", t)});
}

void where(NodeLowering& n) {
  const DType t = n.out_dtype();
  GraphBuilder& g = n.g;
  const std::string c = n.tensor_as("condition", DType::Bool), a = n.tensor_as("self", t),
                    b = n.tensor_as("other", t);
  if (t != DType::Bool) return n.emit("Where", {c, a, b});
  // ONNX Runtime has no Where of bools: (c and a) or (not c and b).
  n.emit("Or", {g.add("And", {c, a}), g.add("And", {g.add("Not", {c}), b})});
}

// atan2(y, x): atan(y / x), moved by pi into the left half-plane; atan2(0, 0) = 0.
void atan2(NodeLowering& n) {
  const DType t = n.out_dtype();
  GraphBuilder& g = n.g;
  const std::string y = n.tensor_as("self", t), x = n.tensor_as("other", t);
  const std::string zero = g.scalar(t, 0);
  const std::string base = g.add("Atan", {g.add("Div", {y, x})});
  const std::string half_turn =
      g.add("Where", {g.add("GreaterOrEqual", {y, zero}), g.scalar(t, M_PI), g.scalar(t, -M_PI)});
  const std::string moved =
      g.add("Where", {g.add("Less", {x, zero}), g.add("Add", {base, half_turn}), base});
  const std::string origin = g.add("And", {g.add("Equal", {x, zero}), g.add("Equal", {y, zero})});
  n.emit("Where", {origin, zero, moved});
}

// A Python-number op of an exported program (`_operator.mul(item, 0.5)`) on 0-D tensors.
LowerFn number_op(const char* op) {
  return [op](NodeLowering& n) {
    const DType t = n.out_dtype();
    n.emit(op, {n.scalar("a", t), n.scalar("b", t)});
  };
}

}  // namespace

LoweringList pointwise_lowerings() {
  LoweringList list = {
      {"aten::add.Tensor", binary("Add")},
      {"aten::add.Scalar", binary("Add")},
      {"aten::sub.Tensor", binary("Sub")},
      {"aten::sub.Scalar", binary("Sub")},
      {"aten::mul.Tensor", binary("Mul")},
      {"aten::mul.Scalar", binary("Mul")},
      {"aten::div.Tensor", division()},
      {"aten::div.Scalar", division()},
      {"aten::div.Tensor_mode", division()},
      {"aten::div.Scalar_mode", division()},
      {"aten::maximum", binary("Max")},
      {"aten::minimum", binary("Min")},
      {"aten::remainder.Tensor", remainder()},
      {"aten::remainder.Scalar", remainder()},
      {"aten::fmod.Tensor", fmod()},
      {"aten::fmod.Scalar", fmod()},
      {"aten::pow.Tensor_Tensor", pow_op},
      {"aten::pow.Tensor_Scalar", pow_op},
      {"aten::pow.Scalar", pow_op},
      {"aten::eq.Tensor", comparison("Equal")},
      {"aten::eq.Scalar", comparison("Equal")},
      {"aten::ne.Tensor", comparison("Equal", true)},
      {"aten::ne.Scalar", comparison("Equal", true)},
      {"aten::lt.Tensor", comparison("Less")},
      {"aten::lt.Scalar", comparison("Less")},
      {"aten::le.Tensor", comparison("LessOrEqual")},
      {"aten::le.Scalar", comparison("LessOrEqual")},
      {"aten::gt.Tensor", comparison("Greater")},
      {"aten::gt.Scalar", comparison("Greater")},
      {"aten::ge.Tensor", comparison("GreaterOrEqual")},
      {"aten::ge.Scalar", comparison("GreaterOrEqual")},
      {"aten::logical_and", logical("And")},
      {"aten::logical_or", logical("Or")},
      {"aten::logical_xor", logical("Xor")},
      {"aten::bitwise_and.Tensor", bitwise("And")},
      {"aten::bitwise_and.Scalar", bitwise("And")},
      {"aten::bitwise_or.Tensor", bitwise("Or")},
      {"aten::bitwise_or.Scalar", bitwise("Or")},
      {"aten::bitwise_xor.Tensor", bitwise("Xor")},
      {"aten::bitwise_xor.Scalar", bitwise("Xor")},
      {"aten::bitwise_not", bitwise_not},
      {"aten::logical_not",
       [](NodeLowering& n) { n.emit("Not", {n.tensor_as("self", DType::Bool)}); }},
      {"aten::isnan", float_test("IsNaN")},
      {"aten::isinf", float_test("IsInf")},
      {"aten::where.self", where},
      {"aten::gelu", gelu},
      {"aten::atan2", atan2},
      {"aten::elu", elu},
      {"aten::leaky_relu",
       [](NodeLowering& n) {
         n.emit("LeakyRelu", {n.tensor_as("self", n.out_dtype())},
                {attr("alpha", n.real("negative_slope"))});
       }},
      {"aten::hardtanh", clip("min_val", "max_val")},
      {"aten::clamp", clip("min", "max")},
      {"aten::clamp.Tensor", clip("min", "max")},
      {"aten::rsqrt",
       [](NodeLowering& n) {
         n.emit("Reciprocal", {n.g.add("Sqrt", {n.tensor_as("self", n.out_dtype())})});
       }},
      {"aten::log10", log_base(10)},
      {"aten::log2", log_base(2)},
      {"aten::log1p",
       [](NodeLowering& n) {
         const DType t = n.out_dtype();
         n.emit("Log", {n.g.add("Add", {n.tensor_as("self", t), n.g.scalar(t, 1)})});
       }},
      {"aten::expm1",
       [](NodeLowering& n) {
         const DType t = n.out_dtype();
         n.emit("Sub", {n.g.add("Exp", {n.tensor_as("self", t)}), n.g.scalar(t, 1)});
       }},
      {"aten::trunc",
       [](NodeLowering& n) {
         const DType t = n.out_dtype();
         const std::string x = n.tensor_as("self", t);
         if (!is_floating(t)) return n.emit("Identity", {x});
         n.emit("Mul", {n.g.add("Sign", {x}), n.g.add("Floor", {n.g.add("Abs", {x})})});
       }},
      {"_operator::add", number_op("Add")},
      {"_operator::sub", number_op("Sub")},
      {"_operator::mul", number_op("Mul")},
      {"_operator::truediv", number_op("Div")},
      {"_operator::neg", [](NodeLowering& n) { n.emit("Neg", {n.scalar("a", n.out_dtype())}); }},
  };
  for (const auto& [aten, onnx] : std::initializer_list<std::pair<const char*, const char*>>{
           {"aten::abs", "Abs"},     {"aten::neg", "Neg"},     {"aten::exp", "Exp"},
           {"aten::log", "Log"},     {"aten::sqrt", "Sqrt"},   {"aten::sin", "Sin"},
           {"aten::cos", "Cos"},     {"aten::tan", "Tan"},     {"aten::tanh", "Tanh"},
           {"aten::sigmoid", "Sigmoid"}, {"aten::relu", "Relu"}, {"aten::asin", "Asin"},
           {"aten::acos", "Acos"},   {"aten::atan", "Atan"},   {"aten::sinh", "Sinh"},
           {"aten::cosh", "Cosh"},   {"aten::asinh", "Asinh"}, {"aten::acosh", "Acosh"},
           {"aten::atanh", "Atanh"}, {"aten::erf", "Erf"},     {"aten::sign", "Sign"},
           {"aten::reciprocal", "Reciprocal"}}) {
    list.emplace_back(aten, unary(onnx));
  }
  for (const auto& [aten, onnx] : std::initializer_list<std::pair<const char*, const char*>>{
           {"aten::ceil", "Ceil"}, {"aten::floor", "Floor"}, {"aten::round", "Round"}}) {
    list.emplace_back(aten, rounding(onnx));
  }
  return list;
}

}  // namespace xport::onnx
