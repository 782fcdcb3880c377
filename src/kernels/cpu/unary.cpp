#include <cmath>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/pointwise.h"
#include "kernels/cpu/vec_math.h"

namespace xport::kernels::cpu {
namespace {

using VecFn = void (*)(const float*, float*, int64_t);

template <VecFn V>
void vec_block(float* out, const float* const* in, int64_t n, const void*) {
  V(in[0], out, n);
}

// Runs functor object `f` (an activation's parameters travel in it) in the compute kind of
// `kind_dtype`, with a SIMD loop for float32 when given.
template <class F>
void run_unary_with(const F& f, const Tensor& self, const Tensor& out, DType kind_dtype,
                    BlockFn<float> simd_f32 = nullptr) {
  BlockFns fns{unary_block<float, F>, unary_block<double, F>, unary_block<int64_t, F>};
  if (simd_f32) fns.f32 = simd_f32;
  const Tensor inputs[] = {self};
  elementwise(out, inputs, compute_kind(kind_dtype), fns, &f);
}
// The same for a functor without parameters.
template <class F>
void run_unary(const Tensor& self, const Tensor& out, DType kind_dtype,
               BlockFn<float> simd_f32 = nullptr) {
  static const F f{};
  run_unary_with(f, self, out, kind_dtype, simd_f32);
}

template <class T>
constexpr bool kIsInt = std::is_same_v<T, int64_t>;

// Integer negation and abs wrap like two's complement instead of overflowing.
struct Neg {
  template <class T>
  T operator()(T x) const {
    if constexpr (kIsInt<T>)
      return static_cast<T>(0ull - static_cast<uint64_t>(x));
    else
      return -x;
  }
};
struct Abs {
  template <class T>
  T operator()(T x) const {
    if constexpr (kIsInt<T>)
      return x < 0 ? Neg{}(x) : x;
    else
      return std::fabs(x);
  }
};
struct Sign {
  template <class T>
  T operator()(T x) const {
    return static_cast<T>((T(0) < x) - (x < T(0)));
  }
};
struct Relu {
  template <class T>
  T operator()(T x) const {
    return x < T(0) ? T(0) : x;
  }  // NaN passes through
};
struct Identity {
  template <class T>
  T operator()(T x) const {
    return x;
  }
};
struct LogicalNot {
  template <class T>
  T operator()(T x) const {
    return x == T(0) ? T(1) : T(0);
  }
};
struct BitwiseNot {
  template <class T>
  T operator()(T x) const {
    if constexpr (kIsInt<T>)
      return ~x;
    else
      return x;  // never used: bitwise ops have no float kernel
  }
};
struct IsNan {
  template <class T>
  T operator()(T x) const {
    return x != x ? T(1) : T(0);
  }
};
struct IsInf {
  template <class T>
  T operator()(T x) const {
    if constexpr (kIsInt<T>)
      return T(0);
    else
      return std::isinf(x) ? T(1) : T(0);
  }
};
// Activations with parameters: one functor object per call, passed to the blocks as ctx.
struct Elu {
  double alpha, scale, input_scale;
  template <class T>
  T operator()(T x) const {
    if (x > T(0)) return static_cast<T>(scale) * x;
    return static_cast<T>(scale * alpha) * (std::exp(x * static_cast<T>(input_scale)) - T(1));
  }
};
struct LeakyRelu {
  double slope;
  template <class T>
  T operator()(T x) const {
    return x > T(0) ? x : x * static_cast<T>(slope);
  }
};

#define XPORT_FLOAT_FUNCTOR(Name, expr) \
  struct Name {                         \
    template <class T>                  \
    T operator()(T x) const {           \
      return expr;                      \
    }                                   \
  };
XPORT_FLOAT_FUNCTOR(Exp, std::exp(x))
XPORT_FLOAT_FUNCTOR(Expm1, std::expm1(x))
XPORT_FLOAT_FUNCTOR(Log, std::log(x))
XPORT_FLOAT_FUNCTOR(Log1p, std::log1p(x))
XPORT_FLOAT_FUNCTOR(Log2, std::log2(x))
XPORT_FLOAT_FUNCTOR(Sqrt, std::sqrt(x))
XPORT_FLOAT_FUNCTOR(Rsqrt, T(1) / std::sqrt(x))
XPORT_FLOAT_FUNCTOR(Sin, std::sin(x))
XPORT_FLOAT_FUNCTOR(Cos, std::cos(x))
XPORT_FLOAT_FUNCTOR(Tan, std::tan(x))
XPORT_FLOAT_FUNCTOR(Acos, std::acos(x))
XPORT_FLOAT_FUNCTOR(Asin, std::asin(x))
XPORT_FLOAT_FUNCTOR(Atan, std::atan(x))
XPORT_FLOAT_FUNCTOR(Acosh, std::acosh(x))
XPORT_FLOAT_FUNCTOR(Asinh, std::asinh(x))
XPORT_FLOAT_FUNCTOR(Atanh, std::atanh(x))
XPORT_FLOAT_FUNCTOR(Cosh, std::cosh(x))
XPORT_FLOAT_FUNCTOR(Sinh, std::sinh(x))
XPORT_FLOAT_FUNCTOR(Log10, std::log10(x))
XPORT_FLOAT_FUNCTOR(Tanh, std::tanh(x))
XPORT_FLOAT_FUNCTOR(Sigmoid, T(1) / (T(1) + std::exp(-x)))
XPORT_FLOAT_FUNCTOR(Silu, x / (T(1) + std::exp(-x)))
XPORT_FLOAT_FUNCTOR(Erf, std::erf(x))
XPORT_FLOAT_FUNCTOR(Reciprocal, T(1) / x)
XPORT_FLOAT_FUNCTOR(Floor, std::floor(x))
XPORT_FLOAT_FUNCTOR(Ceil, std::ceil(x))
XPORT_FLOAT_FUNCTOR(Round, std::nearbyint(x))  // half to even, like PyTorch
XPORT_FLOAT_FUNCTOR(Trunc, std::trunc(x))
XPORT_FLOAT_FUNCTOR(GeluErf, x* T(0.5) * (T(1) + std::erf(x * T(0.70710678118654752440))))
XPORT_FLOAT_FUNCTOR(GeluTanh, T(0.5) * x *
                                  (T(1) + std::tanh(T(0.79788456080286535588) *
                                                    (x + T(0.044715) * x * x * x))))
#undef XPORT_FLOAT_FUNCTOR

// Rounding an integer is the identity.
template <class F>
void rounding(const Tensor& self, const Tensor& out) {
  if (is_floating(out.dtype()))
    run_unary<F>(self, out, out.dtype());
  else
    run_unary<Identity>(self, out, out.dtype());
}

}  // namespace

void neg_out(const Tensor& self, const Tensor& out) { run_unary<Neg>(self, out, out.dtype()); }
void abs_out(const Tensor& self, const Tensor& out) { run_unary<Abs>(self, out, out.dtype()); }
void sign_out(const Tensor& self, const Tensor& out) { run_unary<Sign>(self, out, out.dtype()); }
void exp_out(const Tensor& self, const Tensor& out) {
  run_unary<Exp>(self, out, out.dtype(), vec_block<vec::exp>);
}
void expm1_out(const Tensor& self, const Tensor& out) { run_unary<Expm1>(self, out, out.dtype()); }
void log_out(const Tensor& self, const Tensor& out) {
  run_unary<Log>(self, out, out.dtype(), vec_block<vec::log>);
}
void log1p_out(const Tensor& self, const Tensor& out) { run_unary<Log1p>(self, out, out.dtype()); }
void log2_out(const Tensor& self, const Tensor& out) { run_unary<Log2>(self, out, out.dtype()); }
void sqrt_out(const Tensor& self, const Tensor& out) { run_unary<Sqrt>(self, out, out.dtype()); }
void rsqrt_out(const Tensor& self, const Tensor& out) { run_unary<Rsqrt>(self, out, out.dtype()); }
void sin_out(const Tensor& self, const Tensor& out) { run_unary<Sin>(self, out, out.dtype()); }
void cos_out(const Tensor& self, const Tensor& out) { run_unary<Cos>(self, out, out.dtype()); }
void tan_out(const Tensor& self, const Tensor& out) { run_unary<Tan>(self, out, out.dtype()); }
void tanh_out(const Tensor& self, const Tensor& out) {
  run_unary<Tanh>(self, out, out.dtype(), vec_block<vec::tanh>);
}
void sigmoid_out(const Tensor& self, const Tensor& out) {
  run_unary<Sigmoid>(self, out, out.dtype(), vec_block<vec::sigmoid>);
}
void relu_out(const Tensor& self, const Tensor& out) {
  run_unary<Relu>(self, out, out.dtype(), vec_block<vec::relu>);
}
void silu_out(const Tensor& self, const Tensor& out) {
  run_unary<Silu>(self, out, out.dtype(), vec_block<vec::silu>);
}
void erf_out(const Tensor& self, const Tensor& out) {
  run_unary<Erf>(self, out, out.dtype(), vec_block<vec::erf>);
}
void gelu_out(const Tensor& self, bool tanh_approximation, const Tensor& out) {
  if (tanh_approximation)
    run_unary<GeluTanh>(self, out, out.dtype(), vec_block<vec::gelu_tanh>);
  else
    run_unary<GeluErf>(self, out, out.dtype(), vec_block<vec::gelu_erf>);
}
void reciprocal_out(const Tensor& self, const Tensor& out) {
  run_unary<Reciprocal>(self, out, out.dtype());
}
void floor_out(const Tensor& self, const Tensor& out) { rounding<Floor>(self, out); }
void ceil_out(const Tensor& self, const Tensor& out) { rounding<Ceil>(self, out); }
void round_out(const Tensor& self, const Tensor& out) { rounding<Round>(self, out); }
void trunc_out(const Tensor& self, const Tensor& out) { rounding<Trunc>(self, out); }
void logical_not_out(const Tensor& self, const Tensor& out) {
  run_unary<LogicalNot>(self, out, self.dtype());
}
void bitwise_not_out(const Tensor& self, const Tensor& out) {
  if (self.dtype() == DType::Bool) return logical_not_out(self, out);
  run_unary<BitwiseNot>(self, out, self.dtype());
}
void isnan_out(const Tensor& self, const Tensor& out) { run_unary<IsNan>(self, out, self.dtype()); }
void isinf_out(const Tensor& self, const Tensor& out) { run_unary<IsInf>(self, out, self.dtype()); }
void acos_out(const Tensor& self, const Tensor& out) { run_unary<Acos>(self, out, out.dtype()); }
void asin_out(const Tensor& self, const Tensor& out) { run_unary<Asin>(self, out, out.dtype()); }
void atan_out(const Tensor& self, const Tensor& out) { run_unary<Atan>(self, out, out.dtype()); }
void acosh_out(const Tensor& self, const Tensor& out) { run_unary<Acosh>(self, out, out.dtype()); }
void asinh_out(const Tensor& self, const Tensor& out) { run_unary<Asinh>(self, out, out.dtype()); }
void atanh_out(const Tensor& self, const Tensor& out) { run_unary<Atanh>(self, out, out.dtype()); }
void cosh_out(const Tensor& self, const Tensor& out) { run_unary<Cosh>(self, out, out.dtype()); }
void sinh_out(const Tensor& self, const Tensor& out) { run_unary<Sinh>(self, out, out.dtype()); }
void log10_out(const Tensor& self, const Tensor& out) { run_unary<Log10>(self, out, out.dtype()); }
void elu_out(const Tensor& self, const Scalar& alpha, const Scalar& scale,
             const Scalar& input_scale, const Tensor& out) {
  run_unary_with(Elu{alpha.to_double(), scale.to_double(), input_scale.to_double()}, self, out,
                 out.dtype());
}
void leaky_relu_out(const Tensor& self, const Scalar& negative_slope, const Tensor& out) {
  run_unary_with(LeakyRelu{negative_slope.to_double()}, self, out, out.dtype());
}
void hardtanh_out(const Tensor& self, const Scalar& min_val, const Scalar& max_val,
                  const Tensor& out) {
  clamp_out(self, scalar_tensor(min_val, out.dtype()), scalar_tensor(max_val, out.dtype()), out);
}

}  // namespace xport::kernels::cpu
