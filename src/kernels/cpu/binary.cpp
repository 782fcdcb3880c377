#include <cmath>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/pointwise.h"
#include "kernels/cpu/vec_math.h"
#include "xport/tensor/result_type.h"

namespace xport::kernels::cpu {
namespace {

template <class T>
constexpr bool kIsInt = std::is_same_v<T, int64_t>;

// Integer + - * wrap like two's complement instead of overflowing (which C++ leaves undefined).
template <class T>
T wrap_add(T a, T b) {
  if constexpr (kIsInt<T>)
    return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  else
    return a + b;
}
template <class T>
T wrap_mul(T a, T b) {
  if constexpr (kIsInt<T>)
    return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  else
    return a * b;
}

// The dtype both operands are converted to before the op (ATen's "common dtype").
DType common_dtype(const Tensor& a, const Tensor& b) {
  return ResultType().tensor(a).tensor(b).get();
}

template <class F>
void run_binary(const Tensor& a, const Tensor& b, const Tensor& out, ComputeKind kind, const F& f,
                BlockFn<float> f32 = nullptr) {
  BlockFns fns{binary_block<float, F>, binary_block<double, F>, binary_block<int64_t, F>};
  if (f32) fns.f32 = f32;
  const Tensor inputs[] = {a, b};
  elementwise(out, inputs, kind, fns, &f);
}

template <class F>
void run_binary(const Tensor& a, const Tensor& b, const Tensor& out, DType compute,
                BlockFn<float> f32 = nullptr) {
  static const F f{};
  run_binary(a, b, out, compute_kind(compute), f, f32);
}

struct AddAlpha {
  double alpha_f;
  int64_t alpha_i;
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (kIsInt<T>)
      return wrap_add(a, wrap_mul(alpha_i, b));
    else
      return a + static_cast<T>(alpha_f) * b;
  }
};
struct Mul {
  template <class T>
  T operator()(T a, T b) const {
    return wrap_mul(a, b);
  }
};
struct DivTrue {
  template <class T>
  T operator()(T a, T b) const {
    return a / b;
  }
};
struct DivTrunc {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (kIsInt<T>)
      return b == -1 ? wrap_mul(a, T(-1)) : a / b;
    else
      return std::trunc(a / b);
  }
};
// Python's floor division, as ATen's div_floor_floating computes it.
struct DivFloor {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (kIsInt<T>) {
      if (b == -1) return wrap_mul(a, T(-1));
      return floor_div(a, b);
    } else {
      if (b == 0) return a / b;
      const T mod = std::fmod(a, b);
      T div = (a - mod) / b;
      if (mod != 0 && (b < 0) != (mod < 0)) div -= T(1);
      if (div == 0) return std::copysign(T(0), a / b);
      T floordiv = std::floor(div);
      if (div - floordiv > T(0.5)) floordiv += T(1);
      return floordiv;
    }
  }
};
struct Remainder {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (kIsInt<T>) {
      if (b == -1) return 0;
      return python_mod(a, b);
    } else {
      T r = std::fmod(a, b);
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    }
  }
};
// C's fmod: the remainder takes the dividend's sign (torch.fmod), unlike Remainder.
struct Fmod {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (kIsInt<T>)
      return b == -1 ? 0 : a % b;
    else
      return std::fmod(a, b);
  }
};
struct Pow {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (kIsInt<T>) {
      // Negative exponents truncate 1/a^|b| to an integer, as PyTorch does.
      if (b < 0) return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;
      T result = 1;
      T base = a;
      for (T e = b; e > 0; e >>= 1) {
        if (e & 1) result = wrap_mul(result, base);
        base = wrap_mul(base, base);
      }
      return result;
    } else {
      return std::pow(a, b);
    }
  }
};
// NaN-propagating, like torch.maximum.
struct Maximum {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (!kIsInt<T>) {
      if (a != a) return a;
      if (b != b) return b;
    }
    return a > b ? a : b;
  }
};
struct Minimum {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (!kIsInt<T>) {
      if (a != a) return a;
      if (b != b) return b;
    }
    return a < b ? a : b;
  }
};
struct Atan2 {
  template <class T>
  T operator()(T a, T b) const {
    return std::atan2(a, b);
  }
};

#define XPORT_PREDICATE(Name, expr) \
  struct Name {                     \
    template <class T>              \
    T operator()(T a, T b) const {  \
      return (expr) ? T(1) : T(0);  \
    }                               \
  };
XPORT_PREDICATE(Eq, a == b)
XPORT_PREDICATE(Ne, a != b)
XPORT_PREDICATE(Lt, a < b)
XPORT_PREDICATE(Le, a <= b)
XPORT_PREDICATE(Gt, a > b)
XPORT_PREDICATE(Ge, a >= b)
XPORT_PREDICATE(LogicalAnd, a != T(0) && b != T(0))
XPORT_PREDICATE(LogicalOr, a != T(0) || b != T(0))
XPORT_PREDICATE(LogicalXor, (a != T(0)) != (b != T(0)))
#undef XPORT_PREDICATE

#define XPORT_BITWISE(Name, OP)    \
  struct Name {                    \
    template <class T>             \
    T operator()(T a, T b) const { \
      if constexpr (kIsInt<T>)     \
        return a OP b;             \
      else                         \
        return a;                  \
    }                              \
  };
XPORT_BITWISE(BitwiseAnd, &)
XPORT_BITWISE(BitwiseOr, |)
XPORT_BITWISE(BitwiseXor, ^)
#undef XPORT_BITWISE

template <void (*V)(const float*, const float*, float*, int64_t)>
void vec_binary_block(float* out, const float* const* in, int64_t n, const void*) {
  V(in[0], in[1], out, n);
}
void vec_add_block(float* out, const float* const* in, int64_t n, const void* ctx) {
  vec::add(in[0], in[1], out, n, static_cast<float>(static_cast<const AddAlpha*>(ctx)->alpha_f));
}

// Integer division by zero has no value; refuse before any kernel runs.
void check_no_integer_zero(const Tensor& divisor, DType compute, const char* op) {
  if (is_floating(compute)) return;
  const std::vector<int64_t> values = divisor.to_vector<int64_t>();
  for (int64_t v : values) {
    XPORT_CHECK(v != 0, InvalidInput, op, ": integer division by zero (ZeroDivisionError)");
  }
}

}  // namespace

void add_out(const Tensor& a, const Tensor& b, const Scalar& alpha, const Tensor& out) {
  const AddAlpha f{alpha.to_double(), alpha.to_int()};
  run_binary(a, b, out, compute_kind(common_dtype(a, b)), f, vec_add_block);
}
void mul_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  run_binary<Mul>(a, b, out, common_dtype(a, b), vec_binary_block<vec::mul>);
}
void div_true_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  DType compute = common_dtype(a, b);
  if (!is_floating(compute)) compute = kDefaultFloat;  // true division of integers is float
  run_binary<DivTrue>(a, b, out, compute, vec_binary_block<vec::div>);
}
void div_trunc_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  check_no_integer_zero(b, common_dtype(a, b), "aten::div (rounding_mode='trunc')");
  run_binary<DivTrunc>(a, b, out, common_dtype(a, b));
}
void div_floor_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  check_no_integer_zero(b, common_dtype(a, b), "aten::div (rounding_mode='floor')");
  run_binary<DivFloor>(a, b, out, common_dtype(a, b));
}
void remainder_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  check_no_integer_zero(b, common_dtype(a, b), "aten::remainder");
  run_binary<Remainder>(a, b, out, common_dtype(a, b));
}
void fmod_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  check_no_integer_zero(b, common_dtype(a, b), "aten::fmod");
  run_binary<Fmod>(a, b, out, common_dtype(a, b));
}
void pow_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  run_binary<Pow>(a, b, out, common_dtype(a, b));
}
void maximum_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  run_binary<Maximum>(a, b, out, common_dtype(a, b));
}
void minimum_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  run_binary<Minimum>(a, b, out, common_dtype(a, b));
}
void atan2_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  run_binary<Atan2>(a, b, out, out.dtype());
}
void eq_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  run_binary<Eq>(a, b, out, common_dtype(a, b));
}
void ne_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  run_binary<Ne>(a, b, out, common_dtype(a, b));
}
void lt_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  run_binary<Lt>(a, b, out, common_dtype(a, b));
}
void le_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  run_binary<Le>(a, b, out, common_dtype(a, b));
}
void gt_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  run_binary<Gt>(a, b, out, common_dtype(a, b));
}
void ge_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  run_binary<Ge>(a, b, out, common_dtype(a, b));
}
void logical_and_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  run_binary<LogicalAnd>(a, b, out, common_dtype(a, b));
}
void logical_or_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  run_binary<LogicalOr>(a, b, out, common_dtype(a, b));
}
void logical_xor_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  run_binary<LogicalXor>(a, b, out, common_dtype(a, b));
}
void bitwise_and_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  run_binary<BitwiseAnd>(a, b, out, common_dtype(a, b));
}
void bitwise_or_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  run_binary<BitwiseOr>(a, b, out, common_dtype(a, b));
}
void bitwise_xor_out(const Tensor& a, const Tensor& b, const Tensor& out) {
  run_binary<BitwiseXor>(a, b, out, common_dtype(a, b));
}

namespace {
struct Where {
  template <class T>
  T operator()(T c, T a, T b) const {
    return c != T(0) ? a : b;
  }
};
struct Clamp {
  bool has_lo, has_hi;
  template <class T>
  T operator()(T x, T lo, T hi) const {
    if constexpr (!kIsInt<T>) {
      if (x != x) return x;
      if (has_lo && lo != lo) return lo;
      if (has_hi && hi != hi) return hi;
    }
    if (has_lo && x < lo) x = lo;
    if (has_hi && x > hi) x = hi;
    return x;
  }
};
}  // namespace

void where_out(const Tensor& cond, const Tensor& a, const Tensor& b, const Tensor& out) {
  static const Where f{};
  const Tensor inputs[] = {cond, a, b};
  elementwise(
      out, inputs, compute_kind(out.dtype()),
      {ternary_block<float, Where>, ternary_block<double, Where>, ternary_block<int64_t, Where>},
      &f);
}

void clamp_out(const Tensor& self, const Tensor& lo, const Tensor& hi, const Tensor& out) {
  const Clamp f{lo.defined(), hi.defined()};
  // An absent bound is fed as the input itself, which the functor ignores.
  const Tensor inputs[] = {self, lo.defined() ? lo : self, hi.defined() ? hi : self};
  elementwise(
      out, inputs, compute_kind(out.dtype()),
      {ternary_block<float, Clamp>, ternary_block<double, Clamp>, ternary_block<int64_t, Clamp>},
      &f);
}

Tensor scalar_tensor(const Scalar& value, DType dtype) {
  Tensor t = Tensor::empty_contiguous({}, dtype);
  fill_out(value, t);
  return t;
}

void fill_out(const Scalar& value, const Tensor& out) {
  // Store through a 0-dim double/int64 source so the conversion rules are copy's.
  Tensor src;
  if (value.is_float()) {
    src = Tensor::empty_contiguous({}, DType::Float64);
    *static_cast<double*>(src.raw_data()) = value.to_double();
  } else {
    src = Tensor::empty_contiguous({}, DType::Int64);
    *static_cast<int64_t*>(src.raw_data()) = value.to_int();
  }
  copy_into(out, src);
}

}  // namespace xport::kernels::cpu
