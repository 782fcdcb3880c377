#include "kernels/cpu/pool3d.h"

#include <algorithm>
#include <limits>
#include <type_traits>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/pool.h"

namespace xport::kernels::cpu {
namespace {

using Dims = std::array<int64_t, 3>;

// `volumes` volumes of `in` sizes in, of `out` sizes out.
struct Volumes {
  int64_t volumes;
  Dims in, out;
  int64_t in_numel() const { return in[0] * in[1] * in[2]; }
  int64_t out_numel() const { return out[0] * out[1] * out[2]; }
};

Volumes volumes_of(const Tensor& self, const Tensor& out) {
  const int64_t d = self.dim();
  Volumes v{};
  for (int64_t i = 0; i < 3; ++i) {
    v.in[i] = self.int_size(d - 3 + i);
    v.out[i] = out.int_size(d - 3 + i);
  }
  v.volumes = v.in_numel() == 0 ? 0 : self.int_numel() / v.in_numel();
  return v;
}

// Calls fn(volume, o, i) for each output position o (its depth, height, width) of each volume,
// volumes in parallel; `i` is the flat output index within the volume.
template <class Fn>
void for_each_output(const Volumes& g, int64_t window, const Fn& fn) {
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, g.out_numel() * window));
  parallel_for(0, g.volumes, grain, [&](int64_t b, int64_t e) {
    for (int64_t volume = b; volume < e; ++volume) {
      int64_t i = 0;
      for (int64_t od = 0; od < g.out[0]; ++od)
        for (int64_t oh = 0; oh < g.out[1]; ++oh)
          for (int64_t ow = 0; ow < g.out[2]; ++ow) fn(volume, Dims{od, oh, ow}, i++);
    }
  });
}

template <class T>
T lowest() {
  if constexpr (std::numeric_limits<T>::has_infinity) return -std::numeric_limits<T>::infinity();
  return std::numeric_limits<T>::lowest();
}

template <class T>
void max_pool(const T* in, T* out, int64_t* indices, const Volumes& g, const Pool3d& k) {
  for_each_output(g, k.kernel[0] * k.kernel[1] * k.kernel[2], [&](int64_t v, Dims o, int64_t i) {
    Dims first, last;
    for (int d = 0; d < 3; ++d) {
      first[d] = o[d] * k.stride[d] - k.pad[d];
      last[d] = std::min(first[d] + (k.kernel[d] - 1) * k.dilation[d] + 1, g.in[d]);
      while (first[d] < 0) first[d] += k.dilation[d];
    }
    const T* x = in + v * g.in_numel();
    T best = lowest<T>();
    int64_t best_index = (first[0] * g.in[1] + first[1]) * g.in[2] + first[2];
    for (int64_t id = first[0]; id < last[0]; id += k.dilation[0])
      for (int64_t ih = first[1]; ih < last[1]; ih += k.dilation[1])
        for (int64_t iw = first[2]; iw < last[2]; iw += k.dilation[2]) {
          const int64_t index = (id * g.in[1] + ih) * g.in[2] + iw;
          const T value = x[index];
          if (value > best || value != value) {
            best = value;
            best_index = index;
          }
        }
    out[v * g.out_numel() + i] = best;
    if (indices != nullptr) indices[v * g.out_numel() + i] = best_index;
  });
}

template <class T>
void avg_pool(const T* in, T* out, const Volumes& g, const Pool3d& k, bool count_include_pad,
              std::optional<int64_t> divisor_override) {
  for_each_output(g, k.kernel[0] * k.kernel[1] * k.kernel[2], [&](int64_t v, Dims o, int64_t i) {
    Dims first, last;
    int64_t pool_size = 1, inside = 1;
    for (int d = 0; d < 3; ++d) {
      first[d] = o[d] * k.stride[d] - k.pad[d];
      last[d] = std::min(first[d] + k.kernel[d], g.in[d] + k.pad[d]);
      pool_size *= last[d] - first[d];
      first[d] = std::max<int64_t>(first[d], 0);
      last[d] = std::min(last[d], g.in[d]);
      inside *= std::max<int64_t>(last[d] - first[d], 0);
    }
    T& dst = out[v * g.out_numel() + i];
    if (inside == 0) {
      dst = T(0);
      return;
    }
    const T* x = in + v * g.in_numel();
    T sum = T(0);
    for (int64_t id = first[0]; id < last[0]; ++id)
      for (int64_t ih = first[1]; ih < last[1]; ++ih)
        for (int64_t iw = first[2]; iw < last[2]; ++iw)
          sum += x[(id * g.in[1] + ih) * g.in[2] + iw];
    const int64_t divisor = divisor_override    ? *divisor_override
                            : count_include_pad ? pool_size
                                                : inside;
    dst = static_cast<T>(sum / static_cast<T>(divisor));
  });
}

template <class T>
void adaptive_avg_pool(const T* in, T* out, const Volumes& g) {
  int64_t window = 1;
  for (int d = 0; d < 3; ++d) window *= g.in[d] / std::max<int64_t>(g.out[d], 1) + 1;
  for_each_output(g, window, [&](int64_t v, Dims o, int64_t i) {
    Dims first, last;
    int64_t count = 1;
    for (int d = 0; d < 3; ++d) {
      first[d] = adaptive_start(o[d], g.out[d], g.in[d]);
      last[d] = adaptive_end(o[d], g.out[d], g.in[d]);
      count *= last[d] - first[d];
    }
    const T* x = in + v * g.in_numel();
    T sum = T(0);
    for (int64_t id = first[0]; id < last[0]; ++id)
      for (int64_t ih = first[1]; ih < last[1]; ++ih)
        for (int64_t iw = first[2]; iw < last[2]; ++iw)
          sum += x[(id * g.in[1] + ih) * g.in[2] + iw];
    out[v * g.out_numel() + i] = sum / static_cast<T>(count);
  });
}

}  // namespace

void max_pool3d_out(const Tensor& self, const Pool3d& pool, const Tensor& out,
                    const Tensor& indices) {
  const Volumes g = volumes_of(self, out);
  if (g.volumes == 0 || g.out_numel() == 0) return;
  const Tensor staged = indices.defined() && !indices.is_contiguous()
                            ? Tensor::empty_contiguous(indices.int_sizes(), DType::Int64)
                            : indices;
  int64_t* idx = staged.defined() ? staged.mutable_data<int64_t>() : nullptr;
  auto pool_as = [&](auto zero) {
    using T = decltype(zero);
    const Tensor in = contiguous_as(self, dtype_v<T>);
    write_as<T>(out, [&](T* y) { max_pool<T>(in.data<T>(), y, idx, g, pool); });
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

void avg_pool3d_out(const Tensor& self, const Pool3d& pool, bool count_include_pad,
                    std::optional<int64_t> divisor_override, const Tensor& out) {
  const Volumes g = volumes_of(self, out);
  if (g.volumes == 0 || g.out_numel() == 0) return;
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const Tensor in = contiguous_as(self, dtype_v<T>);
    write_as<T>(out, [&](T* y) {
      avg_pool<T>(in.data<T>(), y, g, pool, count_include_pad, divisor_override);
    });
  };
  // Integers average in int64 and truncate, like ATen.
  if (!is_floating(self.dtype()))
    run(int64_t{});
  else
    visit_floating(self.dtype(), run);
}

void adaptive_avg_pool3d_out(const Tensor& self, const Tensor& out) {
  const Volumes g = volumes_of(self, out);
  if (g.volumes == 0 || g.out_numel() == 0) return;
  visit_floating(self.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const Tensor in = contiguous_as(self, dtype_v<T>);
    write_as<T>(out, [&](T* y) { adaptive_avg_pool<T>(in.data<T>(), y, g); });
  });
}

}  // namespace xport::kernels::cpu
