#include "kernels/cpu/elementwise.h"

#include <array>
#include <vector>

#include "kernels/cpu/parallel.h"

namespace xport::kernels::cpu {
namespace {

constexpr int64_t kBlock = 512;
constexpr int kMaxOperands = 4;  // the output and up to three inputs
constexpr int64_t kParallelGrain = 32768;

template <class T, class S>
inline T convert(S v) {
  if constexpr (std::is_same_v<S, Half> || std::is_same_v<S, BFloat16>) {
    return static_cast<T>(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

template <class T>
void load_block(const char* p, int64_t stride, DType dtype, T* dst, int64_t n) {
  visit_dtype(dtype, [&](auto tag) {
    using S = decltype(tag);
    if (stride == 0) {
      const T v = convert<T>(*reinterpret_cast<const S*>(p));
      for (int64_t i = 0; i < n; ++i) dst[i] = v;
    } else {
      for (int64_t i = 0; i < n; ++i)
        dst[i] = convert<T>(*reinterpret_cast<const S*>(p + i * stride));
    }
  });
}

template <class T>
void store_block(const T* src, char* p, int64_t stride, DType dtype, int64_t n) {
  visit_dtype(dtype, [&](auto tag) {
    using D = decltype(tag);
    for (int64_t i = 0; i < n; ++i) {
      D* dst = reinterpret_cast<D*>(p + i * stride);
      if constexpr (std::is_same_v<D, bool>) {
        *dst = src[i] != T(0);
      } else if constexpr (std::is_same_v<D, Half> || std::is_same_v<D, BFloat16>) {
        *dst = D(static_cast<float>(src[i]));
      } else {
        *dst = static_cast<D>(src[i]);
      }
    }
  });
}

// Operand 0 is the output; strides are in bytes, broadcast to the output's shape and coalesced.
struct Plan {
  int num_operands = 0;
  std::array<char*, kMaxOperands> data{};
  std::array<DType, kMaxOperands> dtypes{};
  std::vector<int64_t> sizes;
  std::vector<std::array<int64_t, kMaxOperands>> strides;  // per dim
  int64_t numel = 1;
};

Plan make_plan(const Tensor& out, std::span<const Tensor> inputs) {
  Plan plan;
  plan.num_operands = static_cast<int>(inputs.size()) + 1;
  XPORT_CHECK(plan.num_operands <= kMaxOperands, Internal, "elementwise: too many inputs");
  const std::vector<int64_t> sizes = out.int_sizes();
  const int64_t ndim = static_cast<int64_t>(sizes.size());
  std::vector<std::array<int64_t, kMaxOperands>> strides(ndim);
  auto set_operand = [&](int k, const Tensor& t) {
    plan.data[k] = static_cast<char*>(t.raw_data());
    plan.dtypes[k] = t.dtype();
    const std::vector<int64_t> ts = t.int_sizes();
    const std::vector<int64_t> st = t.int_strides();
    const int64_t offset = ndim - static_cast<int64_t>(ts.size());
    XPORT_CHECK(offset >= 0, Internal, "elementwise: input has more dims than the output");
    for (int64_t d = 0; d < ndim; ++d) {
      const int64_t td = d - offset;
      if (td < 0 || ts[td] == 1) {
        strides[d][k] = 0;
      } else {
        XPORT_CHECK(ts[td] == sizes[d], Internal, "elementwise: input size ", ts[td],
                    " does not broadcast to ", sizes[d], " at dim ", d);
        strides[d][k] = st[td] * t.element_size();
      }
    }
  };
  set_operand(0, out);
  for (size_t i = 0; i < inputs.size(); ++i) set_operand(static_cast<int>(i) + 1, inputs[i]);

  // Coalesce from the innermost dim outwards, dropping size-1 dims.
  for (int64_t d = ndim - 1; d >= 0; --d) {
    plan.numel *= sizes[d];
    if (sizes[d] == 1) continue;
    if (!plan.sizes.empty()) {
      const int64_t inner_size = plan.sizes.front();
      const auto& inner = plan.strides.front();
      bool mergeable = true;
      for (int k = 0; k < plan.num_operands; ++k)
        mergeable = mergeable && strides[d][k] == inner[k] * inner_size;
      if (mergeable) {
        plan.sizes.front() *= sizes[d];
        continue;
      }
    }
    plan.sizes.insert(plan.sizes.begin(), sizes[d]);
    plan.strides.insert(plan.strides.begin(), strides[d]);
  }
  if (plan.sizes.empty()) {  // a single element
    plan.sizes.push_back(1);
    plan.strides.push_back({});
  }
  return plan;
}

template <class T>
void run_row(const Plan& plan, std::array<char*, kMaxOperands> ptr, int64_t len, BlockFn<T> fn,
             const void* ctx) {
  constexpr DType kT = std::is_same_v<T, float>    ? DType::Float32
                       : std::is_same_v<T, double> ? DType::Float64
                                                   : DType::Int64;
  alignas(64) T buffers[kMaxOperands][kBlock];
  const auto& st = plan.strides.back();
  for (int64_t off = 0; off < len; off += kBlock) {
    const int64_t n = std::min(kBlock, len - off);
    const T* in[kMaxOperands - 1];
    for (int k = 1; k < plan.num_operands; ++k) {
      const char* p = ptr[k] + off * st[k];
      if (plan.dtypes[k] == kT && st[k] == static_cast<int64_t>(sizeof(T))) {
        in[k - 1] = reinterpret_cast<const T*>(p);
      } else {
        load_block<T>(p, st[k], plan.dtypes[k], buffers[k], n);
        in[k - 1] = buffers[k];
      }
    }
    char* out_p = ptr[0] + off * st[0];
    const bool direct = plan.dtypes[0] == kT && st[0] == static_cast<int64_t>(sizeof(T));
    T* out = direct ? reinterpret_cast<T*>(out_p) : buffers[0];
    fn(out, in, n, ctx);
    if (!direct) store_block<T>(buffers[0], out_p, st[0], plan.dtypes[0], n);
  }
}

template <class T>
void run_range(const Plan& plan, int64_t begin, int64_t end, BlockFn<T> fn, const void* ctx) {
  const int64_t ndim = static_cast<int64_t>(plan.sizes.size());
  const int64_t inner = plan.sizes.back();
  std::vector<int64_t> index(ndim, 0);
  int64_t rest = begin;
  for (int64_t d = ndim - 1; d >= 0; --d) {
    index[d] = rest % plan.sizes[d];
    rest /= plan.sizes[d];
  }
  int64_t pos = begin;
  while (pos < end) {
    std::array<char*, kMaxOperands> ptr = plan.data;
    for (int64_t d = 0; d < ndim; ++d)
      for (int k = 0; k < plan.num_operands; ++k) ptr[k] += index[d] * plan.strides[d][k];
    const int64_t len = std::min(inner - index[ndim - 1], end - pos);
    run_row<T>(plan, ptr, len, fn, ctx);
    pos += len;
    index[ndim - 1] += len;
    for (int64_t d = ndim - 1; d > 0 && index[d] >= plan.sizes[d]; --d) {
      index[d] = 0;
      ++index[d - 1];
    }
  }
}

template <class T>
void run(const Plan& plan, BlockFn<T> fn, const void* ctx) {
  parallel_for(0, plan.numel, kParallelGrain,
               [&](int64_t b, int64_t e) { run_range<T>(plan, b, e, fn, ctx); });
}

template <class T>
struct CopyFn {
  static void block(T* out, const T* const* in, int64_t n, const void*) {
    std::copy(in[0], in[0] + n, out);
  }
};

}  // namespace

ComputeKind compute_kind(DType dtype) {
  if (dtype == DType::Float64) return ComputeKind::F64;
  if (is_floating(dtype)) return ComputeKind::F32;
  return ComputeKind::I64;
}

void elementwise(const Tensor& out, std::span<const Tensor> inputs, ComputeKind kind,
                 const BlockFns& fns, const void* ctx) {
  const Plan plan = make_plan(out, inputs);
  if (plan.numel == 0) return;
  switch (kind) {
    case ComputeKind::F32:
      XPORT_CHECK(fns.f32, Internal, "elementwise: no float kernel");
      return run<float>(plan, fns.f32, ctx);
    case ComputeKind::F64:
      XPORT_CHECK(fns.f64, Internal, "elementwise: no double kernel");
      return run<double>(plan, fns.f64, ctx);
    case ComputeKind::I64:
      XPORT_CHECK(fns.i64, Internal, "elementwise: no integer kernel");
      return run<int64_t>(plan, fns.i64, ctx);
  }
}

Tensor contiguous_as(const Tensor& t, DType dtype) {
  if (t.dtype() == dtype && t.is_contiguous()) return t;
  Tensor c = Tensor::empty_contiguous(t.int_sizes(), dtype);
  copy_into(c, t);
  return c;
}

void copy_into(const Tensor& dst, const Tensor& src) {
  if (is_complex(dst.dtype()) || is_complex(src.dtype())) {
    // Complex into complex: their parts, as float tensors of one more dim.
    XPORT_CHECK(is_complex(dst.dtype()) && is_complex(src.dtype()), UnsupportedOp,
                "copying a ", dtype_name(src.dtype()), " tensor into a ", dtype_name(dst.dtype()),
                " one is not supported; take the real part with view_as_real(x).select(-1, 0)");
    copy_into(Tensor::make(dst.storage(), complex_as_real(dst.meta())),
              Tensor::make(src.storage(), complex_as_real(src.meta())));
    return;
  }
  // Compute in the wider of the two kinds so no value is rounded twice.
  const DType wide = promote_types(dst.dtype(), src.dtype());
  ComputeKind kind = compute_kind(wide);
  if (kind == ComputeKind::F32 && (dst.dtype() == DType::Float64 || src.dtype() == DType::Float64))
    kind = ComputeKind::F64;
  const Tensor inputs[] = {src};
  elementwise(dst, inputs, kind,
              {CopyFn<float>::block, CopyFn<double>::block, CopyFn<int64_t>::block});
}

}  // namespace xport::kernels::cpu
