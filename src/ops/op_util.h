#pragma once
// Shared pieces of op definitions: output metadata, dim wrapping, broadcasting, type promotion,
// and calling other ops from decompositions and tensor methods.

#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

#include "ops/typed_kernel.h"
#include "xport/ops/op_registry.h"
#include "xport/tensor/result_type.h"

namespace xport::ops {

/// A contiguous output of the given sizes and dtype.
TensorMeta contiguous_meta(std::vector<SymInt> sizes, DType dtype);
/// Wraps a possibly negative dim into [0, ndim); `ndim` 0 accepts -1 and 0 like ATen. `op`
/// names the op in the error (typed kernels have no OpArgs).
int64_t wrap_dim(std::string_view op, int64_t dim, int64_t ndim);
int64_t wrap_dim(const OpArgs& args, int64_t dim, int64_t ndim);
/// Sorted, wrapped, checked-for-duplicates dims; empty `dims` means all dims.
std::vector<int64_t> wrap_dims(std::string_view op, const std::vector<int64_t>& dims,
                               int64_t ndim);
std::vector<int64_t> wrap_dims(const OpArgs& args, const std::vector<int64_t>& dims, int64_t ndim);
/// The broadcast of two shapes (NumPy rules); throws InvalidInput naming both shapes.
/// Whether a size is 1, for broadcasting: "not 1" is decided size-obliviously (a dynamic size
/// taken as at least 2, no guard), as PyTorch's infer_size decides it, which is sound because the
/// caller then guards the equality with the other size, or takes this size against a static 1,
/// which is right whether it is 1 or not. "1" is never assumed that way (min(1, u0) is 0 when u0
/// is): it takes a guard.
bool size_is_one(const SymInt& size);

std::vector<SymInt> broadcast_shapes(const OpArgs& args, const std::vector<SymInt>& a,
                                     const std::vector<SymInt>& b);
std::string shape_str(const std::vector<SymInt>& sizes);
/// The product of `sizes` when every one is a known integer; INT64_MAX (unbounded) otherwise.
/// Bounds a data-dependent count of selected elements.
int64_t numel_bound(const std::vector<SymInt>& sizes);

/// Looks an op up once per call site.
#define XPORT_OP(name)                                        \
  ([]() -> const ::xport::OpDef& {                            \
    static const ::xport::OpDef& op = ::xport::find_op(name); \
    return op;                                                \
  }())

/// A decomposition's one result.
inline std::vector<Tensor> single(Tensor t) { return {std::move(t)}; }

/// Calls a single-output op.
inline Tensor call1(const OpDef& op, std::vector<Value> args) {
  return call_tensors(op, std::move(args))[0];
}

}  // namespace xport::ops

namespace xport::ops {

/// Refuses to write into a tensor whose elements share memory (an expanded dim), where the
/// result would depend on the order of writes.
void check_no_internal_overlap(const OpArgs& args, const Tensor& self);

/// Registers the in-place form of `functional` (same arguments, `self` written): it uses the
/// functional op's meta function, writing into `self`, and checks that the result keeps self's
/// shape and can be cast to self's dtype. `kernel` takes the in-place op's arguments and self as
/// its result; it must read an input that shares self's memory through unaliased().
void register_inplace(const std::string& schema, const OpDef& functional,
                      const OpKernel& kernel);
/// `t`, or a copy of it when it shares self's memory in another layout (a[1:].add_(a[:-1])), so
/// an in-place kernel never reads an element after writing it.
Tensor unaliased(const Tensor& self, const Tensor& t);

}  // namespace xport::ops
