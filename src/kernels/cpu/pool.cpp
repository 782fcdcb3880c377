#include "kernels/cpu/pool.h"

#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/parallel.h"

namespace xport::kernels::cpu {
namespace {

template <size_t N>
using Dims = std::array<int64_t, N>;

template <size_t N>
int64_t product(const Dims<N>& d) {
  int64_t p = 1;
  for (int64_t v : d) p *= v;
  return p;
}

// `count` volumes of `in` sizes in, of `out` sizes out (the pooled dims; what comes before them
// is the count).
template <size_t N>
struct Volumes {
  int64_t count = 0;
  Dims<N> in{}, out{};
  int64_t in_n = 0, out_n = 0;  // elements per volume, in and out (read in every window's loop)
};

template <size_t N>
Volumes<N> volumes_of(const Tensor& self, const Tensor& out) {
  const auto d = static_cast<int64_t>(self.dim() - N);
  Volumes<N> v;
  for (size_t i = 0; i < N; ++i) {
    v.in[i] = self.int_size(d + static_cast<int64_t>(i));
    v.out[i] = out.int_size(d + static_cast<int64_t>(i));
  }
  v.in_n = product(v.in);
  v.out_n = product(v.out);
  v.count = v.in_n == 0 ? 0 : self.int_numel() / v.in_n;
  return v;
}

// Volumes per parallel chunk, so that each chunk does at least ~32k window reads.
template <size_t N>
int64_t volume_grain(const Volumes<N>& g, int64_t window) {
  return std::max<int64_t>(1, 32768 / std::max<int64_t>(1, g.out_n * window));
}

// Calls fn(volume, o, i) for each output position o of each volume, volumes in parallel; `i` is
// o's flat index within the volume. The last dim is a plain loop; the others step once per row.
template <size_t N, class Fn>
void for_each_output(const Volumes<N>& g, int64_t window, const Fn& fn) {
  parallel_for(0, g.count, volume_grain(g, window), [&](int64_t b, int64_t e) {
    const int64_t n = g.out_n, row = g.out[N - 1];
    for (int64_t volume = b; volume < e; ++volume) {
      Dims<N> o{};
      for (int64_t i = 0; i < n; i += row) {
        for (o[N - 1] = 0; o[N - 1] < row; ++o[N - 1]) fn(volume, o, i + o[N - 1]);
        for (size_t d = N - 1; d-- > 0;) {
          if (++o[d] < g.out[d]) break;
          o[d] = 0;
        }
      }
    }
  });
}

// Calls fn(index) for each position of the window [first, last) (by `step` in each dim), `index`
// flat in a volume of sizes `in`: nested loops, one per dim.
template <size_t N, size_t D = 0, class Fn>
void for_each_in_window(const Dims<N>& first, const Dims<N>& last, const Dims<N>& step,
                        const Dims<N>& in, int64_t base, const Fn& fn) {
  for (int64_t i = first[D]; i < last[D]; i += step[D]) {
    const int64_t index = base * in[D] + i;
    if constexpr (D + 1 == N) {
      fn(index);
    } else {
      for_each_in_window<N, D + 1>(first, last, step, in, index, fn);
    }
  }
}

// The start of a running maximum: -inf, or the type's lowest value for integers.
template <class T>
T max_identity() {
  if constexpr (std::numeric_limits<T>::has_infinity) return -std::numeric_limits<T>::infinity();
  return std::numeric_limits<T>::lowest();
}

// A max pool's window of output o: [first, last) by dilation, first moved onto the input.
template <size_t N>
void max_window(const PoolWindow<N>& k, const Dims<N>& in, const Dims<N>& o, Dims<N>& first,
                Dims<N>& last) {
  for (size_t d = 0; d < N; ++d) {
    first[d] = o[d] * k.stride[d] - k.pad[d];
    last[d] = std::min(first[d] + (k.kernel[d] - 1) * k.dilation[d] + 1, in[d]);
    while (first[d] < 0) first[d] += k.dilation[d];
  }
}

template <class T, size_t N>
void max_pool(const T* in, T* out, int64_t* indices, const Volumes<N>& g, const PoolWindow<N>& k) {
  for_each_output(g, product(k.kernel), [&](int64_t v, const Dims<N>& o, int64_t i) {
    Dims<N> first, last;
    max_window(k, g.in, o, first, last);
    const T* x = in + v * g.in_n;
    // ATen's order: the first maximum wins, and a NaN replaces anything. The window's last dim
    // is scanned here, with the running maximum in locals.
    T best = max_identity<T>();
    int64_t best_index = 0;
    for (size_t d = 0; d < N; ++d) best_index = best_index * g.in[d] + first[d];
    Dims<N> rows_last = last;
    rows_last[N - 1] = first[N - 1] + 1;  // one position of the last dim: each row's start
    const int64_t step = k.dilation[N - 1], width = last[N - 1] - first[N - 1];
    for_each_in_window<N>(first, rows_last, k.dilation, g.in, 0, [&](int64_t row) {
      T row_best = best;
      int64_t row_index = best_index;
      for (int64_t j = 0; j < width; j += step) {
        const T value = x[row + j];
        if (value > row_best || value != value) {
          row_best = value;
          row_index = row + j;
        }
      }
      best = row_best;
      best_index = row_index;
    });
    out[v * g.out_n + i] = best;
    if (indices != nullptr) indices[v * g.out_n + i] = best_index;
  });
}

// Max values of a 2-D pool only, separably: the max down each window's rows for every input
// column (vectorizes over the row), then across each window's columns. NaN wins in both passes.
template <class T>
void max_pool_values_2d(const T* in, T* out, const Volumes<2>& g, const Pool2d& k) {
  const int64_t in_h = g.in[0], in_w = g.in[1], out_h = g.out[0], out_w = g.out[1];
  // Windows wholly inside a row start at columns [0, starts): their maxima are taken for every
  // such column at once (contiguous loops, which vectorize), and each output reads its own.
  const int64_t span = (k.kernel[1] - 1) * k.dilation[1] + 1;
  const int64_t starts = std::max<int64_t>(in_w - span + 1, 0);
  parallel_for(0, g.count, volume_grain(g, product(k.kernel)), [&](int64_t b, int64_t e) {
    std::vector<T> column_max(static_cast<size_t>(in_w)), window_max(static_cast<size_t>(starts));
    T* cm = column_max.data();
    T* wm = window_max.data();
    // `|`, not `||`: no branch, so the loops vectorize (NaN still wins, as in PyTorch).
    const auto max_into = [](T* acc, const T* row, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        const T v = row[i], c = acc[i];
        acc[i] = ((v > c) | (v != v)) ? v : c;
      }
    };
    for (int64_t plane = b; plane < e; ++plane) {
      const T* x = in + plane * in_h * in_w;
      T* y = out + plane * out_h * out_w;
      for (int64_t oh = 0; oh < out_h; ++oh) {
        int64_t ih0 = oh * k.stride[0] - k.pad[0];
        const int64_t ih1 = std::min(ih0 + (k.kernel[0] - 1) * k.dilation[0] + 1, in_h);
        while (ih0 < 0) ih0 += k.dilation[0];
        if (ih0 >= ih1) {
          std::fill(cm, cm + in_w, max_identity<T>());
        } else {
          std::copy(x + ih0 * in_w, x + (ih0 + 1) * in_w, cm);
          for (int64_t ih = ih0 + k.dilation[0]; ih < ih1; ih += k.dilation[0]) {
            max_into(cm, x + ih * in_w, in_w);
          }
        }
        std::copy(cm, cm + starts, wm);
        for (int64_t j = 1; j < k.kernel[1]; ++j) max_into(wm, cm + j * k.dilation[1], starts);
        for (int64_t ow = 0; ow < out_w; ++ow) {
          int64_t iw0 = ow * k.stride[1] - k.pad[1];
          if (iw0 >= 0 && iw0 < starts) {
            y[oh * out_w + ow] = wm[iw0];
            continue;
          }
          // A window the padding cuts.
          const int64_t iw1 = std::min(iw0 + span, in_w);
          while (iw0 < 0) iw0 += k.dilation[1];
          T best = max_identity<T>();
          for (int64_t iw = iw0; iw < iw1; iw += k.dilation[1]) {
            const T v = cm[iw];
            // `v != best && v != v` is `v != v` (a NaN differs from everything), but written
            // so GCC 12 compiles the loop to max instructions: 2.2x faster on ResNet-50's pool.
            best = ((v > best) | (v != best && v != v)) ? v : best;
          }
          y[oh * out_w + ow] = best;
        }
      }
    }
  });
}

// Average pooling's window for output o, clamped to the input (empty when it lies in the
// padding), and what its sum is divided by (ATen's avg_pool2d/3d).
template <size_t N>
struct AvgWindow {
  Dims<N> first, last;
  int64_t divisor = 1;
  bool empty = false;
};

template <size_t N>
AvgWindow<N> avg_window(const Volumes<N>& g, const PoolWindow<N>& k, const Dims<N>& o,
                        bool count_include_pad, std::optional<int64_t> divisor_override) {
  AvgWindow<N> w;
  int64_t pool_size = 1, inside = 1;
  for (size_t d = 0; d < N; ++d) {
    w.first[d] = o[d] * k.stride[d] - k.pad[d];
    w.last[d] = std::min(w.first[d] + k.kernel[d], g.in[d] + k.pad[d]);
    pool_size *= w.last[d] - w.first[d];
    w.first[d] = std::max<int64_t>(w.first[d], 0);
    w.last[d] = std::min(w.last[d], g.in[d]);
    inside *= std::max<int64_t>(w.last[d] - w.first[d], 0);
  }
  w.empty = inside == 0;
  w.divisor = divisor_override ? *divisor_override : count_include_pad ? pool_size : inside;
  return w;
}

template <class T, size_t N>
void avg_pool(const T* in, T* out, const Volumes<N>& g, const PoolWindow<N>& k,
              bool count_include_pad, std::optional<int64_t> divisor_override) {
  for_each_output(g, product(k.kernel), [&](int64_t v, const Dims<N>& o, int64_t i) {
    const AvgWindow<N> w = avg_window(g, k, o, count_include_pad, divisor_override);
    T& dst = out[v * g.out_n + i];
    if (w.empty) {
      dst = T(0);
      return;
    }
    const T* x = in + v * g.in_n;
    T sum = T(0);
    for_each_in_window<N>(w.first, w.last, unit_steps<N>(), g.in, 0, [&](int64_t j) { sum += x[j]; });
    dst = static_cast<T>(sum / static_cast<T>(w.divisor));
  });
}

// The adaptive window of output o, and how many inputs it holds.
template <size_t N>
int64_t adaptive_window(const Volumes<N>& g, const Dims<N>& o, Dims<N>& first, Dims<N>& last) {
  int64_t count = 1;
  for (size_t d = 0; d < N; ++d) {
    first[d] = adaptive_start(o[d], g.out[d], g.in[d]);
    last[d] = adaptive_end(o[d], g.out[d], g.in[d]);
    count *= last[d] - first[d];
  }
  return count;
}

template <size_t N>
int64_t adaptive_window_size(const Volumes<N>& g) {
  int64_t window = 1;
  for (size_t d = 0; d < N; ++d) window *= g.in[d] / std::max<int64_t>(g.out[d], 1) + 1;
  return window;
}

template <class T, size_t N>
void adaptive_avg_pool(const T* in, T* out, const Volumes<N>& g) {
  for_each_output(g, adaptive_window_size(g), [&](int64_t v, const Dims<N>& o, int64_t i) {
    Dims<N> first, last;
    const int64_t count = adaptive_window(g, o, first, last);
    const T* x = in + v * g.in_n;
    T sum = T(0);
    for_each_in_window<N>(first, last, unit_steps<N>(), g.in, 0, [&](int64_t j) { sum += x[j]; });
    out[v * g.out_n + i] = sum / static_cast<T>(count);
  });
}

// Runs backward(volumes, grad_output data, grad_input data) in the gradient's floating type on
// zeroed contiguous buffers; the volumes see grad_input as the pool's input.
template <size_t N, class Backward>
void run_backward(const Tensor& grad_output, const Tensor& grad_input, const Backward& backward) {
  const Volumes<N> g = volumes_of<N>(grad_input, grad_output);
  visit_floating(grad_input.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const Tensor grad = contiguous_as(grad_output, dtype_v<T>);
    write_as<T>(grad_input, [&](T* gi) {
      std::fill(gi, gi + grad_input.int_numel(), T(0));
      if (g.count > 0) backward(g, grad.data<T>(), gi);
    });
  });
}

}  // namespace

template <size_t N>
void max_pool_out(const Tensor& self, const PoolWindow<N>& pool, const Tensor& out,
                  const Tensor& indices) {
  const Volumes<N> g = volumes_of<N>(self, out);
  if (g.count == 0 || g.out_n == 0) return;
  const Tensor staged = indices.defined() && !indices.is_contiguous()
                            ? Tensor::empty_contiguous(indices.int_sizes(), DType::Int64)
                            : indices;
  int64_t* idx = staged.defined() ? staged.mutable_data<int64_t>() : nullptr;
  auto pool_as = [&](auto zero) {
    using T = decltype(zero);
    const Tensor in = contiguous_as(self, dtype_v<T>);
    write_as<T>(out, [&](T* y) {
      if constexpr (N == 2) {
        if (idx == nullptr) return max_pool_values_2d<T>(in.data<T>(), y, g, pool);
      }
      max_pool<T, N>(in.data<T>(), y, idx, g, pool);
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
  if (staged.defined() && !staged.is_same(indices)) copy_into(indices, staged);
}

template <size_t N>
void avg_pool_out(const Tensor& self, const PoolWindow<N>& pool, bool count_include_pad,
                  std::optional<int64_t> divisor_override, const Tensor& out) {
  const Volumes<N> g = volumes_of<N>(self, out);
  if (g.count == 0 || g.out_n == 0) return;
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const Tensor in = contiguous_as(self, dtype_v<T>);
    write_as<T>(out, [&](T* y) {
      avg_pool<T, N>(in.data<T>(), y, g, pool, count_include_pad, divisor_override);
    });
  };
  // Integers average in int64 and truncate, like ATen.
  if (!is_floating(self.dtype()))
    run(int64_t{});
  else
    visit_floating(self.dtype(), run);
}

template <size_t N>
void adaptive_avg_pool_out(const Tensor& self, const Tensor& out) {
  const Volumes<N> g = volumes_of<N>(self, out);
  if (g.count == 0 || g.out_n == 0) return;
  visit_floating(self.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const Tensor in = contiguous_as(self, dtype_v<T>);
    write_as<T>(out, [&](T* y) { adaptive_avg_pool<T, N>(in.data<T>(), y, g); });
  });
}

template <size_t N>
void max_pool_backward_out(const Tensor& grad_output, const Tensor& indices,
                           const Tensor& grad_input) {
  const Tensor where = contiguous_as(indices, DType::Int64);
  run_backward<N>(grad_output, grad_input, [&](const Volumes<N>& g, const auto* go, auto* gi) {
    const int64_t* idx = where.data<int64_t>();
    const int64_t in_n = g.in_n, out_n = g.out_n;
    parallel_for(0, g.count, volume_grain(g, 1), [&](int64_t b, int64_t e) {
      for (int64_t v = b; v < e; ++v) {
        for (int64_t o = v * out_n; o < (v + 1) * out_n; ++o) gi[v * in_n + idx[o]] += go[o];
      }
    });
  });
}

template <size_t N>
void avg_pool_backward_out(const Tensor& grad_output, const PoolWindow<N>& k,
                           bool count_include_pad, std::optional<int64_t> divisor_override,
                           const Tensor& grad_input) {
  run_backward<N>(grad_output, grad_input, [&](const Volumes<N>& g, const auto* go, auto* gi) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(go)>>;
    for_each_output(g, product(k.kernel), [&](int64_t v, const Dims<N>& o, int64_t i) {
      const AvgWindow<N> w = avg_window(g, k, o, count_include_pad, divisor_override);
      if (w.empty) return;
      T* x = gi + v * g.in_n;
      const T share = go[v * g.out_n + i] / static_cast<T>(w.divisor);
      for_each_in_window<N>(w.first, w.last, unit_steps<N>(), g.in, 0,
                            [&](int64_t j) { x[j] += share; });
    });
  });
}

template <size_t N>
void adaptive_avg_pool_backward_out(const Tensor& grad_output, const Tensor& grad_input) {
  run_backward<N>(grad_output, grad_input, [&](const Volumes<N>& g, const auto* go, auto* gi) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(go)>>;
    for_each_output(g, adaptive_window_size(g), [&](int64_t v, const Dims<N>& o, int64_t i) {
      Dims<N> first, last;
      const int64_t count = adaptive_window(g, o, first, last);
      T* x = gi + v * g.in_n;
      const T share = go[v * g.out_n + i] / static_cast<T>(count);
      for_each_in_window<N>(first, last, unit_steps<N>(), g.in, 0, [&](int64_t j) { x[j] += share; });
    });
  });
}

#define XPORT_POOL_INSTANTIATE(N)                                                               \
  template void max_pool_out<N>(const Tensor&, const PoolWindow<N>&, const Tensor&,             \
                                const Tensor&);                                                 \
  template void avg_pool_out<N>(const Tensor&, const PoolWindow<N>&, bool,                      \
                                std::optional<int64_t>, const Tensor&);                         \
  template void adaptive_avg_pool_out<N>(const Tensor&, const Tensor&);                         \
  template void max_pool_backward_out<N>(const Tensor&, const Tensor&, const Tensor&);          \
  template void avg_pool_backward_out<N>(const Tensor&, const PoolWindow<N>&, bool,             \
                                         std::optional<int64_t>, const Tensor&);                \
  template void adaptive_avg_pool_backward_out<N>(const Tensor&, const Tensor&);
XPORT_POOL_INSTANTIATE(2)
XPORT_POOL_INSTANTIATE(3)
#undef XPORT_POOL_INSTANTIATE

}  // namespace xport::kernels::cpu
