#pragma once
// The data-dependent ops' out-variant kernels: one named function per op, its parameters the
// schema's arguments in order, then one tensor per result (a Scalar result is a one-element
// tensor). Registration binds them (XPORT_OP_KERNEL) and a code generator can call them.
// Arguments are valid: the op's meta function checked them.

#include <string>

#include "xport/tensor.h"

namespace xport::ops {

// data_dependent_ops.cpp
void item_out(const Tensor& self, const Tensor& out);
void _assert_scalar_out(const Scalar& self, const std::string& assert_msg);

// sym_float_ops.cpp: Python's float arithmetic, each result a float64 value.
void operator_add_out(const Scalar& a, const Scalar& b, const Tensor& out);
void operator_sub_out(const Scalar& a, const Scalar& b, const Tensor& out);
void operator_mul_out(const Scalar& a, const Scalar& b, const Tensor& out);
void operator_truediv_out(const Scalar& a, const Scalar& b, const Tensor& out);
void operator_neg_out(const Scalar& a, const Tensor& out);

}  // namespace xport::ops
