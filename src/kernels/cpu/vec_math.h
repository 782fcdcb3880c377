#pragma once
// SIMD loops over contiguous float arrays (Highway, dispatched at run time to the best target
// the CPU has). In-place use (x == y) is allowed.

#include <cstdint>
#include <string>

namespace xport::kernels::cpu::vec {

/// The Highway target these loops run on (AVX3, AVX2, EMU128, ...), after the ISA cap.
std::string dispatched_target();

void exp(const float* x, float* y, int64_t n);
void log(const float* x, float* y, int64_t n);
void tanh(const float* x, float* y, int64_t n);
void sigmoid(const float* x, float* y, int64_t n);
void erf(const float* x, float* y, int64_t n);
void gelu_erf(const float* x, float* y, int64_t n);
void gelu_tanh(const float* x, float* y, int64_t n);
void silu(const float* x, float* y, int64_t n);
void relu(const float* x, float* y, int64_t n);

/// y = clamp(round(x * scale) + offset, lo, hi), rounding half to even, NaN kept: affine
/// quantization's float steps.
void affine_round(const float* x, float* y, int64_t n, float scale, float offset, float lo,
                  float hi);
void add(const float* a, const float* b, float* y, int64_t n, float alpha);  // a + alpha*b
void mul(const float* a, const float* b, float* y, int64_t n);
void div(const float* a, const float* b, float* y, int64_t n);

float sum(const float* x, int64_t n);
float max(const float* x, int64_t n);
/// y = softmax(x) (or log_softmax) over each of `rows` rows of `cols` contiguous values.
void softmax_rows(const float* x, float* y, int64_t rows, int64_t cols, bool log);
/// Layer norm over rows; w and b may be null. Writes mean and rstd per row when non-null.
void layer_norm_rows(const float* x, const float* w, const float* b, float* y, float* mean,
                     float* rstd, int64_t rows, int64_t cols, float eps);

/// max / min of n floats, NaN when any is NaN (n == 0 gives -inf / +inf).
float amax(const float* x, int64_t n);
float amin(const float* x, int64_t n);
/// sum of exp(x[i] - shift) (logsumexp).
float sum_exp(const float* x, int64_t n, float shift);
/// sum of n floats accumulated in double (accurate for long arrays).
double sum_f64(const float* x, int64_t n);

}  // namespace xport::kernels::cpu::vec
