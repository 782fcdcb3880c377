#pragma once
// The shape ops' out-variant kernels: one named function per op, its parameters the schema's
// arguments in order, then one tensor per result. Registration binds them (XPORT_OP_KERNEL) and
// a code generator can call them. Arguments are valid: the op's meta function checked them.

#include <optional>
#include <vector>

#include "xport/tensor.h"

namespace xport::ops {

void cat_out(const std::vector<Tensor>& tensors, int64_t dim, const Tensor& out);

void index_select_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& out);
void gather_out(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad,
                const Tensor& out);
void index_put_out(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                   const Tensor& values, bool accumulate, const Tensor& out);
void index_copy_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                    const Tensor& out);

void flip_out(const Tensor& self, const std::vector<int64_t>& dims, const Tensor& out);
/// reflection_pad{1,2,3}d and replication_pad{1,2,3}d (`padding`: pairs from the last dim).
void reflection_pad_out(const Tensor& self, const std::vector<int64_t>& padding,
                        const Tensor& out);
void replication_pad_out(const Tensor& self, const std::vector<int64_t>& padding,
                         const Tensor& out);
void triu_out(const Tensor& self, int64_t diagonal, const Tensor& out);
void tril_out(const Tensor& self, int64_t diagonal, const Tensor& out);

void scatter_src_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                     const Tensor& out);
void scatter_value_out(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                       const Tensor& out);
void scatter_add_out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                     const Tensor& out);
void scatter_reduce_two_out(const Tensor& self, int64_t dim, const Tensor& index,
                            const Tensor& src, const std::string& reduce, bool include_self,
                            const Tensor& out);
void slice_scatter_out(const Tensor& self, const Tensor& src, int64_t dim,
                       std::optional<int64_t> start, std::optional<int64_t> end, int64_t step,
                       const Tensor& out);
void select_scatter_out(const Tensor& self, const Tensor& src, int64_t dim, int64_t index,
                        const Tensor& out);

void sort_out(const Tensor& self, int64_t dim, bool descending, const Tensor& values,
              const Tensor& indices);
void topk_out(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted,
              const Tensor& values, const Tensor& indices);

// In place (`out` is self).
void index_put__out(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                    const Tensor& values, bool accumulate, const Tensor& out);
void index_copy__out(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                     const Tensor& out);

}  // namespace xport::ops
