#pragma once
// The elementwise engine: broadcasting, strides, dtype conversion and threading, so that an
// elementwise kernel only says what it does to a block of contiguous values.

#include <cstdint>
#include <span>

#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

/// The type an elementwise loop computes in: 16-bit floats compute in float, integers and bool
/// in int64 (results are converted back to the output dtype on store, wrapping like C).
enum class ComputeKind { F32, F64, I64 };
ComputeKind compute_kind(DType dtype);

template <class T>
using BlockFn = void (*)(T* out, const T* const* in, int64_t n, const void* ctx);

/// One block function per compute kind; a null entry means the kind is not supported.
struct BlockFns {
  BlockFn<float> f32 = nullptr;
  BlockFn<double> f64 = nullptr;
  BlockFn<int64_t> i64 = nullptr;
};

/// out[i] = fn(in[0][i], in[1][i], ...) over out's shape; inputs broadcast to it. Values are
/// converted to `kind` before `fn` and to out's dtype after. `ctx` is passed through to `fn`.
void elementwise(const Tensor& out, std::span<const Tensor> inputs, ComputeKind kind,
                 const BlockFns& fns, const void* ctx = nullptr);

/// Copies src into dst (same shape after broadcasting src), converting the dtype.
void copy_into(const Tensor& dst, const Tensor& src);

/// `t` as a contiguous tensor of `dtype` (`t` itself when it already is one).
Tensor contiguous_as(const Tensor& t, DType dtype);

/// Calls fn(T{}) with the type a floating kernel computes `dtype` in: double for float64, float
/// for the others (float32, and half types, which convert in and out).
template <class Fn>
void visit_floating(DType dtype, const Fn& fn) {
  if (dtype == DType::Float64) {
    fn(double{});
  } else {
    fn(float{});
  }
}

/// Calls fn(T* data) on `out` directly when it is contiguous T, else on a T staging buffer that
/// is copied into `out` afterwards.
template <class T, class Fn>
void write_as(const Tensor& out, const Fn& fn) {
  if (out.dtype() == dtype_v<T> && out.is_contiguous()) {
    fn(out.mutable_data<T>());
    return;
  }
  const Tensor tmp = Tensor::empty_contiguous(out.int_sizes(), dtype_v<T>);
  fn(tmp.mutable_data<T>());
  copy_into(out, tmp);
}

// ---- helpers that turn a scalar functor into block functions ----
// A functor F has `template <class T> T operator()(T a[, T b, ...]) const`, and may read ctx.
template <class T, class F>
void unary_block(T* out, const T* const* in, int64_t n, const void* ctx) {
  const F& f = *static_cast<const F*>(ctx);
  const T* a = in[0];
  for (int64_t i = 0; i < n; ++i) out[i] = f(a[i]);
}
template <class T, class F>
void binary_block(T* out, const T* const* in, int64_t n, const void* ctx) {
  const F& f = *static_cast<const F*>(ctx);
  const T* a = in[0];
  const T* b = in[1];
  for (int64_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
}
template <class T, class F>
void ternary_block(T* out, const T* const* in, int64_t n, const void* ctx) {
  const F& f = *static_cast<const F*>(ctx);
  for (int64_t i = 0; i < n; ++i) out[i] = f(in[0][i], in[1][i], in[2][i]);
}

}  // namespace xport::kernels::cpu
