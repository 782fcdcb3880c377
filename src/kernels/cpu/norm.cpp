#include "kernels/cpu/norm.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/vec_math.h"

namespace xport::kernels::cpu {
namespace {



template <class T>
const T* data_or_null(const Tensor& t) {
  return t.defined() ? t.data<T>() : nullptr;
}

// Two-pass layer norm of rows [r0, r1) in T (the float64 path; float32 uses
// vec::layer_norm_rows).
template <class T>
void layer_norm_rows_scalar(const T* x, const T* w, const T* b, T* y, T* mean, T* rstd,
                            int64_t rows, int64_t cols, T eps) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * cols;
    T* yr = y + r * cols;
    T sum = 0;
    for (int64_t i = 0; i < cols; ++i) sum += xr[i];
    const T mu = sum / static_cast<T>(cols);
    T var = 0;
    for (int64_t i = 0; i < cols; ++i) var += (xr[i] - mu) * (xr[i] - mu);
    var /= static_cast<T>(cols);
    const T rs = T(1) / std::sqrt(var + eps);
    mean[r] = mu;
    rstd[r] = rs;
    for (int64_t i = 0; i < cols; ++i) {
      T v = (xr[i] - mu) * rs;
      if (w) v *= w[i];
      if (b) v += b[i];
      yr[i] = v;
    }
  }
}

template <class T>
void layer_norm_typed(const Tensor& input, const Tensor& weight, const Tensor& bias, int64_t M,
                      int64_t N, double eps, const Tensor& out, const Tensor& mean,
                      const Tensor& rstd) {
  const Tensor x = contiguous_as(input, dtype_v<T>);
  const Tensor w = weight.defined() ? contiguous_as(weight, dtype_v<T>) : Tensor();
  const Tensor b = bias.defined() ? contiguous_as(bias, dtype_v<T>) : Tensor();
  const T* xp = x.data<T>();
  const T* wp = data_or_null<T>(w);
  const T* bp = data_or_null<T>(b);
  const int64_t grain = std::max<int64_t>(1, 16384 / N);
  write_as<T>(out, [&](T* y) {
    write_as<T>(mean, [&](T* mu) {
      write_as<T>(rstd, [&](T* rs) {
        parallel_for(0, M, grain, [&](int64_t r0, int64_t r1) {
          if constexpr (std::is_same_v<T, float>) {
            vec::layer_norm_rows(xp + r0 * N, wp, bp, y + r0 * N, mu + r0, rs + r0, r1 - r0, N,
                                 static_cast<float>(eps));
          } else {
            layer_norm_rows_scalar<T>(xp + r0 * N, wp, bp, y + r0 * N, mu + r0, rs + r0, r1 - r0, N,
                                      static_cast<T>(eps));
          }
        });
      });
    });
  });
}

// out = x * alpha[c] + beta[c] over [outer, C, inner].
template <class T>
void scale_shift_channels(const T* x, T* y, const T* alpha, const T* beta, int64_t outer, int64_t C,
                          int64_t inner) {
  if (inner == 1) {
    parallel_for(0, outer, std::max<int64_t>(1, 32768 / std::max<int64_t>(C, 1)),
                 [&](int64_t b, int64_t e) {
                   for (int64_t n = b; n < e; ++n) {
                     const T* xr = x + n * C;
                     T* yr = y + n * C;
                     for (int64_t c = 0; c < C; ++c) yr[c] = xr[c] * alpha[c] + beta[c];
                   }
                 });
    return;
  }
  parallel_for(0, outer * C, std::max<int64_t>(1, 32768 / inner), [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const T a = alpha[p % C];
      const T s = beta[p % C];
      const T* xr = x + p * inner;
      T* yr = y + p * inner;
      for (int64_t i = 0; i < inner; ++i) yr[i] = xr[i] * a + s;
    }
  });
}

}  // namespace

void layer_norm_out(const Tensor& input, const Tensor& weight, const Tensor& bias, int64_t N,
                    double eps, const Tensor& out, const Tensor& mean, const Tensor& rstd) {
  const int64_t M = mean.int_numel();
  if (M == 0) return;
  const bool f64 = input.dtype() == DType::Float64;
  if (N == 0) {
    // ATen's result for empty rows: mean 0, rstd NaN (1 / sqrt(0 / 0)).
    auto fill = [M](auto* p, double v) {
      std::fill(p, p + M, static_cast<std::remove_pointer_t<decltype(p)>>(v));
    };
    if (f64) {
      write_as<double>(mean, [&](double* p) { fill(p, 0.0); });
      write_as<double>(rstd, [&](double* p) { fill(p, std::numeric_limits<double>::quiet_NaN()); });
    } else {
      write_as<float>(mean, [&](float* p) { fill(p, 0.0); });
      write_as<float>(rstd, [&](float* p) { fill(p, std::numeric_limits<double>::quiet_NaN()); });
    }
    return;
  }
  if (f64)
    layer_norm_typed<double>(input, weight, bias, M, N, eps, out, mean, rstd);
  else
    layer_norm_typed<float>(input, weight, bias, M, N, eps, out, mean, rstd);
}

void batch_norm_inference_out(const Tensor& input, const Tensor& weight, const Tensor& bias,
                              const Tensor& running_mean, const Tensor& running_var, double eps,
                              const Tensor& out) {
  if (input.int_numel() == 0) return;  // e.g. a batch of 0: nothing to write
  const int64_t C = input.int_size(1);
  const int64_t outer = input.int_size(0);
  const int64_t inner = C * outer == 0 ? 0 : input.int_numel() / (C * outer);
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const Tensor mean = contiguous_as(running_mean, dtype_v<T>);
    const Tensor var = contiguous_as(running_var, dtype_v<T>);
    const Tensor w = weight.defined() ? contiguous_as(weight, dtype_v<T>) : Tensor();
    const Tensor b = bias.defined() ? contiguous_as(bias, dtype_v<T>) : Tensor();
    // ATen's per-channel linear and constant terms.
    std::vector<T> alpha(C), beta(C);
    for (int64_t c = 0; c < C; ++c) {
      const T invstd = T(1) / std::sqrt(var.data<T>()[c] + static_cast<T>(eps));
      alpha[c] = invstd * (w.defined() ? w.data<T>()[c] : T(1));
      beta[c] = (b.defined() ? b.data<T>()[c] : T(0)) - mean.data<T>()[c] * alpha[c];
    }
    const Tensor x = contiguous_as(input, dtype_v<T>);
    write_as<T>(out, [&](T* y) {
      scale_shift_channels<T>(x.data<T>(), y, alpha.data(), beta.data(), outer, C, inner);
    });
  };
  if (input.dtype() == DType::Float64)
    run(double{});
  else
    run(float{});
}

void batch_norm_training_out(const Tensor& input, const Tensor& weight, const Tensor& bias,
                             const Tensor& running_mean, const Tensor& running_var,
                             double momentum, double eps, const Tensor& out,
                             const Tensor& save_mean, const Tensor& save_invstd,
                             const Tensor& running_mean_out, const Tensor& running_var_out) {
  const int64_t C = input.int_size(1);
  const int64_t outer = input.int_size(0);
  const int64_t inner = C * outer == 0 ? 0 : input.int_numel() / (C * outer);
  const int64_t count = outer * inner;
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const Tensor x = contiguous_as(input, dtype_v<T>);
    const T* xd = x.data<T>();
    // Per channel, in double: the batch mean and biased variance (two passes, as ATen).
    std::vector<double> mean(C, 0.0), var(C, 0.0);
    parallel_for(0, C, 1, [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        double sum = 0;
        for (int64_t n = 0; n < outer; ++n) {
          const T* row = xd + (n * C + c) * inner;
          for (int64_t i = 0; i < inner; ++i) sum += row[i];
        }
        mean[c] = count > 0 ? sum / static_cast<double>(count) : 0.0;
        double sq = 0;
        for (int64_t n = 0; n < outer; ++n) {
          const T* row = xd + (n * C + c) * inner;
          for (int64_t i = 0; i < inner; ++i) {
            const double d = row[i] - mean[c];
            sq += d * d;
          }
        }
        var[c] = count > 0 ? sq / static_cast<double>(count) : 0.0;
      }
    });
    const Tensor w = weight.defined() ? contiguous_as(weight, dtype_v<T>) : Tensor();
    const Tensor b = bias.defined() ? contiguous_as(bias, dtype_v<T>) : Tensor();
    std::vector<T> alpha(C), beta(C);
    std::vector<double> invstd(C);
    for (int64_t c = 0; c < C; ++c) {
      invstd[c] = 1.0 / std::sqrt(var[c] + eps);
      alpha[c] = static_cast<T>(invstd[c] * (w.defined() ? w.data<T>()[c] : T(1)));
      beta[c] = static_cast<T>((b.defined() ? b.data<T>()[c] : T(0)) - mean[c] * alpha[c]);
    }
    write_as<T>(out, [&](T* y) {
      scale_shift_channels<T>(xd, y, alpha.data(), beta.data(), outer, C, inner);
    });
    auto fill = [&](const Tensor& dst, auto value_of) {
      if (!dst.defined()) return;
      if (dst.dtype() == DType::Float64) {
        write_as<double>(dst, [&](double* d) {
          for (int64_t c = 0; c < C; ++c) d[c] = value_of(c);
        });
      } else {
        write_as<float>(dst, [&](float* d) {
          for (int64_t c = 0; c < C; ++c) d[c] = static_cast<float>(value_of(c));
        });
      }
    };
    fill(save_mean, [&](int64_t c) { return mean[c]; });
    fill(save_invstd, [&](int64_t c) { return invstd[c]; });
    if (!running_mean_out.defined()) return;
    // Read the old statistics before writing: an out may be its input.
    const Tensor old_mean = contiguous_as(running_mean, DType::Float64);
    const Tensor old_var = contiguous_as(running_var, DType::Float64);
    const double unbias =
        count > 1 ? static_cast<double>(count) / static_cast<double>(count - 1) : 1.0;
    fill(running_mean_out, [&](int64_t c) {
      return (1 - momentum) * old_mean.data<double>()[c] + momentum * mean[c];
    });
    fill(running_var_out, [&](int64_t c) {
      return (1 - momentum) * old_var.data<double>()[c] + momentum * var[c] * unbias;
    });
  };
  if (input.dtype() == DType::Float64)
    run(double{});
  else
    run(float{});
}

void norm_backward_out(const Tensor& grad_out, const Tensor& input, const Tensor& mean,
                       const Tensor& rstd, const Tensor& weight, const NormLayout& layout,
                       const Tensor& grad_input, const Tensor& grad_weight,
                       const Tensor& grad_bias) {
  const int64_t rows = layout.rows, cols = layout.cols;
  const int64_t weights = layout.groups * layout.channels;
  visit_floating(input.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const Tensor x = contiguous_as(input, dtype_v<T>);
    const Tensor dy = contiguous_as(grad_out, dtype_v<T>);
    const Tensor m = contiguous_as(mean, dtype_v<T>);
    const Tensor r = contiguous_as(rstd, dtype_v<T>);
    const Tensor w = weight.defined() ? contiguous_as(weight, dtype_v<T>) : Tensor();
    auto weight_of = [&](int64_t row, int64_t col) {
      return (row % layout.groups) * layout.channels + col / layout.inner;
    };
    if (grad_input.defined()) {
      write_as<T>(grad_input, [&](T* dx) {
        const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(cols, 1));
        parallel_for(0, rows, grain, [&](int64_t lo, int64_t hi) {
          for (int64_t row = lo; row < hi; ++row) {
            const T* xr = x.data<T>() + row * cols;
            const T* dyr = dy.data<T>() + row * cols;
            const double mu = m.data<T>()[row], rs = r.data<T>()[row];
            const auto g = [&](int64_t c) {
              const double scale = w.defined() ? w.data<T>()[weight_of(row, c)] : 1.0;
              return static_cast<double>(dyr[c]) * scale;
            };
            double sum_g = 0, sum_g_xhat = 0;
            for (int64_t c = 0; c < cols; ++c) {
              sum_g += g(c);
              sum_g_xhat += g(c) * (xr[c] - mu) * rs;
            }
            const double n = static_cast<double>(cols);
            for (int64_t c = 0; c < cols; ++c) {
              const double xhat = (xr[c] - mu) * rs;
              dx[row * cols + c] =
                  static_cast<T>(rs * (g(c) - sum_g / n - xhat * (sum_g_xhat / n)));
            }
          }
        });
      });
    }
    if (!grad_weight.defined() && !grad_bias.defined()) return;
    // Per weight, sums over every element it scaled (in double, in one pass).
    std::vector<double> dw(static_cast<size_t>(weights), 0.0), db(dw.size(), 0.0);
    for (int64_t row = 0; row < rows; ++row) {
      const double mu = m.data<T>()[row], rs = r.data<T>()[row];
      for (int64_t c = 0; c < cols; ++c) {
        const double d = dy.data<T>()[row * cols + c];
        const auto k = static_cast<size_t>(weight_of(row, c));
        dw[k] += d * (x.data<T>()[row * cols + c] - mu) * rs;
        db[k] += d;
      }
    }
    const auto write_sums = [&](const Tensor& out, const std::vector<double>& sums) {
      if (!out.defined()) return;
      write_as<T>(out, [&](T* p) {
        for (int64_t k = 0; k < weights; ++k) p[k] = static_cast<T>(sums[k]);
      });
    };
    write_sums(grad_weight, dw);
    write_sums(grad_bias, db);
  });
}

}  // namespace xport::kernels::cpu

namespace xport::kernels::cpu {

void group_norm_out(const Tensor& input, const Tensor& weight, const Tensor& bias, int64_t N,
                    int64_t C, int64_t HxW, int64_t group, double eps, const Tensor& out,
                    const Tensor& mean, const Tensor& rstd) {
  const int64_t per_group = C / group * HxW;  // the elements each (n, group) normalizes
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const Tensor x = contiguous_as(input, dtype_v<T>);
    const Tensor w = weight.defined() ? contiguous_as(weight, dtype_v<T>) : Tensor();
    const Tensor b = bias.defined() ? contiguous_as(bias, dtype_v<T>) : Tensor();
    std::vector<T> means(N * group), rstds(N * group);
    write_as<T>(out, [&](T* y) {
      const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(per_group, 1));
      parallel_for(0, N * group, grain, [&](int64_t lo, int64_t hi) {
        for (int64_t row = lo; row < hi; ++row) {
          // Mean and biased variance in double, two passes (as ATen's CPU kernel).
          const T* xr = x.data<T>() + row * per_group;
          double sum = 0;
          for (int64_t i = 0; i < per_group; ++i) sum += xr[i];
          const double m = per_group ? sum / static_cast<double>(per_group) : 0.0;
          double sq = 0;
          for (int64_t i = 0; i < per_group; ++i) sq += (xr[i] - m) * (xr[i] - m);
          const double var = per_group ? sq / static_cast<double>(per_group) : 0.0;
          const double r = 1.0 / std::sqrt(var + eps);
          means[row] = static_cast<T>(m);
          rstds[row] = static_cast<T>(r);
          const int64_t n = row / group, g = row % group;
          for (int64_t c = g * (C / group); c < (g + 1) * (C / group); ++c) {
            const double scale = r * (w.defined() ? static_cast<double>(w.data<T>()[c]) : 1.0);
            const double shift = (b.defined() ? static_cast<double>(b.data<T>()[c]) : 0.0);
            const T* xc = x.data<T>() + (n * C + c) * HxW;
            T* yc = y + (n * C + c) * HxW;
            for (int64_t i = 0; i < HxW; ++i)
              yc[i] = static_cast<T>((static_cast<double>(xc[i]) - m) * scale + shift);
          }
        }
      });
    });
    write_as<T>(mean, [&](T* p) { std::copy(means.begin(), means.end(), p); });
    write_as<T>(rstd, [&](T* p) { std::copy(rstds.begin(), rstds.end(), p); });
  };
  if (input.dtype() == DType::Float64)
    run(double{});
  else
    run(float{});
}

}  // namespace xport::kernels::cpu
