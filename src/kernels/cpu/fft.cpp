#include "kernels/cpu/fft.h"

#include <kissfft/kissfft.hh>

#include <complex>

#include "kernels/cpu/elementwise.h"
#include "kernels/cpu/parallel.h"

namespace xport::kernels::cpu {
namespace {

template <class T>
using Complex = std::complex<T>;

// A contiguous complex buffer and its shape.
template <class T>
struct Spectrum {
  std::vector<int64_t> shape;
  std::vector<Complex<T>> data;

  explicit Spectrum(std::vector<int64_t> s) : shape(std::move(s)) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    data.resize(static_cast<size_t>(n));
  }
  int64_t inner(size_t dim) const {
    int64_t n = 1;
    for (size_t d = dim + 1; d < shape.size(); ++d) n *= shape[d];
    return n;
  }
};

// Calls fn(line, base, stride) for every line of `s` along `dim` (in parallel), where element j
// of the line is s.data[base + j * stride].
template <class T, class Fn>
void for_each_line(const Spectrum<T>& s, size_t dim, const Fn& fn) {
  const int64_t n = s.shape[dim], inner = s.inner(dim);
  const int64_t lines = n == 0 ? 0 : static_cast<int64_t>(s.data.size()) / n;
  const int64_t grain = std::max<int64_t>(1, 4096 / std::max<int64_t>(n, 1));
  parallel_for(0, lines, grain, [&](int64_t lo, int64_t hi) {
    for (int64_t line = lo; line < hi; ++line) {
      fn((line / inner) * n * inner + line % inner, inner);
    }
  });
}

// The 1-D transform of every line along `dim`, in place.
template <class T>
void transform_dim(Spectrum<T>& s, size_t dim, bool inverse) {
  const int64_t n = s.shape[dim];
  if (n <= 1) return;
  const kissfft<T> fft(static_cast<size_t>(n), inverse);
  for_each_line(s, dim, [&](int64_t base, int64_t stride) {
    std::vector<Complex<T>> in(static_cast<size_t>(n)), out(in.size());
    for (int64_t j = 0; j < n; ++j) in[j] = s.data[base + j * stride];
    fft.transform(in.data(), out.data());
    for (int64_t j = 0; j < n; ++j) s.data[base + j * stride] = out[j];
  });
}

// `t` (complex) as a Spectrum of T.
template <class T>
Spectrum<T> read_complex(const Tensor& t) {
  Spectrum<T> s(t.int_sizes());
  const Tensor parts = contiguous_as(Tensor::make(t.storage(), complex_as_real(t.meta())),
                                     dtype_v<T>);
  const T* p = parts.data<T>();
  for (size_t i = 0; i < s.data.size(); ++i) s.data[i] = Complex<T>(p[2 * i], p[2 * i + 1]);
  return s;
}

// Writes s (times scale) into the complex `out`, whose shape may be s's cut short along dims
// (a one-sided spectrum): out's element at some coordinates is s's at the same coordinates.
template <class T>
void write_complex(const Spectrum<T>& s, double scale, const Tensor& out) {
  const std::vector<int64_t> shape = out.int_sizes();
  write_as<T>(Tensor::make(out.storage(), complex_as_real(out.meta())), [&](T* p) {
    std::vector<int64_t> coord(shape.size(), 0);
    const int64_t count = out.int_numel();
    for (int64_t i = 0; i < count; ++i) {
      int64_t from = 0;
      for (size_t d = 0; d < shape.size(); ++d) from = from * s.shape[d] + coord[d];
      const Complex<T> v = s.data[static_cast<size_t>(from)] * static_cast<T>(scale);
      p[2 * i] = v.real();
      p[2 * i + 1] = v.imag();
      for (size_t d = shape.size(); d-- > 0;) {
        if (++coord[d] < shape[d]) break;
        coord[d] = 0;
      }
    }
  });
}

// float for float32 and complex64, double for float64 and complex128.
template <class Fn>
void visit_precision(DType dtype, const Fn& fn) {
  if (dtype == DType::Float64 || dtype == DType::Complex128) {
    fn(double{});
  } else {
    fn(float{});
  }
}

}  // namespace

void fft_r2c_out(const Tensor& input, const std::vector<int64_t>& dims, double scale,
                 const Tensor& out) {
  visit_precision(input.dtype(), [&](auto zero) {
    using T = decltype(zero);
    Spectrum<T> s(input.int_sizes());
    const Tensor x = contiguous_as(input, dtype_v<T>);
    for (size_t i = 0; i < s.data.size(); ++i) s.data[i] = Complex<T>(x.data<T>()[i], T(0));
    for (int64_t d : dims) transform_dim(s, static_cast<size_t>(d), false);
    write_complex(s, scale, out);
  });
}

void fft_c2c_out(const Tensor& input, const std::vector<int64_t>& dims, double scale,
                 bool forward, const Tensor& out) {
  visit_precision(input.dtype(), [&](auto zero) {
    using T = decltype(zero);
    Spectrum<T> s = read_complex<T>(input);
    for (int64_t d : dims) transform_dim(s, static_cast<size_t>(d), !forward);
    write_complex(s, scale, out);
  });
}

void fft_c2r_out(const Tensor& input, const std::vector<int64_t>& dims, double scale,
                 const Tensor& out) {
  visit_precision(input.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const size_t last = static_cast<size_t>(dims.back());
    const int64_t n = out.int_size(static_cast<int64_t>(last));
    const int64_t half = n / 2 + 1;
    // The one-sided spectrum, its entries past n / 2 dropped; then the other dims' inverses.
    const Spectrum<T> given = read_complex<T>(input);
    std::vector<int64_t> half_shape = given.shape;
    half_shape[last] = half;
    Spectrum<T> s(half_shape);
    for (size_t i = 0; i < s.data.size(); ++i) {
      // The same coordinates in `given` (whose last dim of `dims` may be longer).
      int64_t rest = static_cast<int64_t>(i), from = 0, scale_from = 1;
      for (size_t d = half_shape.size(); d-- > 0;) {
        from += (rest % half_shape[d]) * scale_from;
        rest /= half_shape[d];
        scale_from *= given.shape[d];
      }
      s.data[i] = given.data[static_cast<size_t>(from)];
    }
    for (size_t k = 0; k + 1 < dims.size(); ++k) {
      transform_dim(s, static_cast<size_t>(dims[k]), true);
    }
    // The last dim: each line's full spectrum (X[n - k] = conj(X[k])), inverted; its real part.
    std::vector<int64_t> out_shape = half_shape;
    out_shape[last] = n;
    const int64_t out_inner = s.inner(last);
    const kissfft<T> fft(static_cast<size_t>(std::max<int64_t>(n, 1)), true);
    write_as<T>(out, [&](T* y) {
      for_each_line(s, last, [&](int64_t base, int64_t stride) {
        std::vector<Complex<T>> full(static_cast<size_t>(n)), time(full.size());
        for (int64_t k = 0; k < n; ++k) {
          full[k] = k < half ? s.data[base + k * stride]
                             : std::conj(s.data[base + (n - k) * stride]);
        }
        if (n > 1) {
          fft.transform(full.data(), time.data());
        } else {
          time = full;
        }
        // The same line in out: the outer index keeps, the last dim grows from half to n.
        const int64_t outer = base / (half * out_inner), inner = base % out_inner;
        for (int64_t j = 0; j < n; ++j) {
          y[(outer * n + j) * out_inner + inner] = static_cast<T>(time[j].real() * scale);
        }
      });
    });
  });
}

}  // namespace xport::kernels::cpu
