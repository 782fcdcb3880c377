#pragma once
// The reductions' out-variant kernels: one named function per op, its parameters the schema's
// arguments in order, then one tensor per result. Registration binds them (XPORT_OP_KERNEL) and
// a code generator can call them. Arguments are valid: the op's meta function checked them.

#include <optional>
#include <vector>

#include "xport/tensor.h"

namespace xport::ops {

void sum_dim_IntList_out(const Tensor& self, const std::optional<std::vector<int64_t>>& dim,
                         bool keepdim, std::optional<DType> dtype, const Tensor& out);
void sum_out(const Tensor& self, std::optional<DType> dtype, const Tensor& out);
void mean_dim_out(const Tensor& self, const std::optional<std::vector<int64_t>>& dim,
                  bool keepdim, std::optional<DType> dtype, const Tensor& out);
void mean_out(const Tensor& self, std::optional<DType> dtype, const Tensor& out);
void prod_out(const Tensor& self, std::optional<DType> dtype, const Tensor& out);
void prod_dim_int_out(const Tensor& self, int64_t dim, bool keepdim, std::optional<DType> dtype,
                      const Tensor& out);
void var_correction_out(const Tensor& self, const std::optional<std::vector<int64_t>>& dim,
                        const std::optional<Scalar>& correction, bool keepdim,
                        const Tensor& out);
void std_correction_out(const Tensor& self, const std::optional<std::vector<int64_t>>& dim,
                        const std::optional<Scalar>& correction, bool keepdim,
                        const Tensor& out);
void var_dim_out(const Tensor& self, const std::optional<std::vector<int64_t>>& dim,
                 bool unbiased, bool keepdim, const Tensor& out);
void any_dims_out(const Tensor& self, const std::optional<std::vector<int64_t>>& dim,
                  bool keepdim, const Tensor& out);
void any_dim_out(const Tensor& self, int64_t dim, bool keepdim, const Tensor& out);
void any_out(const Tensor& self, const Tensor& out);
void all_dim_out(const Tensor& self, int64_t dim, bool keepdim, const Tensor& out);
void all_out(const Tensor& self, const Tensor& out);
void cumsum_out(const Tensor& self, int64_t dim, std::optional<DType> dtype, const Tensor& out);
void logsumexp_out(const Tensor& self, const std::vector<int64_t>& dim, bool keepdim,
                   const Tensor& out);

// minmax_ops.cpp and softmax_ops.cpp.
void amax_out(const Tensor& self, const std::vector<int64_t>& dim, bool keepdim, const Tensor& out);
void amin_out(const Tensor& self, const std::vector<int64_t>& dim, bool keepdim, const Tensor& out);
void max_dim_out(const Tensor& self, int64_t dim, bool keepdim, const Tensor& values,
                 const Tensor& indices);
void min_dim_out(const Tensor& self, int64_t dim, bool keepdim, const Tensor& values,
                 const Tensor& indices);
void max_out(const Tensor& self, const Tensor& out);
void min_out(const Tensor& self, const Tensor& out);
void argmax_out(const Tensor& self, std::optional<int64_t> dim, bool keepdim, const Tensor& out);
void argmin_out(const Tensor& self, std::optional<int64_t> dim, bool keepdim, const Tensor& out);
void _softmax_out(const Tensor& self, int64_t dim, bool half_to_float, const Tensor& out);
void _log_softmax_out(const Tensor& self, int64_t dim, bool half_to_float, const Tensor& out);

}  // namespace xport::ops
