#include "kernels/cpu/pool.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/parallel.h"

namespace xport::kernels::cpu {
namespace {

// The plane geometry shared by the pools: `planes` planes of in_h x in_w in,
// out_h x out_w out.
struct Planes {
  int64_t planes, in_h, in_w, out_h, out_w;
};

Planes planes_of(const Tensor& self, const Tensor& out) {
  const int64_t d = self.dim();
  Planes p;
  p.in_h = self.int_size(d - 2);
  p.in_w = self.int_size(d - 1);
  p.out_h = out.int_size(d - 2);
  p.out_w = out.int_size(d - 1);
  p.planes = p.in_h * p.in_w == 0 ? 0 : self.int_numel() / (p.in_h * p.in_w);
  return p;
}

// Planes per parallel chunk so that each chunk does at least ~32k window reads.
int64_t plane_grain(const Planes& p, int64_t window) {
  return std::max<int64_t>(1, 32768 / std::max<int64_t>(1, p.out_h * p.out_w * window));
}

// The start of a running maximum: -inf, or the type's lowest value for integers.
template <class T>
T max_identity() {
  if constexpr (std::numeric_limits<T>::has_infinity) return -std::numeric_limits<T>::infinity();
  return std::numeric_limits<T>::lowest();
}

template <class T>
void max_pool_planes(const T* in, T* out, int64_t* indices, const Planes& g, const Pool2d& k) {
  parallel_for(0, g.planes, plane_grain(g, k.kernel_h * k.kernel_w), [&](int64_t b, int64_t e) {
    for (int64_t plane = b; plane < e; ++plane) {
      const T* x = in + plane * g.in_h * g.in_w;
      T* y = out + plane * g.out_h * g.out_w;
      int64_t* yi = indices ? indices + plane * g.out_h * g.out_w : nullptr;
      for (int64_t oh = 0; oh < g.out_h; ++oh) {
        int64_t ih0 = oh * k.stride_h - k.pad_h;
        const int64_t ih1 = std::min(ih0 + (k.kernel_h - 1) * k.dilation_h + 1, g.in_h);
        while (ih0 < 0) ih0 += k.dilation_h;
        for (int64_t ow = 0; ow < g.out_w; ++ow) {
          int64_t iw0 = ow * k.stride_w - k.pad_w;
          const int64_t iw1 = std::min(iw0 + (k.kernel_w - 1) * k.dilation_w + 1, g.in_w);
          while (iw0 < 0) iw0 += k.dilation_w;
          // ATen's order: the first maximum wins, and a NaN replaces
          // anything.
          int64_t best_index = ih0 * g.in_w + iw0;
          T best = max_identity<T>();
          for (int64_t ih = ih0; ih < ih1; ih += k.dilation_h) {
            for (int64_t iw = iw0; iw < iw1; iw += k.dilation_w) {
              const int64_t index = ih * g.in_w + iw;
              const T v = x[index];
              if (v > best || v != v) {
                best = v;
                best_index = index;
              }
            }
          }
          y[oh * g.out_w + ow] = best;
          if (yi) yi[oh * g.out_w + ow] = best_index;
        }
      }
    }
  });
}

// Max values only, separably: the max down each window's rows for every input
// column (vectorizes over the row), then across each window's columns. NaN wins
// in both passes.
template <class T>
void max_pool_values_planes(const T* in, T* out, const Planes& g, const Pool2d& k) {
  parallel_for(0, g.planes, plane_grain(g, k.kernel_h * k.kernel_w), [&](int64_t b, int64_t e) {
    std::vector<T> column_max(static_cast<size_t>(g.in_w));
    T* cm = column_max.data();
    for (int64_t plane = b; plane < e; ++plane) {
      const T* x = in + plane * g.in_h * g.in_w;
      T* y = out + plane * g.out_h * g.out_w;
      for (int64_t oh = 0; oh < g.out_h; ++oh) {
        int64_t ih0 = oh * k.stride_h - k.pad_h;
        const int64_t ih1 = std::min(ih0 + (k.kernel_h - 1) * k.dilation_h + 1, g.in_h);
        while (ih0 < 0) ih0 += k.dilation_h;
        if (ih0 >= ih1) {
          std::fill(cm, cm + g.in_w, max_identity<T>());
        } else {
          std::copy(x + ih0 * g.in_w, x + (ih0 + 1) * g.in_w, cm);
          for (int64_t ih = ih0 + k.dilation_h; ih < ih1; ih += k.dilation_h) {
            const T* row = x + ih * g.in_w;
            // `|`, not `||`: no branch, so the loop vectorizes (NaN still wins, as in PyTorch).
            for (int64_t iw = 0; iw < g.in_w; ++iw) {
              const T v = row[iw], c = cm[iw];
              cm[iw] = ((v > c) | (v != v)) ? v : c;
            }
          }
        }
        for (int64_t ow = 0; ow < g.out_w; ++ow) {
          int64_t iw0 = ow * k.stride_w - k.pad_w;
          const int64_t iw1 = std::min(iw0 + (k.kernel_w - 1) * k.dilation_w + 1, g.in_w);
          while (iw0 < 0) iw0 += k.dilation_w;
          T best = max_identity<T>();
          for (int64_t iw = iw0; iw < iw1; iw += k.dilation_w) {
            const T v = cm[iw];
            // `v != best && v != v` is `v != v` (a NaN differs from everything), but written
            // so GCC 12 compiles the loop to max instructions: 2.2x faster on ResNet-50's pool.
            best = ((v > best) | (v != best && v != v)) ? v : best;
          }
          y[oh * g.out_w + ow] = best;
        }
      }
    }
  });
}

// Average pooling's window for output (oh, ow), clamped to the input ([h0, h1) x [w0, w1), empty
// when it lies in the padding), and what its sum is divided by (ATen's avg_pool2d).
struct AvgWindow {
  int64_t h0, h1, w0, w1, divisor;
  bool empty() const { return h0 >= h1 || w0 >= w1; }
};

AvgWindow avg_window(const Planes& g, const Pool2d& k, int64_t oh, int64_t ow,
                     bool count_include_pad, std::optional<int64_t> divisor_override) {
  AvgWindow w{};
  w.h0 = oh * k.stride_h - k.pad_h;
  w.w0 = ow * k.stride_w - k.pad_w;
  w.h1 = std::min(w.h0 + k.kernel_h, g.in_h + k.pad_h);
  w.w1 = std::min(w.w0 + k.kernel_w, g.in_w + k.pad_w);
  const int64_t pool_size = (w.h1 - w.h0) * (w.w1 - w.w0);
  w.h0 = std::max<int64_t>(w.h0, 0);
  w.w0 = std::max<int64_t>(w.w0, 0);
  w.h1 = std::min(w.h1, g.in_h);
  w.w1 = std::min(w.w1, g.in_w);
  w.divisor = divisor_override    ? *divisor_override
              : count_include_pad ? pool_size
                                  : (w.h1 - w.h0) * (w.w1 - w.w0);
  return w;
}

template <class T>
void avg_pool_planes(const T* in, T* out, const Planes& g, const Pool2d& k, bool count_include_pad,
                     std::optional<int64_t> divisor_override) {
  parallel_for(0, g.planes, plane_grain(g, k.kernel_h * k.kernel_w), [&](int64_t b, int64_t e) {
    for (int64_t plane = b; plane < e; ++plane) {
      const T* x = in + plane * g.in_h * g.in_w;
      T* y = out + plane * g.out_h * g.out_w;
      for (int64_t oh = 0; oh < g.out_h; ++oh) {
        for (int64_t ow = 0; ow < g.out_w; ++ow) {
          const AvgWindow w = avg_window(g, k, oh, ow, count_include_pad, divisor_override);
          T& dst = y[oh * g.out_w + ow];
          if (w.empty()) {
            dst = T(0);
            continue;
          }
          T sum = T(0);
          for (int64_t ih = w.h0; ih < w.h1; ++ih) {
            for (int64_t iw = w.w0; iw < w.w1; ++iw) sum += x[ih * g.in_w + iw];
          }
          dst = static_cast<T>(sum / static_cast<T>(w.divisor));
        }
      }
    }
  });
}

template <class T>
void adaptive_avg_planes(const T* in, T* out, const Planes& g) {
  const auto& start = adaptive_start;
  const auto& end = adaptive_end;
  const int64_t window = ((g.in_h + g.out_h - 1) / std::max<int64_t>(g.out_h, 1) + 1) *
                         ((g.in_w + g.out_w - 1) / std::max<int64_t>(g.out_w, 1) + 1);
  parallel_for(0, g.planes, plane_grain(g, window), [&](int64_t b, int64_t e) {
    for (int64_t plane = b; plane < e; ++plane) {
      const T* x = in + plane * g.in_h * g.in_w;
      T* y = out + plane * g.out_h * g.out_w;
      for (int64_t oh = 0; oh < g.out_h; ++oh) {
        const int64_t ih0 = start(oh, g.out_h, g.in_h);
        const int64_t ih1 = end(oh, g.out_h, g.in_h);
        for (int64_t ow = 0; ow < g.out_w; ++ow) {
          const int64_t iw0 = start(ow, g.out_w, g.in_w);
          const int64_t iw1 = end(ow, g.out_w, g.in_w);
          T sum = T(0);
          for (int64_t ih = ih0; ih < ih1; ++ih) {
            for (int64_t iw = iw0; iw < iw1; ++iw) sum += x[ih * g.in_w + iw];
          }
          y[oh * g.out_w + ow] = sum / static_cast<T>((ih1 - ih0) * (iw1 - iw0));
        }
      }
    }
  });
}

}  // namespace

void max_pool2d_out(const Tensor& self, const Pool2d& pool, const Tensor& out,
                    const Tensor& indices) {
  const Planes g = planes_of(self, out);
  if (g.planes == 0) return;
  Tensor staged_indices;
  if (indices.defined() && !indices.is_contiguous()) {
    staged_indices = Tensor::empty_contiguous(indices.int_sizes(), DType::Int64);
  } else {
    staged_indices = indices;
  }
  int64_t* idx = staged_indices.defined() ? staged_indices.mutable_data<int64_t>() : nullptr;
  auto pool_as = [&](auto zero) {
    using T = decltype(zero);
    const Tensor in = contiguous_as(self, dtype_v<T>);
    write_as<T>(out, [&](T* y) {
      if (idx)
        max_pool_planes<T>(in.data<T>(), y, idx, g, pool);
      else
        max_pool_values_planes<T>(in.data<T>(), y, g, pool);
    });
  };
  if (is_floating(self.dtype())) {
    visit_floating(self.dtype(), pool_as);
  } else {
    visit_dtype(self.dtype(), [&](auto zero) {
      using T = decltype(zero);
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) pool_as(zero);
    });
  }
  if (staged_indices.defined() && !staged_indices.is_same(indices))
    copy_into(indices, staged_indices);
}

void avg_pool2d_out(const Tensor& self, const Pool2d& pool, bool count_include_pad,
                    std::optional<int64_t> divisor_override, const Tensor& out) {
  const Planes g = planes_of(self, out);
  if (g.planes == 0) return;
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const Tensor in = contiguous_as(self, dtype_v<T>);
    write_as<T>(out, [&](T* y) {
      avg_pool_planes<T>(in.data<T>(), y, g, pool, count_include_pad, divisor_override);
    });
  };
  // Integers average in int64 and truncate, like ATen.
  if (!is_floating(self.dtype()))
    run(int64_t{});
  else
    visit_floating(self.dtype(), run);
}

namespace {

// Runs backward(planes, grad_output data, grad_input data) in the gradient's floating type on
// zeroed contiguous buffers; Planes see grad_input as the pool's input.
template <class Backward>
void run_backward(const Tensor& grad_output, const Tensor& grad_input, const Backward& backward) {
  const Planes g = planes_of(grad_input, grad_output);
  visit_floating(grad_input.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const Tensor grad = contiguous_as(grad_output, dtype_v<T>);
    write_as<T>(grad_input, [&](T* gi) {
      std::fill(gi, gi + grad_input.int_numel(), T(0));
      if (g.planes > 0) backward(g, grad.data<T>(), gi);
    });
  });
}

}  // namespace

void max_pool2d_backward_out(const Tensor& grad_output, const Tensor& indices,
                             const Tensor& grad_input) {
  const Tensor where = contiguous_as(indices, DType::Int64);
  run_backward(grad_output, grad_input, [&](const Planes& g, const auto* go, auto* gi) {
    const int64_t* idx = where.data<int64_t>();
    parallel_for(0, g.planes, plane_grain(g, 1), [&](int64_t b, int64_t e) {
      for (int64_t plane = b; plane < e; ++plane) {
        for (int64_t o = plane * g.out_h * g.out_w; o < (plane + 1) * g.out_h * g.out_w; ++o)
          gi[plane * g.in_h * g.in_w + idx[o]] += go[o];
      }
    });
  });
}

void avg_pool2d_backward_out(const Tensor& grad_output, const Pool2d& k, bool count_include_pad,
                             std::optional<int64_t> divisor_override, const Tensor& grad_input) {
  run_backward(grad_output, grad_input, [&](const Planes& g, const auto* go, auto* gi) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(go)>>;
    parallel_for(0, g.planes, plane_grain(g, k.kernel_h * k.kernel_w), [&](int64_t b, int64_t e) {
      for (int64_t plane = b; plane < e; ++plane) {
        T* x = gi + plane * g.in_h * g.in_w;
        const T* y = go + plane * g.out_h * g.out_w;
        for (int64_t oh = 0; oh < g.out_h; ++oh) {
          for (int64_t ow = 0; ow < g.out_w; ++ow) {
            const AvgWindow w = avg_window(g, k, oh, ow, count_include_pad, divisor_override);
            if (w.empty()) continue;
            const T share = y[oh * g.out_w + ow] / static_cast<T>(w.divisor);
            for (int64_t ih = w.h0; ih < w.h1; ++ih) {
              for (int64_t iw = w.w0; iw < w.w1; ++iw) x[ih * g.in_w + iw] += share;
            }
          }
        }
      }
    });
  });
}

void adaptive_avg_pool2d_backward_out(const Tensor& grad_output, const Tensor& grad_input) {
  run_backward(grad_output, grad_input, [&](const Planes& g, const auto* go, auto* gi) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(go)>>;
    parallel_for(0, g.planes, plane_grain(g, 1), [&](int64_t b, int64_t e) {
      for (int64_t plane = b; plane < e; ++plane) {
        T* x = gi + plane * g.in_h * g.in_w;
        const T* y = go + plane * g.out_h * g.out_w;
        for (int64_t oh = 0; oh < g.out_h; ++oh) {
          const int64_t ih0 = adaptive_start(oh, g.out_h, g.in_h);
          const int64_t ih1 = adaptive_end(oh, g.out_h, g.in_h);
          for (int64_t ow = 0; ow < g.out_w; ++ow) {
            const int64_t iw0 = adaptive_start(ow, g.out_w, g.in_w);
            const int64_t iw1 = adaptive_end(ow, g.out_w, g.in_w);
            const T share = y[oh * g.out_w + ow] / static_cast<T>((ih1 - ih0) * (iw1 - iw0));
            for (int64_t ih = ih0; ih < ih1; ++ih) {
              for (int64_t iw = iw0; iw < iw1; ++iw) x[ih * g.in_w + iw] += share;
            }
          }
        }
      }
    });
  });
}

void adaptive_avg_pool2d_out(const Tensor& self, const Tensor& out) {
  const Planes g = planes_of(self, out);
  if (g.planes == 0) return;
  visit_floating(self.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const Tensor in = contiguous_as(self, dtype_v<T>);
    write_as<T>(out, [&](T* y) { adaptive_avg_planes<T>(in.data<T>(), y, g); });
  });
}

}  // namespace xport::kernels::cpu
