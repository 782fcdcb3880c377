#pragma once
// The creation ops' out-variant kernels: one named function per op, its parameters the schema's
// arguments in order, then one tensor per result. Registration binds them (XPORT_OP_KERNEL) and
// a code generator can call them. Arguments are valid: the op's meta function checked them.

#include <optional>
#include <string>
#include <vector>

#include "xport/tensor.h"

namespace xport::ops {

// Copies (copy_ops.cpp).
void _to_copy_out(const Tensor& self, std::optional<DType> dtype,
                  const std::optional<std::string>& layout,
                  const std::optional<std::string>& device, std::optional<bool> pin_memory,
                  bool non_blocking, const std::optional<std::string>& memory_format,
                  const Tensor& out);
void clone_out(const Tensor& self, const std::optional<std::string>& memory_format,
               const Tensor& out);
void copy_out(const Tensor& self, const Tensor& src, bool non_blocking, const Tensor& out);
void copy__out(const Tensor& self, const Tensor& src, bool non_blocking, const Tensor& out);
void fill_Scalar_out(const Tensor& self, const Scalar& value, const Tensor& out);

// Factories (factory_ops.cpp).
void empty_strided_out(const std::vector<int64_t>& size, const std::vector<int64_t>& stride,
                       std::optional<DType> dtype, const std::optional<std::string>& layout,
                       const std::optional<std::string>& device, std::optional<bool> pin_memory,
                       const Tensor& out);
void empty_memory_format_out(const std::vector<int64_t>& size, std::optional<DType> dtype,
                             const std::optional<std::string>& layout,
                             const std::optional<std::string>& device,
                             std::optional<bool> pin_memory,
                             const std::optional<std::string>& memory_format, const Tensor& out);
void full_out(const std::vector<int64_t>& size, const Scalar& fill_value,
              std::optional<DType> dtype, const std::optional<std::string>& layout,
              const std::optional<std::string>& device, std::optional<bool> pin_memory,
              const Tensor& out);
void rand_out(const std::vector<int64_t>& size, std::optional<DType> dtype,
              const std::optional<std::string>& layout, const std::optional<std::string>& device,
              std::optional<bool> pin_memory, const Tensor& out);
void randn_out(const std::vector<int64_t>& size, std::optional<DType> dtype,
               const std::optional<std::string>& layout, const std::optional<std::string>& device,
               std::optional<bool> pin_memory, const Tensor& out);
void randperm_out(int64_t n, std::optional<DType> dtype, const std::optional<std::string>& layout,
                  const std::optional<std::string>& device, std::optional<bool> pin_memory,
                  const Tensor& out);
void scalar_tensor_out(const Scalar& s, std::optional<DType> dtype,
                       const std::optional<std::string>& layout,
                       const std::optional<std::string>& device, std::optional<bool> pin_memory,
                       const Tensor& out);
void arange_start_step_out(const Scalar& start, const Scalar& end, const Scalar& step,
                           std::optional<DType> dtype, const std::optional<std::string>& layout,
                           const std::optional<std::string>& device,
                           std::optional<bool> pin_memory, const Tensor& out);

}  // namespace xport::ops
