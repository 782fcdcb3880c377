#pragma once
// NumPy arrays and DLPack tensors in, NumPy arrays out, without copies where the layout allows.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <string>

#include "xport/tensor/tensor.h"

namespace xport::python {

namespace nb = nanobind;

/// An input array: on the CPU, any dtype and layout, read-only allowed.
using InputArray = nb::ndarray<nb::ro, nb::device::cpu>;

/// An array on the CPU (NumPy's, or any DLPack producer's) as a Tensor over the same memory. The
/// Tensor keeps the array alive. Another layout than C order (a transposed, broadcast or
/// reversed view) is copied once. `what` names the input in errors.
Tensor tensor_from_array(const InputArray& array, const std::string& what);

/// A Tensor as a NumPy array over the same memory, which keeps the tensor alive. The array is
/// read-only when other tensors share its memory (a weight, an input, another output), so that
/// writing to it cannot change the program. bfloat16, which NumPy has no type for, is converted
/// to float32.
nb::object array_from_tensor(const Tensor& tensor);

}  // namespace xport::python
