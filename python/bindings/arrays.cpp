#include "arrays.h"

#include <cstring>
#include <memory>
#include <vector>

#include "xport/core/error.h"

namespace xport::python {
namespace {

using nb::dlpack::dtype_code;

DType dtype_of(nb::dlpack::dtype t, const std::string& what) {
  if (t.lanes == 1) {
    const auto code = static_cast<dtype_code>(t.code);
    switch (code) {
      case dtype_code::Bool:
        if (t.bits == 8) return DType::Bool;
        break;
      case dtype_code::UInt:
        if (t.bits == 8) return DType::UInt8;
        break;
      case dtype_code::Int:
        if (t.bits == 8) return DType::Int8;
        if (t.bits == 16) return DType::Int16;
        if (t.bits == 32) return DType::Int32;
        if (t.bits == 64) return DType::Int64;
        break;
      case dtype_code::Float:
        if (t.bits == 16) return DType::Float16;
        if (t.bits == 32) return DType::Float32;
        if (t.bits == 64) return DType::Float64;
        break;
      case dtype_code::Bfloat:
        if (t.bits == 16) return DType::BFloat16;
        break;
      case dtype_code::Complex:
        if (t.bits == 64) return DType::Complex64;
        if (t.bits == 128) return DType::Complex128;
        break;
      default:
        break;
    }
  }
  XPORT_FAIL(InvalidInput, what, ": an array of element type (code ", static_cast<int>(t.code),
             ", ", static_cast<int>(t.bits), " bits, ", static_cast<int>(t.lanes),
             " lanes) that xport has no dtype for; convert it to a NumPy dtype such as float32");
}

nb::dlpack::dtype dlpack_of(DType dtype) {
  nb::dlpack::dtype t{0, static_cast<uint8_t>(element_size(dtype) * 8), 1};
  switch (dtype) {
    case DType::Bool:
      t.code = static_cast<uint8_t>(dtype_code::Bool);
      break;
    case DType::UInt8:
      t.code = static_cast<uint8_t>(dtype_code::UInt);
      break;
    case DType::Int8:
    case DType::Int16:
    case DType::Int32:
    case DType::Int64:
      t.code = static_cast<uint8_t>(dtype_code::Int);
      break;
    case DType::Float16:
    case DType::Float32:
    case DType::Float64:
      t.code = static_cast<uint8_t>(dtype_code::Float);
      break;
    case DType::Complex64:
    case DType::Complex128:
      t.code = static_cast<uint8_t>(dtype_code::Complex);
      break;
    case DType::BFloat16:
      XPORT_FAIL(Internal, "bfloat16 reached the NumPy conversion");
  }
  return t;
}

}  // namespace

Tensor tensor_from_array(const InputArray& array, const std::string& what) {
  const DType dtype = dtype_of(array.dtype(), what);
  const int64_t item = element_size(dtype);
  std::vector<SymInt> sizes, strides;
  int64_t reach = 0;  // the furthest element from the first, in elements
  bool has_elements = true;
  bool usable = true;
  for (size_t d = 0; d < array.ndim(); ++d) {
    const auto size = static_cast<int64_t>(array.shape(d));
    const int64_t stride = array.stride(d);
    sizes.emplace_back(size);
    strides.emplace_back(stride);
    if (size == 0) has_elements = false;
    if (stride < 0) usable = false;
    reach += (size - 1) * stride;
  }
  // The array (a copy of the handle) lives as long as the storage: its last reference may be
  // dropped on a thread without the GIL, which releasing a Python object needs.
  auto keep = std::shared_ptr<void>(new InputArray(array), [](void* p) {
    nb::gil_scoped_acquire gil;
    delete static_cast<InputArray*>(p);
  });
  const int64_t bytes = has_elements ? (reach + 1) * item : 0;
  TensorMeta meta{sizes, strides, 0, dtype};
  if (usable) {
    const Tensor view =
        Tensor::make(Storage::wrap(const_cast<void*>(array.data()), bytes, std::move(keep)), meta);
    // The runtime's kernels read inputs as laid out in C order: another layout (a transposed
    // or broadcast view) is copied once.
    return view.is_contiguous() ? view : view.contiguous();
  }
  // Negative strides (a reversed NumPy view): xport's tensors count strides from the first
  // element forward, so the values are copied in order.
  const Tensor out = Tensor::empty_contiguous(
      std::vector<int64_t>(array.shape_ptr(), array.shape_ptr() + array.ndim()), dtype);
  std::vector<int64_t> index(array.ndim(), 0);
  auto* dst = static_cast<char*>(out.raw_data());
  const auto* src = static_cast<const char*>(array.data());
  for (int64_t i = 0; i < out.int_numel(); ++i) {
    int64_t offset = 0;
    for (size_t d = 0; d < array.ndim(); ++d) offset += index[d] * array.stride(d);
    std::memcpy(dst + i * item, src + offset * item, static_cast<size_t>(item));
    for (size_t d = array.ndim(); d-- > 0;) {
      if (++index[d] < static_cast<int64_t>(array.shape(d))) break;
      index[d] = 0;
    }
  }
  return out;
}

nb::object array_from_tensor(const Tensor& tensor) {
  Tensor t = tensor;
  if (t.dtype() == DType::BFloat16) t = t.to(DType::Float32);
  const std::vector<int64_t> sizes = t.int_sizes();
  const std::vector<int64_t> strides = t.int_strides();
  std::vector<size_t> shape(sizes.begin(), sizes.end());
  // Shared: the program's state, an input, or another output reaches the same memory.
  const bool shared = t.storage().use_count() > 1;
  auto* owner = new Tensor(t);
  nb::capsule capsule(owner, [](void* p) noexcept { delete static_cast<Tensor*>(p); });
  nb::ndarray<nb::numpy, nb::device::cpu> array(owner->raw_data(), shape.size(), shape.data(),
                                                capsule, strides.data(), dlpack_of(t.dtype()));
  nb::object result = nb::cast(array, nb::rv_policy::reference);
  if (shared) result.attr("setflags")(nb::arg("write") = false);
  return result;
}

}  // namespace xport::python
