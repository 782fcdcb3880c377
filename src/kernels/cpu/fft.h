#pragma once
// Discrete Fourier transforms over any dims of a tensor (ATen's _fft_r2c, _fft_c2r, _fft_c2c),
// one dim at a time with KISS FFT's mixed-radix transform (Debian's libkissfft-dev, its
// header-only C++ class): any length, float and double. float32 and complex64 compute in
// float, float64 and complex128 in double.

#include <vector>

#include "xport/tensor/tensor.h"

namespace xport::kernels::cpu {

/// out (complex) = the forward transform of real `input` over `dims` (wrapped, distinct), times
/// `scale`; `onesided` keeps the first n / 2 + 1 entries of the last of `dims` (the rest mirror
/// them), which out's shape says.
void fft_r2c_out(const Tensor& input, const std::vector<int64_t>& dims, double scale,
                 const Tensor& out);

/// out (complex) = the forward or inverse transform of complex `input` over `dims`, times
/// `scale`.
void fft_c2c_out(const Tensor& input, const std::vector<int64_t>& dims, double scale,
                 bool forward, const Tensor& out);

/// out (real) = the inverse transform over `dims` of the one-sided spectrum `input`: its last
/// dim of `dims` holds entries 0 .. n / 2 of a length-n signal (n = out's size there; the rest
/// are their conjugates), times `scale`. Imaginary parts that must be 0 for a real signal (entry
/// 0, and n / 2 for even n) are ignored.
void fft_c2r_out(const Tensor& input, const std::vector<int64_t>& dims, double scale,
                 const Tensor& out);

}  // namespace xport::kernels::cpu
