#pragma once
/// \file Free functions of the shape op family (ATen names), thin calls into
/// the op registry.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "xport/tensor/tensor.h"

namespace xport {

// ---- joining and splitting ----
/// Concatenates along `dim`; dtypes promote; 1-D empty tensors are skipped (as
/// in PyTorch).
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
/// Joins equal-shaped tensors along a new dim.
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);
/// Views of consecutive parts of `split_size` (the last one smaller).
std::vector<Tensor> split(const Tensor& self, SymInt split_size, int64_t dim = 0);
std::vector<Tensor> split_with_sizes(const Tensor& self, SymIntList split_sizes, int64_t dim = 0);
/// At most `chunks` views of equal size (the last one smaller).
std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim = 0);
/// The slices along `dim`, as views.
std::vector<Tensor> unbind(const Tensor& self, int64_t dim = 0);

// ---- indexing ----
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
/// Advanced indexing, self[indices...]: an undefined Tensor stands for a whole
/// dim (`:`); int64 tensors broadcast together; bool masks select where true.
Tensor index(const Tensor& self, const std::vector<Tensor>& indices);
/// A copy of self with self[indices] = values (or += values when `accumulate`).
Tensor index_put(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                 bool accumulate = false);
/// A copy of self with its slices index[i] along dim replaced by source's slices i.
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
/// A copy of self with the slice self[start:end:step] along dim replaced by
/// src.
Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim = 0,
                     std::optional<SymInt> start = std::nullopt,
                     std::optional<SymInt> end = std::nullopt, SymInt step = 1);
/// A copy of self with self.select(dim, index) replaced by src.
Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, SymInt index);
/// The coordinates of nonzero elements: int64 [count, self.dim()]. Under capture the count is
/// an unbacked symbol (u0): only the data decides it.
Tensor nonzero(const Tensor& self);
/// The elements of self where mask (broadcast with it) holds, as a 1-D tensor; under capture
/// its length is an unbacked symbol.
Tensor masked_select(const Tensor& self, const Tensor& mask);

// ---- rearranging ----
Tensor repeat(const Tensor& self, SymIntList repeats);
Tensor tile(const Tensor& self, SymIntList dims);
Tensor flip(const Tensor& self, const std::vector<int64_t>& dims);
/// Rotates elements along dims (the flattened tensor when dims is empty).
Tensor roll(const Tensor& self, SymIntList shifts, const std::vector<int64_t>& dims = {});
Tensor triu(const Tensor& self, int64_t diagonal = 0);
Tensor tril(const Tensor& self, int64_t diagonal = 0);
/// Pads (or crops, for negative entries) with pairs (left, right) from the last
/// dim backwards.
Tensor constant_pad_nd(const Tensor& self, SymIntList pad, const Scalar& value = 0);
/// Only mode "constant" is supported; value defaults to 0.
Tensor pad(const Tensor& self, SymIntList pad, const std::string& mode = "constant",
           std::optional<double> value = std::nullopt);

// ---- ordering ----
/// (values, int64 indices) of the k largest (or smallest) along dim.
std::pair<Tensor, Tensor> topk(const Tensor& self, SymInt k, int64_t dim = -1, bool largest = true,
                               bool sorted = true);
/// (values, int64 indices) sorted along dim; stable, NaN last (first when
/// descending).
std::pair<Tensor, Tensor> sort(const Tensor& self, int64_t dim = -1, bool descending = false);
std::pair<Tensor, Tensor> sort(const Tensor& self, std::optional<bool> stable, int64_t dim,
                               bool descending);

}  // namespace xport
