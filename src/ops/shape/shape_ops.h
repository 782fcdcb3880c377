#pragma once
// The shape family's op groups, each registered from register_shape_ops().

#include <vector>

#include "ops/op_util.h"

namespace xport::ops {

void register_cat_ops();      // cat, stack
void register_split_ops();    // split.Tensor, split_with_sizes, chunk, unbind.int
void register_index_ops();    // index_select, gather, index.Tensor, index_put,
                              // nonzero
void register_scatter_ops();  // scatter.src/.value, scatter_add, slice_scatter,
                              // select_scatter
void register_layout_ops();   // repeat, tile, flip, roll, triu, tril,
                              // constant_pad_nd, pad
void register_sort_ops();     // sort, sort.stable, topk

/// A 0-dim tensor counts as one dim of size 1 in gather/scatter rank checks
/// (ATen's ensure_nonempty_dim).
inline int64_t nonempty_dim(const Tensor& t) { return t.dim() == 0 ? 1 : t.dim(); }
inline SymInt nonempty_size(const Tensor& t, int64_t d) {
  return t.dim() == 0 ? SymInt(1) : t.sizes()[d];
}

/// gather/scatter's index: int64, with as many (non-empty) dims as self.
void check_gather_index(const OpArgs& args, const Tensor& self, const Tensor& index);

}  // namespace xport::ops
