#pragma once
// The pointwise ops' out-variant kernels: one named function per op, its parameters the schema's
// arguments in order, then one tensor per result. Registration binds them (XPORT_OP_KERNEL) and
// a code generator can call them. Arguments are valid: the op's meta function checked them.

#include <optional>
#include <string>

#include "xport/tensor.h"

namespace xport::ops {

// Binary ops (binary_ops.cpp). A Scalar operand joins as a 0-dim tensor of the common dtype.
void add_Scalar_out(const Tensor& self, const Scalar& other, const Scalar& alpha,
                    const Tensor& out);
void sub_Tensor_out(const Tensor& self, const Tensor& other, const Scalar& alpha,
                    const Tensor& out);
void sub_Scalar_out(const Tensor& self, const Scalar& other, const Scalar& alpha,
                    const Tensor& out);
void mul_Scalar_out(const Tensor& self, const Scalar& other, const Tensor& out);
void div_Scalar_out(const Tensor& self, const Scalar& other, const Tensor& out);
void div_Tensor_mode_out(const Tensor& self, const Tensor& other,
                         const std::optional<std::string>& rounding_mode, const Tensor& out);
void div_Scalar_mode_out(const Tensor& self, const Scalar& other,
                         const std::optional<std::string>& rounding_mode, const Tensor& out);
void remainder_Scalar_out(const Tensor& self, const Scalar& other, const Tensor& out);
void fmod_Scalar_out(const Tensor& self, const Scalar& other, const Tensor& out);
void pow_Scalar_out(const Scalar& self, const Tensor& exponent, const Tensor& out);
void eq_Scalar_out(const Tensor& self, const Scalar& other, const Tensor& out);
void ne_Scalar_out(const Tensor& self, const Scalar& other, const Tensor& out);
void lt_Scalar_out(const Tensor& self, const Scalar& other, const Tensor& out);
void le_Scalar_out(const Tensor& self, const Scalar& other, const Tensor& out);
void gt_Scalar_out(const Tensor& self, const Scalar& other, const Tensor& out);
void ge_Scalar_out(const Tensor& self, const Scalar& other, const Tensor& out);
void bitwise_and_Scalar_out(const Tensor& self, const Scalar& other, const Tensor& out);
void bitwise_or_Scalar_out(const Tensor& self, const Scalar& other, const Tensor& out);
void bitwise_xor_Scalar_out(const Tensor& self, const Scalar& other, const Tensor& out);
void pow_Tensor_Scalar_out(const Tensor& self, const Scalar& exponent, const Tensor& out);

// Ternary ops (ternary_ops.cpp).
void clamp_out(const Tensor& self, const std::optional<Scalar>& min,
               const std::optional<Scalar>& max, const Tensor& out);
void clamp_Tensor_out(const Tensor& self, const std::optional<Tensor>& min,
                      const std::optional<Tensor>& max, const Tensor& out);
void masked_fill_Scalar_out(const Tensor& self, const Tensor& mask, const Scalar& value,
                            const Tensor& out);
void masked_fill_Tensor_out(const Tensor& self, const Tensor& mask, const Tensor& value,
                            const Tensor& out);
void masked_scatter_out(const Tensor& self, const Tensor& mask, const Tensor& source,
                        const Tensor& out);

// Unary ops (unary_ops.cpp).
void gelu_out(const Tensor& self, const std::string& approximate, const Tensor& out);

// In place (`out` is self).
void add__Tensor_out(const Tensor& self, const Tensor& other, const Scalar& alpha,
                     const Tensor& out);
void sub__Tensor_out(const Tensor& self, const Tensor& other, const Scalar& alpha,
                     const Tensor& out);
void mul__Tensor_out(const Tensor& self, const Tensor& other, const Tensor& out);
void div__Tensor_out(const Tensor& self, const Tensor& other, const Tensor& out);

}  // namespace xport::ops
